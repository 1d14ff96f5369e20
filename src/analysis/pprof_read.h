/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A bounded reader of pprof profiles (google/pprof proto/profile.proto),
 * gzip-compressed or not: only the fields annotate and the agent's web view
 * need (sample types, samples with their labels, mappings, locations with
 * their last line's function, functions, the string table, the period). Every length is checked against the input
 * before it is used, so any byte string is safe to feed it (fuzzable).
 */
#ifndef HC_ANALYSIS_PPROF_READ_H
#define HC_ANALYSIS_PPROF_READ_H

#include <stddef.h>
#include <stdint.h>

/* Largest decompressed profile accepted: a bound on memory, not a format limit. */
#define PPROF_READ_MAX_BYTES	(512u << 20)

struct pprof_mapping {
	uint64_t id, start, limit, offset;
	const char *file;	/* "" when absent */
	const char *build_id;	/* "" when absent */
};

struct pprof_location {
	uint64_t id, mapping_id;	/* mapping_id 0: none */
	uint64_t address;		/* 0: none */
	uint64_t function_id;		/* of its last Line (the code's function); 0: none */
};

struct pprof_function {
	uint64_t id;
	const char *name;
};

/* A sample's label: a string (pprof's Label.str) or, when @str is NULL, a number. */
struct pprof_label {
	const char *key;
	const char *str;	/* NULL: numeric */
	int64_t num;
};

struct pprof_sample {
	uint64_t *loc;		/* location ids, leaf first (as pprof orders them) */
	size_t nr_loc;
	int64_t *val;		/* one per sample type */
	size_t nr_val;
	struct pprof_label *labels;	/* in the message's order */
	size_t nr_labels;
};

struct pprof_value_type {
	const char *type, *unit;
};

struct pprof_data {
	char **strings;
	size_t nr_strings;
	struct pprof_value_type *types;	/* sample types */
	size_t nr_types;
	struct pprof_value_type period_type;	/* NULLs when absent */
	int64_t period;
	struct pprof_sample *samples;
	size_t nr_samples;
	struct pprof_mapping *mappings;	/* sorted by id */
	size_t nr_mappings;
	struct pprof_location *locations;	/* sorted by id */
	size_t nr_locations;
	struct pprof_function *functions;	/* sorted by id */
	size_t nr_functions;
};

/*
 * Decode the uncompressed message @buf of @len bytes into @d (zeroed first).
 * -EBADMSG for malformed input (truncated field, bad wire type, string index
 * out of the table, packed run cut short), -ENOMEM. On error @d is released.
 */
int pprof_decode(const uint8_t *buf, size_t len, struct pprof_data *d);

/*
 * Read @path (gzip or raw protobuf) and decode it. -EFBIG past
 * PPROF_READ_MAX_BYTES decompressed, -EBADMSG for a corrupt gzip stream or
 * message, -errno from open/read.
 */
int pprof_read_file(const char *path, struct pprof_data *d);

void pprof_data_release(struct pprof_data *d);

/* By id; NULL when absent. */
const struct pprof_mapping *pprof_mapping(const struct pprof_data *d, uint64_t id);
const struct pprof_location *pprof_location(const struct pprof_data *d, uint64_t id);
const struct pprof_function *pprof_function(const struct pprof_data *d, uint64_t id);

/* The first label of @s keyed @key; NULL when it has none. */
const struct pprof_label *pprof_sample_label(const struct pprof_sample *s, const char *key);

#endif /* HC_ANALYSIS_PPROF_READ_H */
