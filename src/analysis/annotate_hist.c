// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * annotate over the agent's history (annotate.h): which interval files to
 * read (their names carry the UTC start), and the sum of one function's
 * self samples across them, on one build of one object.
 */
#include "analysis/annotate.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int annotate_stamp_ms(const char *s, int64_t *ms)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, frac, n = 0;
	time_t t;

	/* "20250102T030405.678Z", as the agent names its files */
	if (sscanf(s, "%4d%2d%2dT%2d%2d%2d.%3dZ%n", &y, &mo, &d, &h, &mi, &sec, &frac, &n) != 7 ||
	    n != 20 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    y < 1970 || frac < 0)
		return -EINVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*ms = (int64_t)t * 1000 + frac;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void annotate_history_free(char **files, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(files[i]);
	free(files);
}

int annotate_history_files(const char *dir, const char *kind, int64_t since_ms, char ***out,
			   size_t *nr_out)
{
	char suffix[32], **v = NULL;
	size_t nr = 0, cap = 0, sl;
	struct dirent *e;
	DIR *dp;
	int err = 0;

	snprintf(suffix, sizeof(suffix), "-%s.pb.gz", kind);
	sl = strlen(suffix);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (!err && (e = readdir(dp))) {
		size_t n = strlen(e->d_name);
		int64_t ms;

		/* "<stamp>-<kind>.pb.gz": the stamp is 20 bytes */
		if (n != 20 + sl || strcmp(e->d_name + 20, suffix) ||
		    annotate_stamp_ms(e->d_name, &ms) || ms < since_ms)
			continue;
		if (nr == cap) {
			char **nv = reallocarray(v, cap = cap ? 2 * cap : 64, sizeof(*v));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
		}
		if (asprintf(&v[nr], "%s/%s", dir, e->d_name) < 0)
			err = -ENOMEM;
		else
			nr++;
	}
	closedir(dp);
	if (err) {
		annotate_history_free(v, nr);
		return err;
	}
	if (nr)	/* the stamps sort as the times do: oldest first */
		qsort(v, nr, sizeof(*v), name_cmp);
	*out = v;
	*nr_out = nr;
	return 0;
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int annotate_sel_merge(struct annotate_sel *into, const struct annotate_sel *s)
{
	struct annotate_sample *v;
	size_t i = 0, j = 0, k = 0;

	if (!into->file) {
		into->owned_file = strdup(s->file ? s->file : "");
		into->owned_bid = strdup(s->build_id ? s->build_id : "");
		into->owned_type = strdup(s->type ? s->type : "");
		into->owned_unit = strdup(s->unit ? s->unit : "");
		if (!into->owned_file || !into->owned_bid || !into->owned_type || !into->owned_unit)
			return -ENOMEM;
		into->file = into->owned_file;
		into->build_id = into->owned_bid;
		into->type = into->owned_type;
		into->unit = into->owned_unit;
	} else if (!same(into->file, s->file) || !same(into->build_id, s->build_id)) {
		return -EXDEV;	/* another object or build: its offsets mean other code */
	}
	v = calloc(into->nr + s->nr + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* both sorted by offset, one per offset: a merge */
	while (i < into->nr || j < s->nr) {
		if (j == s->nr || (i < into->nr && into->v[i].off < s->v[j].off)) {
			v[k++] = into->v[i++];
		} else if (i == into->nr || s->v[j].off < into->v[i].off) {
			v[k++] = s->v[j++];
		} else {
			v[k] = into->v[i++];
			v[k++].weight += s->v[j++].weight;
		}
	}
	free(into->v);
	into->v = v;
	into->nr = k;
	into->total += s->total;
	into->no_addr += s->no_addr;
	into->in_stacks += s->in_stacks;
	into->profile_total += s->profile_total;
	return 0;
}
