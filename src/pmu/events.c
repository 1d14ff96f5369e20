// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Named events: the generic table, sysfs event/format decoding, CPU identity, top-down plans. */
#include "pmu/events.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "util/compiler.h"

#define LLC_READ_MISS (PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 | \
		       PERF_COUNT_HW_CACHE_RESULT_MISS << 16)

#define SW(n, c, clk) { .name = n, .type = PERF_TYPE_SOFTWARE, .config = c, .clock = clk }
#define HW(n, t, c) { .name = n, .type = t, .config = c, .hardware = true }

static const struct pmu_generic_info generic[PMU_G_NR] = {
	[PMU_G_TASK_CLOCK] = SW("task-clock", PERF_COUNT_SW_TASK_CLOCK, true),
	[PMU_G_CPU_CLOCK] = SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, true),
	[PMU_G_CONTEXT_SWITCHES] = SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, false),
	[PMU_G_CPU_MIGRATIONS] = SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, false),
	[PMU_G_PAGE_FAULTS] = SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS, false),
	[PMU_G_CYCLES] = HW("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
	[PMU_G_INSTRUCTIONS] = HW("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS),
	[PMU_G_BRANCHES] = HW("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	[PMU_G_BRANCH_MISSES] = HW("branch-misses", PERF_TYPE_HARDWARE,
				   PERF_COUNT_HW_BRANCH_MISSES),
	[PMU_G_CACHE_REFERENCES] = HW("cache-references", PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_CACHE_REFERENCES),
	[PMU_G_CACHE_MISSES] = HW("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES),
	[PMU_G_LLC_LOAD_MISSES] = HW("LLC-load-misses", PERF_TYPE_HW_CACHE, LLC_READ_MISS),
};

const struct pmu_generic_info *pmu_generic(enum pmu_generic id)
{
	return (unsigned int)id < PMU_G_NR ? &generic[id] : NULL;
}

int pmu_generic_find(const char *name, enum pmu_generic *out)
{
	for (int i = 0; i < PMU_G_NR; i++) {
		if (!strcmp(generic[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	return -ENOENT;
}

void pmu_generic_desc(enum pmu_generic id, struct pmu_event_desc *out)
{
	const struct pmu_generic_info *g = pmu_generic(id);

	memset(out, 0, sizeof(*out));
	out->scale = 1.0;
	if (!g)
		return;
	snprintf(out->name, sizeof(out->name), "%s", g->name);
	out->type = g->type;
	out->config[0] = g->config;
}

static int parse_reg(const char *s, size_t n, uint8_t *reg)
{
	if (n == 6 && !strncmp(s, "config", 6))
		*reg = 0;
	else if (n == 7 && !strncmp(s, "config1", 7))
		*reg = 1;
	else if (n == 7 && !strncmp(s, "config2", 7))
		*reg = 2;
	else
		return -EINVAL;
	return 0;
}

int pmu_format_parse(const char *name, const char *spec, struct pmu_format *out)
{
	const char *colon = strchr(spec, ':'), *p;
	struct pmu_format f;
	unsigned long lo, hi;
	char *end;

	memset(&f, 0, sizeof(f));
	if (!colon || strlen(name) >= sizeof(f.name) ||
	    parse_reg(spec, colon - spec, &f.range[0].reg))
		return -EINVAL;
	snprintf(f.name, sizeof(f.name), "%s", name);
	for (p = colon + 1;;) {
		if (f.nr == PMU_FORMAT_MAX_RANGES || !isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		f.range[f.nr].reg = f.range[0].reg;
		f.range[f.nr].lo = lo;
		f.range[f.nr].hi = hi;
		f.nr++;
		while (*end == '\n' || *end == ' ')
			end++;
		if (!*end)
			break;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
	*out = f;
	return 0;
}

/* Spread @val over @f's bit ranges, low bits first. */
static int encode_one(const struct pmu_format *f, uint64_t val, uint64_t config[3])
{
	for (unsigned int i = 0; i < f->nr; i++) {
		unsigned int w = f->range[i].hi - f->range[i].lo + 1;
		uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;

		config[f->range[i].reg] |= (val & mask) << f->range[i].lo;
		val = w == 64 ? 0 : val >> w;
	}
	return val ? -ERANGE : 0;
}

int pmu_terms_encode(const char *terms, const struct pmu_format *fmt, size_t nr, uint64_t config[3])
{
	char buf[256], *tok, *save = NULL, *eq, *end;
	uint64_t tmp[3] = { 0, 0, 0 }, val;
	uint8_t reg;
	size_t i;
	int err;

	if (strlen(terms) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", terms);
	buf[strcspn(buf, "\n")] = '\0';
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		val = 1;
		if (eq) {
			*eq = '\0';
			errno = 0;
			val = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end)
				return -EINVAL;
		}
		for (i = 0; i < nr && strcmp(fmt[i].name, tok); i++)
			;
		if (i < nr) {
			err = encode_one(&fmt[i], val, tmp);
			if (err)
				return err;
		} else if (!parse_reg(tok, strlen(tok), &reg)) {
			tmp[reg] |= val;	/* "config=0x1234" needs no format */
		} else {
			return -ENOENT;
		}
	}
	for (i = 0; i < 3; i++)
		config[i] |= tmp[i];
	return 0;
}

/* First line of a small sysfs file, without the newline. 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

int pmu_core_find(const char *root, char *name, size_t len)
{
	static const char *const fixed[] = { "cpu", "cpu_core" };
	char path[512], best[256] = "";
	struct dirent *de;
	DIR *d;

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		snprintf(path, sizeof(path), "%s/%s/type", root, fixed[i]);
		if (!access(path, R_OK)) {
			snprintf(name, len, "%s", fixed[i]);
			return 0;
		}
	}
	d = opendir(root);
	if (!d)
		return -ENOENT;
	/* Arm: one PMU per core type, "armv8_pmuv3_0", "armv8_cortex_a72", ...; take the first */
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "armv8_", 6) && strncmp(de->d_name, "armv9_", 6))
			continue;
		if (!*best || strcmp(de->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!*best)
		return -ENOENT;
	snprintf(name, len, "%s", best);
	return 0;
}

bool pmu_sysfs_has(const char *root, const char *pmu, const char *event)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/events/%s", root, pmu, event);
	return !access(path, R_OK);
}

/* Every format/ field of @pmu into @fmt[0..max); *nr set. 0 or -errno. */
static int read_formats(const char *root, const char *pmu, struct pmu_format *fmt, size_t max,
			size_t *nr)
{
	char path[512], spec[128];
	struct dirent *de;
	DIR *d;
	int err = 0;

	*nr = 0;
	snprintf(path, sizeof(path), "%s/%s/format", root, pmu);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && *nr < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format/%s", root, pmu, de->d_name);
		err = read_line(path, spec, sizeof(spec));
		if (err)
			break;
		/* formats we cannot parse (config3, ...) are skipped: terms using them fail */
		if (!pmu_format_parse(de->d_name, spec, &fmt[*nr]))
			(*nr)++;
	}
	closedir(d);
	return err;
}

int pmu_sysfs_raw(const char *root, const char *pmu, const char *name, const char *terms,
		  struct pmu_event_desc *out)
{
	struct pmu_format fmt[32];
	char path[512], line[64];
	struct pmu_event_desc d;
	size_t nr;
	char *end;
	int err;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "%s", name);
	d.scale = 1.0;
	snprintf(path, sizeof(path), "%s/%s/type", root, pmu);
	err = read_line(path, line, sizeof(line));
	if (err)
		return err;
	d.type = strtoul(line, &end, 10);
	if (end == line || *end)
		return -EINVAL;
	err = read_formats(root, pmu, fmt, ARRAY_SIZE(fmt), &nr);
	if (err)
		return err;
	err = pmu_terms_encode(terms, fmt, nr, d.config);
	if (err)
		return err;
	*out = d;
	return 0;
}

int pmu_sysfs_event(const char *root, const char *pmu, const char *event,
		    struct pmu_event_desc *out)
{
	char path[512], terms[256], scale[64];
	char *end;
	double s;
	int err;

	snprintf(path, sizeof(path), "%s/%s/events/%s", root, pmu, event);
	err = read_line(path, terms, sizeof(terms));
	if (err)
		return err;
	err = pmu_sysfs_raw(root, pmu, event, terms, out);
	if (err)
		return err;
	/* e.g. topdown-total-slots counts cycles; .scale 4 makes them slots */
	snprintf(path, sizeof(path), "%s/%s/events/%s.scale", root, pmu, event);
	if (!read_line(path, scale, sizeof(scale))) {
		s = strtod(scale, &end);
		if (end != scale && !*end && s > 0)
			out->scale = s;
	}
	return 0;
}

/* "key<spaces or tabs>: value": "model" must not match "model name". */
static bool key_is(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n))
		return false;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == ':';
}

/* The value of a "key : value" line ending at @nl (or the string end), trimmed. */
static void field_str(const char *line, const char *nl, char *buf, size_t len)
{
	const char *colon = strchr(line, ':'), *end = nl ? nl : line + strlen(line);
	size_t n;

	buf[0] = '\0';
	if (!colon || colon > end)
		return;
	for (colon++; colon < end && (*colon == ' ' || *colon == '\t'); colon++)
		;
	n = end - colon < (ptrdiff_t)len - 1 ? (size_t)(end - colon) : len - 1;
	memcpy(buf, colon, n);
	buf[n] = '\0';
}

static unsigned long field_num(const char *line, int base)
{
	const char *colon = strchr(line, ':');

	return colon ? strtoul(colon + 1, NULL, base) : 0;
}

int pmu_cpu_identify(const char *cpuinfo, struct pmu_cpu_id *out)
{
	const char *line = cpuinfo;
	struct pmu_cpu_id id = { 0 };
	bool any = false;
	char val[64];

	while (line && *line) {
		const char *nl = strchr(line, '\n');

		if (*line == '\n' && any)
			break;	/* end of the first processor */
		if (key_is(line, "vendor_id")) {
			any = true;
			field_str(line, nl, val, sizeof(val));
			if (!strcmp(val, "GenuineIntel"))
				id.vendor = PMU_VENDOR_INTEL;
			else if (!strcmp(val, "AuthenticAMD"))
				id.vendor = PMU_VENDOR_AMD;
		} else if (key_is(line, "cpu family")) {
			id.family = field_num(line, 10);
		} else if (key_is(line, "model")) {
			id.model = field_num(line, 10);
		} else if (key_is(line, "CPU implementer")) {
			any = true;
			if (field_num(line, 0) == 0x41)
				id.vendor = PMU_VENDOR_ARM;
		} else if (key_is(line, "CPU part")) {
			id.part = field_num(line, 0);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (id.vendor == PMU_VENDOR_UNKNOWN)
		return -ENOENT;
	*out = id;
	return 0;
}

/* Fill the plan's events from sysfs names. 0, or -errno (plan unusable). */
static int plan_sysfs(const char *root, const char *pmu, struct pmu_topdown_plan *plan,
		      const char *const *names, size_t nr)
{
	int err;

	for (size_t i = 0; i < nr; i++) {
		err = pmu_sysfs_event(root, pmu, names[i], &plan->ev[i]);
		if (err)
			return err;
	}
	plan->nr = nr;
	return 0;
}

static bool has_all(const char *root, const char *pmu, const char *const *names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (!pmu_sysfs_has(root, pmu, names[i]))
			return false;
	return true;
}

/*
 * AMD Zen 4/5 pipeline-utilization events (PMCx076, x0C1, x0AA, x1A0), the
 * ones perf's amdzen4/amdzen5 pipeline.json metrics use; the kernel does not
 * name them in sysfs. Zen 3 and older lack PMCx1A0.
 */
static const char *const amd_names[] = {
	"ls_not_halted_cyc", "ex_ret_ops", "de_src_op_disp.all",
	"de_no_dispatch_per_slot.no_ops_from_frontend", "de_no_dispatch_per_slot.backend_stalls",
	"de_no_dispatch_per_slot.smt_contention",
};
static const char *const amd_terms[] = {
	"event=0x76", "event=0xc1", "event=0xaa,umask=0x7",
	"event=0x1a0,umask=0x1", "event=0x1a0,umask=0x1e", "event=0x1a0,umask=0x60",
};

/* Dispatch slots per cycle of an AMD CPU with PMCx1A0, 0 for none. */
static double amd_slots(const struct pmu_cpu_id *cpu)
{
	if (cpu->family == 0x19) {
		/* Zen 3 is family 19h models 00-0F and 20-5F (perf's mapfile.csv) */
		if (cpu->model <= 0x0f || (cpu->model >= 0x20 && cpu->model <= 0x5f))
			return 0;
		return 6;	/* Zen 4 */
	}
	return cpu->family == 0x1a ? 8 : 0;	/* Zen 5 */
}

static int plan_amd(const char *root, const char *pmu, const struct pmu_cpu_id *cpu,
		    struct pmu_topdown_plan *plan)
{
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(amd_names); i++) {
		err = pmu_sysfs_raw(root, pmu, amd_names[i], amd_terms[i], &plan->ev[i]);
		if (err)
			return err;
	}
	plan->nr = 5;
	plan->nr_extra = 1;	/* smt_contention: optional, its own group */
	plan->slots_per_cycle = amd_slots(cpu);
	plan->label = cpu->family == 0x1a ? "AMD Zen 5" : "AMD Zen 4";
	plan->method = PMU_TD_AMD_ZEN;
	return 0;
}

static const char *const intel_metrics[] = { "slots", "topdown-retiring", "topdown-bad-spec",
					     "topdown-fe-bound", "topdown-be-bound" };
static const char *const intel_4wide[] = { "topdown-total-slots", "topdown-slots-issued",
					   "topdown-slots-retired", "topdown-fetch-bubbles",
					   "topdown-recovery-bubbles" };
static const char *const arm_slots[] = { "cpu_cycles", "op_retired", "op_spec", "stall_slot",
					 "stall_slot_frontend", "stall_slot_backend" };
static const char *const arm_cycles[] = { "cpu_cycles", "op_retired", "op_spec",
					  "stall_frontend", "stall_backend" };

static int plan_arm_slots(const char *root, const char *pmu, struct pmu_topdown_plan *plan)
{
	char path[512], line[32];
	int err;

	snprintf(path, sizeof(path), "%s/%s/caps/slots", root, pmu);
	err = read_line(path, line, sizeof(line));
	if (err || !(plan->slots_per_cycle = strtoul(line, NULL, 0)))
		return err ? err : -EINVAL;
	err = plan_sysfs(root, pmu, plan, arm_slots, ARRAY_SIZE(arm_slots));
	if (!err) {
		plan->method = PMU_TD_ARM_SLOTS;
		plan->label = "Arm STALL_SLOT";
	}
	return err;
}

static const char *const intel_l2[] = { "topdown-heavy-ops", "topdown-br-mispredict",
				       "topdown-fetch-lat", "topdown-mem-bound" };
static const char *const arm_l2[] = { "stall_frontend", "stall_frontend_mem", "stall_backend",
				      "stall_backend_mem" };
/*
 * AMD Zen 4/5 level-2 events (perf's amdzen4/amdzen5 pipeline.json); the
 * frontend latency count's cmask is the dispatch width (set below).
 * Not verified on hardware here (no PMU on the machine this was written on).
 */
static const char *const amd_l2_names[] = {
	"ex_ret_ucode_ops", "ex_ret_brn_misp", "resyncs_or_nc_redirects",
	"de_no_dispatch_per_slot.no_ops_from_frontend.cmask", "ex_no_retire.not_complete",
	"ex_no_retire.load_not_complete",
};
static const char *const amd_l2_terms[] = {
	"event=0x1c1", "event=0xc3", "event=0x96", NULL /* cmask */, "event=0xd6,umask=0x1",
	"event=0xd6,umask=0x2",
};

/* The level-2 events after the level-1 plan's, when this machine names them all. */
static void plan_l2(const char *root, const char *pmu, struct pmu_topdown_plan *plan)
{
	size_t at = plan->nr + plan->nr_extra, n = 0;
	const char *const *names = NULL;
	char cm[64];
	int err = 0;

	if (plan->method == PMU_TD_INTEL_METRICS && has_all(root, pmu, intel_l2, 4)) {
		names = intel_l2;
		n = 4;
		plan->l2 = PMU_TD2_INTEL_METRICS;
	} else if ((plan->method == PMU_TD_ARM_SLOTS || plan->method == PMU_TD_ARM_CYCLES) &&
		   has_all(root, pmu, arm_l2, 4)) {
		names = arm_l2;
		n = 4;
		plan->l2 = PMU_TD2_ARM;
	} else if (plan->method == PMU_TD_AMD_ZEN) {
		snprintf(cm, sizeof(cm), "event=0x1a0,umask=0x1,cmask=0x%x",
			 (unsigned int)plan->slots_per_cycle);
		for (size_t i = 0; !err && i < ARRAY_SIZE(amd_l2_names); i++)
			err = pmu_sysfs_raw(root, pmu, amd_l2_names[i],
					    amd_l2_terms[i] ? amd_l2_terms[i] : cm, &plan->ev[at + i]);
		if (!err) {
			plan->l2 = PMU_TD2_AMD_ZEN;
			plan->nr_l2 = ARRAY_SIZE(amd_l2_names);
			return;
		}
	}
	for (size_t i = 0; !err && i < n; i++)
		err = pmu_sysfs_event(root, pmu, names[i], &plan->ev[at + i]);
	if (names && !err) {
		plan->nr_l2 = n;
		return;
	}
	plan->l2 = PMU_TD2_NONE;
	snprintf(plan->l2_why, sizeof(plan->l2_why),
		 plan->method == PMU_TD_INTEL_4WIDE ? "not available (4-wide Intel: model-specific "
		 "events, not built in)" : err ? "not available (its events cannot be encoded)" :
		 "not available (this CPU does not name the level-2 events)");
}

int pmu_topdown_plan(const char *root, const struct pmu_cpu_id *cpu,
		     struct pmu_topdown_plan *plan)
{
	char pmu[64];
	int err = 0;

	memset(plan, 0, sizeof(*plan));
	if (pmu_core_find(root, pmu, sizeof(pmu))) {
		snprintf(plan->why, sizeof(plan->why), "no PMU");
		return 0;
	}
	if (has_all(root, pmu, intel_metrics, ARRAY_SIZE(intel_metrics))) {
		err = plan_sysfs(root, pmu, plan, intel_metrics, ARRAY_SIZE(intel_metrics));
		plan->method = PMU_TD_INTEL_METRICS;
		plan->label = "Intel PERF_METRICS";
	} else if (has_all(root, pmu, intel_4wide, ARRAY_SIZE(intel_4wide))) {
		err = plan_sysfs(root, pmu, plan, intel_4wide, ARRAY_SIZE(intel_4wide));
		plan->method = PMU_TD_INTEL_4WIDE;
		plan->label = "Intel 4-wide";
	} else if (cpu && cpu->vendor == PMU_VENDOR_AMD && amd_slots(cpu) > 0) {
		err = plan_amd(root, pmu, cpu, plan);
	} else if (has_all(root, pmu, arm_slots, ARRAY_SIZE(arm_slots))) {
		err = plan_arm_slots(root, pmu, plan);
	} else if (has_all(root, pmu, arm_cycles, ARRAY_SIZE(arm_cycles))) {
		err = plan_sysfs(root, pmu, plan, arm_cycles, ARRAY_SIZE(arm_cycles));
		plan->method = PMU_TD_ARM_CYCLES;
		plan->label = "Arm STALL cycles";
	} else {
		snprintf(plan->why, sizeof(plan->why), "no top-down events for this CPU (PMU '%s')",
			 pmu);
		return 0;
	}
	if (err) {
		snprintf(plan->why, sizeof(plan->why), "cannot decode the %s events of '%s': %s",
			 plan->label, pmu, strerror(-err));
		plan->method = PMU_TD_NONE;
		plan->nr = plan->nr_extra = 0;
		return err;
	}
	plan_l2(root, pmu, plan);
	return 0;
}

/* ---- sampling events (record -e) ------------------------------------------ */

struct sample_name {
	const char *name, *alias, *unit;
	uint32_t type;
	uint64_t config;
	bool clock;
};

#define SS(n, a, u, c, clk) { n, a, u, PERF_TYPE_SOFTWARE, c, clk }
#define SH(n, a, u, c) { n, a, u, PERF_TYPE_HARDWARE, c, false }

static const struct sample_name sample_names[] = {
	SS("cpu-clock", NULL, "cpu-clock tick", PERF_COUNT_SW_CPU_CLOCK, true),
	SS("task-clock", NULL, "task-clock tick", PERF_COUNT_SW_TASK_CLOCK, true),
	SS("page-faults", "faults", "page-fault", PERF_COUNT_SW_PAGE_FAULTS, false),
	SS("minor-faults", NULL, "minor-fault", PERF_COUNT_SW_PAGE_FAULTS_MIN, false),
	SS("major-faults", NULL, "major-fault", PERF_COUNT_SW_PAGE_FAULTS_MAJ, false),
	SS("context-switches", "cs", "context-switch", PERF_COUNT_SW_CONTEXT_SWITCHES, false),
	SS("cpu-migrations", "migrations", "cpu-migration", PERF_COUNT_SW_CPU_MIGRATIONS, false),
	SS("alignment-faults", NULL, "alignment-fault", PERF_COUNT_SW_ALIGNMENT_FAULTS, false),
	SS("emulation-faults", NULL, "emulation-fault", PERF_COUNT_SW_EMULATION_FAULTS, false),
	SH("cycles", "cpu-cycles", "cycle", PERF_COUNT_HW_CPU_CYCLES),
	SH("instructions", NULL, "instruction", PERF_COUNT_HW_INSTRUCTIONS),
	SH("branches", "branch-instructions", "branch", PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	SH("branch-misses", NULL, "branch-miss", PERF_COUNT_HW_BRANCH_MISSES),
	SH("cache-references", NULL, "cache-reference", PERF_COUNT_HW_CACHE_REFERENCES),
	SH("cache-misses", NULL, "cache-miss", PERF_COUNT_HW_CACHE_MISSES),
	SH("bus-cycles", NULL, "bus-cycle", PERF_COUNT_HW_BUS_CYCLES),
	SH("ref-cycles", NULL, "reference cycle", PERF_COUNT_HW_REF_CPU_CYCLES),
	SH("stalled-cycles-frontend", NULL, "stalled cycle",
	   PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
	SH("stalled-cycles-backend", NULL, "stalled cycle", PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
};

const char *const pmu_sample_event_names[] = {
	"cpu-clock", "task-clock", "page-faults", "minor-faults", "major-faults",
	"context-switches", "cpu-migrations", "alignment-faults", "emulation-faults",
	"cycles", "instructions", "branches", "branch-misses", "cache-references",
	"cache-misses", "bus-cycles", "ref-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", NULL,
};

/* "rNNNN": 1 to 16 hex digits after the r, nothing else. */
static int parse_raw(const char *s, uint64_t *config)
{
	size_t n = strlen(s);
	uint64_t v = 0;

	if (n < 2 || n > 17 || s[0] != 'r')
		return -EINVAL;
	for (size_t i = 1; i < n; i++) {
		int c = tolower((unsigned char)s[i]);

		if (!isxdigit(c))
			return -EINVAL;
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*config = v;
	return 0;
}

int pmu_sample_event_parse(const char *name, struct pmu_sample_event *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ARRAY_SIZE(sample_names); i++) {
		const struct sample_name *e = &sample_names[i];

		if (strcmp(name, e->name) && (!e->alias || strcmp(name, e->alias)))
			continue;
		snprintf(out->name, sizeof(out->name), "%s", e->name);
		out->unit = e->unit;
		out->type = e->type;
		out->config = e->config;
		out->clock = e->clock;
		out->hardware = e->type != PERF_TYPE_SOFTWARE;
		return 0;
	}
	if (parse_raw(name, &out->config))
		return -EINVAL;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->unit = "event";
	out->type = PERF_TYPE_RAW;
	out->hardware = true;
	return 0;
}

/* ---- counting events by name (stat --mode) --------------------------------- */

#define HWC(c, op, res) ((uint64_t)(c) | (uint64_t)(op) << 8 | (uint64_t)(res) << 16)

static const struct {
	const char *name;
	uint64_t config;
} cache_names[] = {
	{ "L1-dcache-loads", HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
				 PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "L1-dcache-load-misses", HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
				       PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "LLC-loads", HWC(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
			   PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "dTLB-loads", HWC(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
			    PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "dTLB-load-misses", HWC(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
				  PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "iTLB-loads", HWC(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
			    PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "iTLB-load-misses", HWC(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
				  PERF_COUNT_HW_CACHE_RESULT_MISS) },
};

int pmu_event_resolve(const char *root, const char *name, struct pmu_event_desc *out)
{
	struct pmu_sample_event se;
	enum pmu_generic g;
	char core[64];

	memset(out, 0, sizeof(*out));
	out->scale = 1.0;
	if (!pmu_generic_find(name, &g)) {
		pmu_generic_desc(g, out);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cache_names); i++)
		if (!strcmp(name, cache_names[i].name)) {
			snprintf(out->name, sizeof(out->name), "%s", name);
			out->type = PERF_TYPE_HW_CACHE;
			out->config[0] = cache_names[i].config;
			return 0;
		}
	if (!pmu_sample_event_parse(name, &se)) {
		snprintf(out->name, sizeof(out->name), "%s", se.name);
		out->type = se.type;
		out->config[0] = se.config;
		return 0;
	}
	/* a sysfs event name: letters, digits, '_', '.', '-' only (it becomes a path) */
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_.-") != strlen(name) || name[0] == '.')
		return -EINVAL;
	if (pmu_core_find(root, core, sizeof(core)))
		return -ENOENT;
	return pmu_sysfs_event(root, core, name, out) ? -ENOENT : 0;
}
