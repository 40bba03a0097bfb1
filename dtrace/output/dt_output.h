/* SPDX-License-Identifier: MIT */
/*
 * dt_output.h: output, the layer below the consumer: what it is given
 * (records decoded into values) and the one interface through which text
 * (dt_text.c, dt_text_agg.c) and JSON (dt_json.c) print them; the trace
 * output stream (dt_output.c).
 *
 * The consumer reads a record once and decodes each action into a
 * dt_outact_t: its values (a dt_value_t per record: bytes, and for
 * stacks and user addresses the frames already symbolized), the
 * aggregations a printa() snapshot and sorted (dt_outagg_t), the names
 * and numbers its effects used.  It runs an action's effect (exit,
 * clear, setopt...) before handing the action to the output, so that an
 * output prints what the effect left.  An output never calls the
 * consumer: everything it prints comes in these structures, and what is
 * not in them is read from below (the session's options, the record and
 * aggregation descriptors, dt_recval.h).
 *
 * Lifetimes: what the consumer hands over lives until the call returns.
 */
#ifndef DT_OUTPUT_H
#define DT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dt_impl.h"
#include "dt_progdesc.h"
#include "dt_recval.h"

/* --- the stream (dt_output.c) --- */

/* A stream writing to path (created or truncated), or to standard output
 * when path is NULL (closing it leaves standard output open).  A failed
 * write's errno is kept in dtp->out_errno.  NULL with errno set when the
 * file cannot be opened. */
FILE *dt_output_open(dtrace_hdl_t *dtp, const char *path);

/* --- decoded values --- */

/* The most frames of a stack printed (and unwound). */
#define DT_STACK_MAX	1024

/* One address: a kernel PC, or a user PC symbolized against the modules
 * of its process as the consumer read them. */
typedef struct dt_upc {
	uint64_t pc;
	bool found;		/* user: a module of the process maps pc */
	char *module;		/* when found: the name DTrace prints */
	char *symbol;		/* when a symbol covers pc, else NULL */
	uint64_t offset;	/* pc - the symbol's address */
	char *text;		/* user: DTrace's text of it ("mod`fn+0x4",
				   per -x noresolve); kernel: NULL */
	/* -x oformat=pprof, when found: where the module is and what
	 * the debug information says of pc */
	char *path;		/* the module's file, as the maps show it */
	bool is_exe;		/* the module is the process's executable */
	uint64_t map_start;	/* its lowest and highest address */
	uint64_t map_limit;
	uint64_t map_offset;	/* file offset of map_start */
	char *build_id;		/* lowercase hex, NULL when none */
	char *srcfile;		/* the source line, NULL when unknown */
	int line;
} dt_upc_t;

/* One record's value: its descriptor and bytes, and what only the
 * consumer can know of them. */
typedef struct dt_value {
	const dt_recdesc_t *rec;	/* kind, size, sign, D type */
	const uint8_t *p;		/* the record's bytes (rec->size) */
	bool outside;		/* the descriptor lies outside its key: the
				   value is not to be read */
	/* DT_RK_USTACK, DT_RK_USAMPLE, DT_RK_KSTACK: the frames, innermost
	 * first (a user stack unwound when sampled) and the pid */
	pid_t pid;
	int nframes;
	dt_upc_t *frames;
	/* DT_RK_UADDR: the address, and its text as its ufunc(), usym(),
	 * umod() or uaddr() prints it */
	dt_upc_t addr;
	char *usym;
} dt_value_t;

/* --- decoded aggregations --- */

/* One aggregation's part of a row: its value (NULL: it has no entry of
 * the row's key) and, with -x aggpercpu, each CPU's (NULL where the CPU
 * recorded nothing). */
typedef struct dt_outcell {
	const int64_t *val;
	int64_t *const *percpu;
	int npercpu;
} dt_outcell_t;

/* One row of a printa() or of the printing at exit: the key of the first
 * aggregation, decoded, and a cell per aggregation. */
typedef struct dt_outrow {
	dt_value_t *keys;	/* descs[0]->nkeys */
	const uint8_t *key;	/* the key's bytes */
	dt_outcell_t *cells;	/* naggs */
} dt_outrow_t;

/* Aggregations joined on their keys, a snapshot, in printing order (the
 * aggsort* options applied). */
typedef struct dt_outagg {
	int naggs;
	const dt_aggdesc_t **descs;
	const uint64_t *normals;	/* normalize() factors */
	size_t nrows;
	dt_outrow_t *rows;
} dt_outagg_t;

/* --- decoded records --- */

/* What one action of a record did, decoded. */
typedef struct dt_outact {
	const dt_actdesc_t *desc;	/* kind, format, records */
	const uint8_t *data;	/* the record's data (print()'s strings) */
	dt_value_t *vals;	/* one per record of the action */
	int nvals;
	size_t memlen;		/* tracemem(), printm(): the bytes shown */
	/* freopen(): the file name its format made (NULL: it failed) */
	char *text;
	size_t textlen;
	/* printa(), clear(), trunc(), normalize(), denormalize(): the
	 * aggregations' names */
	const char **aggnames;
	/* printa(): the aggregations joined (NULL: the snapshot failed, or
	 * the output prints each alone and no format was given), and each
	 * alone (for outputs that print them so: each[i] NULL when not) */
	dt_outagg_t *agg;
	dt_outagg_t **each;
	int exitstatus;		/* exit(): the status, once it ran */
} dt_outact_t;

/* A record's probe line: who fired, and for -F the record after it. */
typedef struct dt_outrec {
	const dt_rechdr_t *hdr;
	const dtrace_probe_t *probe;	/* NULL: unknown PRID */
	const dt_rechdr_t *next;	/* NULL: not known yet */
} dt_outrec_t;

/* A run-time fault. */
typedef struct dt_outfault {
	const dt_rechdr_t *hdr;
	const dtrace_probe_t *probe;
	const dt_errrec_t *er;
	const char *msg;	/* the message printed on stderr */
} dt_outfault_t;

/* --- the interface --- */

typedef struct dt_out dt_out_t;

typedef struct dt_output_ops {
	const char *name;	/* "text", "json" */
	/* printa(): whether each aggregation is printed alone (dt_outact_t's
	 * each) besides the joined rows of a format */
	bool each_alone;
	/* A record begins (its probe line), actions follow, it ends: err
	 * says whether an action failed (the message is in dtp->errmsg,
	 * printed and cleared by the output when set). */
	void (*record_begin)(dt_out_t *o, const dt_outrec_t *r);
	int (*action)(dt_out_t *o, const dt_outact_t *a);
	void (*record_end)(dt_out_t *o, int err);
	/* A fault, before its message on stderr. */
	void (*fault)(dt_out_t *o, const dt_outfault_t *f);
	/* Drops of a kind ("buffer", "aggregation", "dynamic", "speculative",
	 * "speculation", "return"), of a CPU or none (-1), before their
	 * message on stderr. */
	void (*drop)(dt_out_t *o, const char *kind, int cpu, uint64_t count);
	/* Tracing ended: then each aggregation that was not printa()ed. */
	void (*tracing_end)(dt_out_t *o);
	int (*aggregation)(dt_out_t *o, const dt_outagg_t *agg);
	/* Optional: everything was printed; write what was kept (the
	 * profiles).  0, or -1 (after dt_set_error(), or with the output
	 * stream in error). */
	int (*finish)(dt_out_t *o);
	void (*destroy)(dt_out_t *o);
} dt_output_ops_t;

/* What every output is; each implementation puts its own state after. */
struct dt_out {
	const dt_output_ops_t *ops;
	dtrace_hdl_t *dtp;
};

/* -x oformat's name of format f, and the format of a name (-1: none). */
const char *dt_oformat_name(int f);
int dt_oformat_by_name(const char *name);

/* The output the session's options ask for (-x oformat); NULL on no
 * memory.  Freed with its ops->destroy(). */
dt_out_t *dt_output_create(dtrace_hdl_t *dtp);
dt_out_t *dt_text_create(dtrace_hdl_t *dtp);
dt_out_t *dt_json_create(dtrace_hdl_t *dtp);
/* dt_profile.c: -x oformat=folded, flamegraph (see there). */
dt_out_t *dt_profile_create(dtrace_hdl_t *dtp);
/* The stack key of d (the first) when d makes a profile: count() or sum()
 * keyed by a stack; else -1. */
int dt_profile_stack_key(const dt_aggdesc_t *d);
/* Whether the program's aggregations make the profile -x oformat asks
 * for: 0, or -1 after dt_set_error() (none is keyed by a stack). */
int dt_profile_fits(dtrace_hdl_t *dtp);
/* dt_flamegraph.c: folded stacks (len bytes) as an SVG flame graph in a
 * new buffer, *svg (*svglen bytes): 0, or -1 after dt_set_error(). */
int dt_flamegraph_write(dtrace_hdl_t *dtp, const char *folded, size_t len,
			char **svg, size_t *svglen);

/* --- shared by the outputs --- */

/* dt_printf.c: the printf engine: fmt with the values vals[0..n-1]; the
 * %@ conversions take aggs[0], aggs[1], ... in turn (printa).  Returns 0,
 * or -1 after dt_set_error() when the values do not fit. */
typedef struct dt_pfagg {
	const dt_aggdesc_t *desc;
	const int64_t *val;
	uint64_t normal;
} dt_pfagg_t;
int dt_printf_values(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		     const dt_value_t *vals, int nvals,
		     const dt_pfagg_t *aggs, int naggs);
/* printa(fmt, ...): the format once per row of agg. */
int dt_printf_rows(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		   const dt_outagg_t *agg);
/* Format walltimestamp-style ns since the epoch as %Y does. */
void dt_printf_walltime(char *buf, size_t len, uint64_t ns);

/* dt_openmetrics.c: one aggregation (agg has one) as an OpenMetrics
 * metric family (-x metrics).  0, or -1 when out could not be written. */
#define DT_METRICS_PREFIX	"dtrace_"
int dt_openmetrics_family(FILE *out, const dt_outagg_t *agg);

/* dt_text.c: DTrace's text of values, for printf and the aggregations. */
/* The data of a trace() record. */
void dt_text_trace(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v);
/* A stack: a newline, then a frame a line, indented -x stackindent. */
void dt_text_stack(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v);
/* ufunc() and the like: "  %-50s". */
void dt_text_usym(FILE *out, const dt_value_t *v);
/* The offset/hex/ascii table of tracemem() and non-string data. */
void dt_print_bytes(FILE *out, const uint8_t *p, size_t n);
/* A trace() of a string or bytes: a string when it looks like one. */
void dt_print_strbytes(dtrace_hdl_t *dtp, FILE *out, const uint8_t *p,
		       size_t n, int width, bool quiet);

/* dt_text_agg.c: an aggregation value in DTrace's default layout
 * (" %16lld" or the histogram); the rows of aggregations. */
int dt_agg_print_value(FILE *out, const dt_aggdesc_t *desc,
		       const int64_t *val, uint64_t normal);
void dt_text_agg_rows(dtrace_hdl_t *dtp, FILE *out, const dt_outagg_t *agg);

/* dt_print.c: a value of floating-point type t at p as DTrace's print()
 * writes it: float and double as %+.7e, long double as %+.16LE. */
void dt_print_float(FILE *out, const dt_type_t *t, const uint8_t *p);
/* print(): the value of act's first record laid out by its
 * type (rec->type), with the strings of a struct's char * members that the
 * next records hold; v is the first record's value, data the record's. */
void dt_print_typed(dtrace_hdl_t *dtp, FILE *out, const dt_actdesc_t *act,
		    const dt_value_t *v, const uint8_t *data);
/* The strings print() recorded for a struct's char * members, each given
 * to fn with the member's path ("a.b") and the string record (up to n
 * bytes, NUL-terminated when shorter). */
typedef void dt_print_string_fn(void *arg, const char *path,
				const uint8_t *s, size_t n);
void dt_print_strings(const dt_actdesc_t *act, const uint8_t *data,
		      dt_print_string_fn *fn, void *arg);

/* dt_json.c */
/* A JSON string of the n bytes at s: escaped, invalid UTF-8 bytes
 * replaced by U+FFFD.  Returns false when some byte was replaced. */
bool dt_json_string(FILE *out, const void *s, size_t n);
/* A string record: up to its first NUL. */
bool dt_json_cstring(FILE *out, const void *s, size_t size);
/* Bytes as a JSON string of lowercase hex digits. */
void dt_json_hex(FILE *out, const void *p, size_t n);
/* One value: number, string, hex string or array of frames. */
void dt_json_value(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v);
/* One aggregation snapshot (agg has one aggregation) as one line;
 * trigger says who printed it ("printa", "exit"). */
int dt_json_aggregation(dtrace_hdl_t *dtp, FILE *out, const dt_outagg_t *agg,
			const char *trigger);

/* dt_pprof.c: stack aggregations as a gzipped pprof profile.proto
 * (-x oformat=pprof).  An aggregation of count() or sum() with a stack
 * key is a sample type, its rows samples, its other keys labels. */
typedef struct dt_pprof dt_pprof_t;
/* A profile being built, to which aggregations are added as they come
 * (what it needs of them is copied). */
dt_pprof_t *dt_pprof_create(dtrace_hdl_t *dtp);
void dt_pprof_add(dt_pprof_t *pp, const dt_outagg_t *agg);
/* The profile gzipped to out: 0, or -1 with errno set. */
int dt_pprof_write_built(dt_pprof_t *pp, FILE *out);
void dt_pprof_destroy(dt_pprof_t *pp);

#endif /* DT_OUTPUT_H */
