/* SPDX-License-Identifier: MIT */
/*
 * dt_pprof.c: stack aggregations as a pprof profile (-x oformat=pprof
 * -o FILE): the gzipped profile.proto that Google's pprof reads.
 *
 * A profile is tables that refer to one another by number: strings
 * (string_table, entry 0 ""), mappings (a module: its file, its range in
 * the process, its build-id), functions (a name and a source file),
 * locations (an address in a mapping, with the line of its function
 * there) and samples (the locations of one stack, innermost first, a
 * value per sample type, labels).  The builder here interns each thing by
 * a key of what it is (one table for all: a kind letter, then the
 * content), so that a frame seen in a thousand stacks is one location.
 *
 * What becomes what: every aggregation of count() or sum() with a stack
 * key (ustack(), stack()) is a sample type, named after the aggregation
 * ("count" or "sum" for @); each row a sample whose value is that
 * aggregation's (normalize() applied), 0 for the other types.  The
 * row's other keys are labels "key1", "key2"... by their position (a
 * string a string label, an integer a numeric one), and a user stack's
 * process is the label "pid".  Frames carry what the consumer decoded
 * (dt_upc_t): module path and range, build-id, symbol, source line.
 *
 * The profile output (dt_profile.c) adds the aggregations as they come
 * at exit (dt_pprof_add()) and writes the profile when all came
 * (dt_pprof_write_built()); it prints the records, and writes the file
 * whole or not at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "dt_array.h"
#include "dt_hash.h"
#include "dt_output.h"
#include "dt_pprof.pb-c.h"

/* One interned thing: its key (kind letter, content) and its number. */
typedef struct pp_id {
	char *key;
	size_t len;
	uint64_t id;
} pp_id_t;

typedef struct pp_key {
	const char *s;
	size_t len;
} pp_key_t;

/* A row's sample before the sample types are all known. */
typedef struct pp_sample {
	DtracePprof__Sample msg;
	int type;		/* which sample type its value is of */
	int64_t value;
} pp_sample_t;

struct dt_pprof {
	dtrace_hdl_t *dtp;
	dt_htab_t ids;		/* pp_id_t by key */
	char **strings;
	size_t nstrings, strings_cap;
	DtracePprof__Mapping **maps;	/* by id - 1 */
	size_t nmaps, maps_cap;
	uint64_t exe_map;	/* the first executable's mapping, or 0 */
	DtracePprof__Function **funcs;
	size_t nfuncs, funcs_cap;
	DtracePprof__Location **locs;
	size_t nlocs, locs_cap;
	pp_sample_t **samples;
	size_t nsamples, samples_cap;
	DtracePprof__ValueType **types;
	size_t ntypes, types_cap;
};

/* --- interning --- */

static bool id_eq(const void *elem, const void *key)
{
	const pp_id_t *e = elem;
	const pp_key_t *k = key;

	return e->len == k->len && memcmp(e->key, k->s, k->len) == 0;
}

/* The number of key (len bytes), and whether it is new (*added): the
 * caller then makes the thing numbered n (next). */
static uint64_t intern(dt_pprof_t *pp, const char *s, size_t len,
		       uint64_t next, bool *added)
{
	pp_key_t k = { s, len };
	pp_id_t *e = dt_htab_insert(&pp->ids, dt_hash_bytes(DT_HASH_INIT, s,
							   len), &k, added);

	if (e == NULL)
		dt_nomem();
	if (*added) {
		e->key = dt_zalloc(len);
		memcpy(e->key, s, len);
		e->len = len;
		e->id = next;
	}
	return e->id;
}

/* A key of parts: kind, then each part and a NUL. */
static char *pp_key(size_t *len, char kind, const char *const *parts,
		    int nparts)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		dt_nomem();
	fputc(kind, f);
	for (int i = 0; i < nparts; i++) {
		fputs(parts[i] != NULL ? parts[i] : "", f);
		fputc('\0', f);
	}
	fclose(f);
	return buf;
}

/* The number of the thing of kind made of parts (interned as pp_key()),
 * next when it is new (*added). */
static uint64_t intern_parts(dt_pprof_t *pp, char kind,
			     const char *const *parts, int nparts,
			     uint64_t next, bool *added)
{
	size_t len;
	char *key = pp_key(&len, kind, parts, nparts);
	uint64_t id = intern(pp, key, len, next, added);

	free(key);
	return id;
}

/* A string's index in string_table. */
static int64_t pp_string(dt_pprof_t *pp, const char *s)
{
	const char *parts[] = { s };
	bool added;
	uint64_t id = intern_parts(pp, 's', parts, 1, pp->nstrings, &added);

	if (added) {
		dt_array_room(pp->strings, pp->nstrings, pp->strings_cap);
		pp->strings[pp->nstrings++] = dt_strdup(s);
	}
	return (int64_t)id;
}

/* --- mappings, functions, locations --- */

static uint64_t pp_mapping(dt_pprof_t *pp, const dt_upc_t *f)
{
	char range[64];
	const char *parts[] = { f->path, f->build_id, range };
	bool added;
	uint64_t id;

	snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64, f->map_start,
		 f->map_limit);
	id = intern_parts(pp, 'm', parts, 3, pp->nmaps + 1, &added);
	if (!added)
		return id;
	DtracePprof__Mapping *m = dt_zalloc(sizeof(*m));

	dtrace_pprof__mapping__init(m);
	m->id = id;
	m->memory_start = f->map_start;
	m->memory_limit = f->map_limit;
	m->file_offset = f->map_offset;
	m->filename = pp_string(pp, f->path);
	m->build_id = pp_string(pp, f->build_id ? f->build_id : "");
	m->has_functions = true;
	dt_array_room(pp->maps, pp->nmaps, pp->maps_cap);
	pp->maps[pp->nmaps++] = m;
	if (f->is_exe && pp->exe_map == 0)
		pp->exe_map = id;
	return id;
}

/* A frame's function: its symbol, else DTrace's text of the frame. */
static uint64_t pp_function(dt_pprof_t *pp, const dt_upc_t *f)
{
	char pcbuf[32];
	const char *name = f->symbol ? f->symbol : f->text;
	bool added;
	uint64_t id;

	if (name == NULL) {
		snprintf(pcbuf, sizeof(pcbuf), "0x%" PRIx64, f->pc);
		name = pcbuf;
	}
	const char *parts[] = { name, f->srcfile };

	id = intern_parts(pp, 'f', parts, 2, pp->nfuncs + 1, &added);
	if (!added)
		return id;
	DtracePprof__Function *fn = dt_zalloc(sizeof(*fn));

	dtrace_pprof__function__init(fn);
	fn->id = id;
	fn->name = pp_string(pp, name);
	fn->system_name = fn->name;
	fn->filename = pp_string(pp, f->srcfile ? f->srcfile : "");
	dt_array_room(pp->funcs, pp->nfuncs, pp->funcs_cap);
	pp->funcs[pp->nfuncs++] = fn;
	return id;
}

/* The line of a location: one, in its function. */
static DtracePprof__Line **pp_lines(dt_pprof_t *pp, const dt_upc_t *f,
				    uint64_t mapping)
{
	DtracePprof__Line **lines = dt_zalloc(sizeof(*lines));

	lines[0] = dt_zalloc(sizeof(*lines[0]));
	dtrace_pprof__line__init(lines[0]);
	lines[0]->function_id = pp_function(pp, f);
	lines[0]->line = f->line;
	if (f->line > 0 && mapping > 0) {
		pp->maps[mapping - 1]->has_filenames = true;
		pp->maps[mapping - 1]->has_line_numbers = true;
	}
	return lines;
}

/* A frame's location: its address in its mapping (none when no module
 * maps it, or for a kernel frame). */
static uint64_t pp_location(dt_pprof_t *pp, const dt_upc_t *f)
{
	uint64_t mapping = f->found && f->path != NULL ? pp_mapping(pp, f) : 0;
	char where[64];
	const char *parts[] = { where };
	bool added;
	uint64_t id;

	snprintf(where, sizeof(where), "%" PRIu64 "@%" PRIx64, mapping,
		 f->pc);
	id = intern_parts(pp, 'l', parts, 1, pp->nlocs + 1, &added);
	if (!added)
		return id;
	DtracePprof__Location *loc = dt_zalloc(sizeof(*loc));

	dtrace_pprof__location__init(loc);
	loc->id = id;
	loc->mapping_id = mapping;
	loc->address = f->pc;
	loc->n_line = 1;
	loc->line = pp_lines(pp, f, mapping);
	dt_array_room(pp->locs, pp->nlocs, pp->locs_cap);
	pp->locs[pp->nlocs++] = loc;
	return id;
}

/* --- samples --- */

static DtracePprof__Label *pp_label(dt_pprof_t *pp, const char *name)
{
	DtracePprof__Label *l = dt_zalloc(sizeof(*l));

	dtrace_pprof__label__init(l);
	l->key = pp_string(pp, name);
	return l;
}

/* The label of key v (the i-th), or NULL for a kind without one. */
static DtracePprof__Label *pp_key_label(dt_pprof_t *pp, int i,
					const dt_value_t *v)
{
	DtracePprof__Label *l;
	char name[32];

	if (v->outside || dt_rec_is_stack(v->rec))
		return NULL;
	snprintf(name, sizeof(name), "key%d", i);
	switch (v->rec->kind) {
	case DT_RK_INT:
		l = pp_label(pp, name);
		l->num = dt_rec_int(v->rec, v->p);
		return l;
	case DT_RK_STRING: {
		char *s = strndup((const char *)v->p, v->rec->size);

		l = pp_label(pp, name);
		l->str = pp_string(pp, s ? s : "");
		free(s);
		return l;
	}
	case DT_RK_UADDR:
		l = pp_label(pp, name);
		l->str = pp_string(pp, v->usym ? v->usym : "");
		return l;
	default:
		return NULL;
	}
}

/* The labels of a row: its keys but the stack, and the stack's pid. */
static void pp_labels(dt_pprof_t *pp, DtracePprof__Sample *s,
		      const dt_value_t *keys, int nkeys, int stack)
{
	s->label = dt_zalloc(sizeof(*s->label) * (size_t)(nkeys + 1));
	for (int i = 0; i < nkeys; i++) {
		DtracePprof__Label *l = pp_key_label(pp, i, &keys[i]);

		if (l != NULL)
			s->label[s->n_label++] = l;
	}
	if (keys[stack].rec->kind != DT_RK_KSTACK && keys[stack].pid > 0) {
		DtracePprof__Label *l = pp_label(pp, "pid");

		l->num = keys[stack].pid;
		s->label[s->n_label++] = l;
	}
}

static void pp_sample(dt_pprof_t *pp, const dt_value_t *keys, int nkeys,
		      int stack, int type, int64_t value)
{
	const dt_value_t *st = &keys[stack];
	pp_sample_t *s = dt_zalloc(sizeof(*s));

	dtrace_pprof__sample__init(&s->msg);
	s->type = type;
	s->value = value;
	s->msg.location_id = dt_zalloc(sizeof(uint64_t) *
				       (size_t)(st->nframes + 1));
	for (int i = 0; i < st->nframes; i++)
		s->msg.location_id[s->msg.n_location_id++] =
			pp_location(pp, &st->frames[i]);
	pp_labels(pp, &s->msg, keys, nkeys, stack);
	dt_array_room(pp->samples, pp->nsamples, pp->samples_cap);
	pp->samples[pp->nsamples++] = s;
}

/* A sample type for an aggregation: its name and its function's unit. */
static int pp_type(dt_pprof_t *pp, const dt_aggdesc_t *desc)
{
	const char *fn = desc->func == DT_AGG_COUNT ? "count" : "sum";
	DtracePprof__ValueType *t = dt_zalloc(sizeof(*t));

	dtrace_pprof__value_type__init(t);
	t->type = pp_string(pp, desc->name[0] != '\0' ? desc->name : fn);
	/* pprof prints numbers of a unit it does not know with the unit
	 * after them: "count" leaves them bare */
	t->unit = pp_string(pp, "count");
	dt_array_room(pp->types, pp->ntypes, pp->types_cap);
	pp->types[pp->ntypes++] = t;
	return (int)pp->ntypes - 1;
}

void dt_pprof_add(dt_pprof_t *pp, const dt_outagg_t *agg)
{
	for (int a = 0; a < agg->naggs; a++) {
		const dt_aggdesc_t *desc = agg->descs[a];
		uint64_t normal = agg->normals ? agg->normals[a] : 1;
		int stack = dt_profile_stack_key(desc), type;

		if (stack < 0)
			continue;	/* the joined keys are the same */
		type = pp_type(pp, desc);
		for (size_t r = 0; r < agg->nrows; r++) {
			const dt_outrow_t *row = &agg->rows[r];
			const int64_t *val = row->cells[a].val;

			if (val == NULL)
				continue;
			pp_sample(pp, row->keys, agg->descs[0]->nkeys, stack,
				  type, normal > 1 ? val[0] / (int64_t)normal
						   : val[0]);
		}
	}
}

/* --- the builder --- */

dt_pprof_t *dt_pprof_create(dtrace_hdl_t *dtp)
{
	dt_pprof_t *pp = dt_zalloc(sizeof(*pp));

	pp->dtp = dtp;
	dt_htab_init(&pp->ids, sizeof(pp_id_t), id_eq);
	dt_htab_nofail(&pp->ids);
	pp_string(pp, "");	/* entry 0 */
	return pp;
}

static void free_lines(DtracePprof__Location *loc)
{
	for (size_t i = 0; i < loc->n_line; i++)
		free(loc->line[i]);
	free(loc->line);
}

static void free_sample(pp_sample_t *s)
{
	for (size_t i = 0; i < s->msg.n_label; i++)
		free(s->msg.label[i]);
	free(s->msg.label);
	free(s->msg.location_id);
	free(s->msg.value);
	free(s);
}

void dt_pprof_destroy(dt_pprof_t *pp)
{
	pp_id_t *e;

	if (pp == NULL)
		return;
	for (uint32_t i = 0; (e = dt_htab_next(&pp->ids, &i)) != NULL;)
		free(e->key);
	dt_htab_fini(&pp->ids);
	for (size_t i = 0; i < pp->nstrings; i++)
		free(pp->strings[i]);
	for (size_t i = 0; i < pp->nlocs; i++) {
		free_lines(pp->locs[i]);
		free(pp->locs[i]);
	}
	for (size_t i = 0; i < pp->nsamples; i++)
		free_sample(pp->samples[i]);
	for (size_t i = 0; i < pp->nmaps; i++)
		free(pp->maps[i]);
	for (size_t i = 0; i < pp->nfuncs; i++)
		free(pp->funcs[i]);
	for (size_t i = 0; i < pp->ntypes; i++)
		free(pp->types[i]);
	free(pp->strings);
	free(pp->locs);
	free(pp->samples);
	free(pp->maps);
	free(pp->funcs);
	free(pp->types);
	free(pp);
}

/* --- writing --- */

/* Each sample's values, one per sample type, now that all are known. */
static DtracePprof__Sample **pp_sample_msgs(dt_pprof_t *pp)
{
	DtracePprof__Sample **msgs = dt_zalloc(sizeof(*msgs) *
					       (pp->nsamples + 1));

	for (size_t i = 0; i < pp->nsamples; i++) {
		pp_sample_t *s = pp->samples[i];

		free(s->msg.value);
		s->msg.value = dt_zalloc(sizeof(int64_t) * pp->ntypes);
		s->msg.n_value = pp->ntypes;
		s->msg.value[s->type] = s->value;
		msgs[i] = &s->msg;
	}
	return msgs;
}

/* The mappings as written: pprof names the profile after the first, which
 * is an executable's when one is there. */
static DtracePprof__Mapping **pp_mapping_msgs(dt_pprof_t *pp)
{
	DtracePprof__Mapping **msgs = dt_zalloc(sizeof(*msgs) *
						(pp->nmaps + 1));

	memcpy(msgs, pp->maps, sizeof(*msgs) * pp->nmaps);
	if (pp->exe_map > 1) {
		msgs[0] = pp->maps[pp->exe_map - 1];
		msgs[pp->exe_map - 1] = pp->maps[0];
	}
	return msgs;
}

/* len bytes at p gzipped to out: 0, or -1 with errno set. */
static int gzip_to(FILE *out, const uint8_t *p, size_t len)
{
	z_stream z = { 0 };
	uint8_t buf[65536];
	int zr;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (uint8_t *)p;
	z.avail_in = (uInt)len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		size_t n = sizeof(buf) - z.avail_out;

		if (fwrite(buf, 1, n, out) != n) {
			deflateEnd(&z);
			return -1;
		}
	} while (zr == Z_OK);
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int dt_pprof_write_built(dt_pprof_t *pp, FILE *out)
{
	DtracePprof__Profile prof;
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	dtrace_pprof__profile__init(&prof);
	prof.sample = pp_sample_msgs(pp);
	prof.n_sample = pp->nsamples;
	prof.sample_type = pp->types;
	prof.n_sample_type = pp->ntypes;
	prof.mapping = pp_mapping_msgs(pp);
	prof.n_mapping = pp->nmaps;
	prof.location = pp->locs;
	prof.n_location = pp->nlocs;
	prof.function = pp->funcs;
	prof.n_function = pp->nfuncs;
	prof.string_table = pp->strings;
	prof.n_string_table = pp->nstrings;
	prof.time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	/* pprof shows the last type unless told: the first is the script's
	 * first aggregation */
	if (pp->ntypes > 0)
		prof.default_sample_type = pp->types[0]->type;

	size_t len = dtrace_pprof__profile__get_packed_size(&prof);
	uint8_t *buf = dt_zalloc(len + 1);

	dtrace_pprof__profile__pack(&prof, buf);
	rc = gzip_to(out, buf, len);
	free(buf);
	free(prof.sample);
	free(prof.mapping);
	return rc;
}
