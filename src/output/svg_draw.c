// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flame graph SVG writer: document frame, per-frame rect/title/text, colours
 * and tooltips. Everything here is a pure function of the layout, so equal
 * profiles give byte-identical files.
 */
#include "output/svg_draw.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define FRAME_H		16	/* px per stack level */
#define FONT_PX		12
#define CHAR_PX		(FONT_PX * 0.59)	/* average Verdana glyph width, as flamegraph.pl */
#define TOP_PAD		60	/* title and subtitle */
#define BOTTOM_PAD	34	/* details and match lines */
#define HIGHLIGHT	"rgb(230,0,230)"

/* ---- text ----------------------------------------------------------------- */

/*
 * Decode one UTF-8 character. Invalid, overlong, surrogate and out-of-range
 * sequences yield U+FFFD for one byte: a single bad byte must not make the
 * whole document unparsable, as browsers parse SVG files as strict XML.
 */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = c;
	return n;
}

static size_t utf8_count(const char *s)
{
	size_t n = 0;
	uint32_t cp;

	while (*s) {
		s += utf8_next((const unsigned char *)s, &cp);
		n++;
	}
	return n;
}

/* Write up to @max characters of @s as XML character data / attribute text. */
static void put_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; *p && i < max; i++) {
		size_t n = utf8_next(p, &cp);

		switch (cp) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			/* XML 1.0 forbids most C0 controls and U+FFFE/U+FFFF */
			if ((cp < 0x20 && cp != '\t') || cp == 0xfffe || cp == 0xffff)
				fputs("?", f);
			else if (cp == 0xfffd && n == 1)	/* replaced, not a real U+FFFD */
				fputs("\xef\xbf\xbd", f);
			else
				fwrite(p, 1, n, f);
		}
		p += n;
	}
}

static void put_str(FILE *f, const char *s)
{
	put_text(f, s, SIZE_MAX);
}

/* The frame label: the name cut to what fits in @w px, as the script does on zoom. */
static void put_label(FILE *f, const char *name, double w)
{
	double room = (w - 3) / CHAR_PX;
	size_t fit, len;

	if (room < 3)
		return;
	fit = (size_t)room;	/* truncation is floor() here: room >= 3 */
	len = utf8_count(name);
	if (len <= fit) {
		put_str(f, name);
		return;
	}
	put_text(f, name, fit - 2);
	fputs("..", f);
}

/* ---- numbers -------------------------------------------------------------- */

static void fmt_count(char *buf, size_t n, uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

static void fmt_time(char *buf, size_t n, double ns)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
}

/* True when drawn weights are nanoseconds rather than on-CPU samples. */
static bool weights_are_ns(const struct svg_layout *l)
{
	return l->split || !(l->kinds & SVG_KIND(PROFILE_KIND_ONCPU));
}

/* "1,234 samples (12.34 ms)", "1.23 s" or "1,234 <unit>". */
static void put_value(FILE *f, const struct svg_layout *l, uint64_t v, uint64_t period_ns)
{
	char num[32], t[32];

	if (l->o->unit) {
		fmt_count(num, sizeof(num), v);
		fprintf(f, "%s ", num);
		put_str(f, l->o->unit);
	} else if (weights_are_ns(l)) {
		fmt_time(t, sizeof(t), (double)v);
		fputs(t, f);
	} else {
		fmt_count(num, sizeof(num), v);
		fprintf(f, "%s sample%s", num, v == 1 ? "" : "s");
		if (period_ns) {
			fmt_time(t, sizeof(t), (double)v * (double)period_ns);
			fprintf(f, " (%s)", t);
		}
	}
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* ---- colours -------------------------------------------------------------- */

struct rgb {
	int r, g, b;
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool warm(const struct svg_layout *l, enum profile_kind k)
{
	if (l->o->palette == SVG_PALETTE_HOT)
		return true;
	if (l->o->palette == SVG_PALETTE_COLD)
		return false;
	return k == PROFILE_KIND_ONCPU;
}

static struct rgb frame_rgb(const struct svg_layout *l, const struct svg_node *n)
{
	uint32_t h = name_hash(n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;
	double v3 = ((h >> 16) & 0xff) / 255.0;
	bool hot = warm(l, n->kind);

	if (n->type == SVG_NODE_ROOT)
		return (struct rgb){ 200, 200, 200 };
	if (n->type == SVG_NODE_KIND)
		return hot ? (struct rgb){ 235, 90, 50 } : (struct rgb){ 80, 120, 230 };
	if (n->flags & FRAME_F_UNKNOWN)				/* grey */
		return (struct rgb){ 160 + 40 * v1, 160 + 40 * v1, 160 + 40 * v1 };
	if (n->flags & FRAME_F_WAKER)				/* purple */
		return (struct rgb){ 190 + 65 * v1, 80 + 60 * v1, 190 + 65 * v1 };
	if (n->flags & FRAME_F_JIT)				/* green */
		return (struct rgb){ 50 + 60 * v1, 200 + 55 * v1, 50 + 60 * v1 };
	if (n->flags & FRAME_F_KERNEL) {
		if (hot)					/* khaki */
			return (struct rgb){ 200 + 30 * v1, 170 + 30 * v1, 100 + 40 * v2 };
		return (struct rgb){ 50 + 60 * v1, 165 + 55 * v1, 165 + 55 * v1 };	/* aqua */
	}
	if (hot)						/* red-yellow */
		return (struct rgb){ 205 + 50 * v3, 230 * v1, 55 * v2 };
	return (struct rgb){ 80 + 60 * v1, 80 + 60 * v1, 190 + 55 * v2 };	/* blue */
}

double svg_self_delta(const struct svg_layout *l, const struct svg_node *n)
{
	return pct(n->self, l->total) / 100 - pct(n->base_self, l->base_total) / 100;
}

/* Red where the self share grew, blue where it shrank, neutral where equal. */
static struct rgb diff_rgb(const struct svg_layout *l, const struct svg_node *n)
{
	double t = l->max_delta > 0 ? svg_self_delta(l, n) / l->max_delta : 0;
	int fade = (int)(235.5 - 205 * (t < 0 ? -t : t));

	if (t > 0)
		return (struct rgb){ 255, fade, fade };
	if (t < 0)
		return (struct rgb){ fade, fade, 255 };
	return (struct rgb){ 235, 235, 235 };
}

/* ---- frames --------------------------------------------------------------- */

static void put_annotation(FILE *f, const struct svg_layout *l, const struct svg_node *n)
{
	static const struct {
		unsigned int flag;
		const char *what;
	} tags[] = {
		{ FRAME_F_KERNEL, "kernel" },	{ FRAME_F_JIT, "JIT" },
		{ FRAME_F_INLINE, "inlined" },	{ FRAME_F_WAKER, "waker" },
		{ FRAME_F_UNKNOWN, "no symbol" },
	};
	const char *sep = "\n(";

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (n->flags & tags[i].flag) {
			fprintf(f, "%s%s", sep, tags[i].what);
			sep = ", ";
		}
	}
	if (l->split && n->type == SVG_NODE_FRAME) {
		fprintf(f, "%s%s", sep, svg_kind_name(n->kind));
		sep = ", ";
	}
	if (sep[0] == ',')
		fputs(")", f);
}

/* First line the name (the script reads it back), then the numbers. */
static void put_tooltip(FILE *f, const struct svg_layout *l, const struct svg_node *n)
{
	put_str(f, n->name);
	put_annotation(f, l, n);
	if (!l->diff) {
		fputs("\n", f);
		put_value(f, l, n->w, l->period_ns);
		fprintf(f, ", %.2f%%", pct(n->w, l->total));
		if (n->self) {
			fputs("\nself: ", f);
			put_value(f, l, n->self, l->period_ns);
			fprintf(f, ", %.2f%%", pct(n->self, l->total));
		}
		return;
	}
	fputs("\nafter: ", f);
	put_value(f, l, n->w, l->period_ns);
	fprintf(f, ", %.2f%% (self %.2f%%)", pct(n->w, l->total), pct(n->self, l->total));
	fputs("\nbefore: ", f);
	put_value(f, l, n->base_w, l->base_period_ns);
	fprintf(f, ", %.2f%% (self %.2f%%)", pct(n->base_w, l->base_total),
		pct(n->base_self, l->base_total));
	fprintf(f, "\ndelta: self %+.2f, inclusive %+.2f percentage points",
		100 * svg_self_delta(l, n), pct(n->w, l->total) - pct(n->base_w, l->base_total));
}

static unsigned int doc_height(const struct svg_layout *l)
{
	return TOP_PAD + (l->nr ? l->max_depth + 1 : 2) * FRAME_H + BOTTOM_PAD;
}

static void put_frame(FILE *f, const struct svg_layout *l, const struct svg_node *n)
{
	double scale = (double)(l->o->width - 2 * SVG_XPAD) / (double)l->total;
	double x = SVG_XPAD + (double)n->x * scale, w = (double)n->w * scale;
	unsigned int y = l->o->inverted ? TOP_PAD + n->depth * FRAME_H :
					  doc_height(l) - BOTTOM_PAD - (n->depth + 1) * FRAME_H;
	struct rgb c = l->diff ? diff_rgb(l, n) : frame_rgb(l, n);

	fprintf(f, "<g data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\"><title>", n->x, n->w);
	put_tooltip(f, l, n);
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" "
		   "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%u\">",
		x, y, w, FRAME_H - 1, c.r, c.g, c.b, x + 3, y + FRAME_H - 5);
	put_label(f, n->name, w);
	fputs("</text></g>\n", f);
}

/* ---- document ------------------------------------------------------------- */

static void put_title(FILE *f, const struct svg_layout *l)
{
	const char *what = l->o->inverted ? "Icicle Graph" : "Flame Graph";

	if (l->o->title) {
		put_str(f, l->o->title);
	} else if (l->diff) {
		fprintf(f, "Differential %s", what);
	} else if (l->split && (l->kinds & (1u << PROFILE_KIND_ONCPU))) {
		/* on-CPU with waits: hot and cold; waits alone (off-CPU with its
		 * [cpu wait]) are named after the first kind, the subtitle lists each */
		fprintf(f, "Hot/Cold %s", what);
	} else {
		static const char *const prefix[PROFILE_KIND_NR] = {
			[PROFILE_KIND_ONCPU] = "",
			[PROFILE_KIND_OFFCPU] = "Off-CPU ",
			[PROFILE_KIND_RUNQ] = "Run-Queue Latency ",
			[PROFILE_KIND_LOCK] = "Lock Contention ",
		};
		int k = l->kinds ? __builtin_ctz(l->kinds) : 0;

		fprintf(f, "%s%s", prefix[k], what);
	}
}

/* Default subtitle: what the graph adds up to, per kind. */
static void put_subtitle(FILE *f, const struct svg_layout *l)
{
	const char *sep = "";

	if (l->o->subtitle) {
		put_str(f, l->o->subtitle);
		return;
	}
	if (l->diff) {
		fputs("before: ", f);
		put_value(f, l, l->base_total, l->base_period_ns);
		fputs(", after: ", f);
		put_value(f, l, l->total, l->period_ns);
		fputs("; red: self share grew, blue: shrank", f);
		sep = "; ";
	}
	for (int k = 0; k < PROFILE_KIND_NR && !l->diff; k++) {
		if (!l->kind_total[k])
			continue;
		fprintf(f, "%s%s ", sep, svg_kind_name(k));
		put_value(f, l, l->kind_total[k], l->period_ns);
		sep = "; ";
	}
	if (l->o->reverse)
		fprintf(f, "%sstacks merged from the leaf", sep);
}

static void put_head(FILE *f, const struct svg_layout *l)
{
	unsigned int w = l->o->width, h = doc_height(l);
	const char *bg = l->diff || l->split ? "#f4f4f4" :
			 warm(l, PROFILE_KIND_ONCPU) && (l->kinds & SVG_KIND(PROFILE_KIND_ONCPU)) ?
			 "#eeeeb0" : "#dde4f8";

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n",
		w, h, w, h);
	fprintf(f, "<style>%s</style>\n", svg_style);
	fprintf(f, "<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		   "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		   "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"url(#bg)\"/>\n",
		bg);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"24\">", w / 2);
	put_title(f, l);
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"44\">", w / 2);
	put_subtitle(f, l);
	fprintf(f, "</text>\n"
		   "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		   "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
		   "<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n"
		   "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		SVG_XPAD, w - SVG_XPAD, w - SVG_XPAD, h - 12, SVG_XPAD, h - 12);
	if (!l->nr)
		fprintf(f, "<text id=\"empty\" x=\"%u\" y=\"%d\">no samples to draw</text>\n",
			w / 2, TOP_PAD + FRAME_H);
}

int svg_draw(const struct svg_layout *l, FILE *out)
{
	put_head(out, l);
	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < l->nr; i++)
		put_frame(out, l, &l->nodes[i]);
	fputs("</g>\n", out);
	fprintf(out, "<script><![CDATA[\nvar C = { w: %u, pad: %d, fs: %d, inv: %d, hl: '%s' };\n",
		l->o->width, SVG_XPAD, FONT_PX, l->o->inverted, HIGHLIGHT);
	fputs(svg_script, out);
	fputs("]]></script>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
