/*
 * dt_consume_impl.h: private interfaces between the consumer's files
 * (dt_consume.c, dt_printf.c, dt_agg.c) and their unit tests.
 *
 * The record formatter, the printf engine and the aggregation printer are
 * reachable without BPF: a test fills dtp->clauses/probes and the
 * aggregation entries by hand and calls them directly.
 */
#ifndef DT_CONSUME_IMPL_H
#define DT_CONSUME_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dt_consume.h"

/* One aggregation entry after merging the CPUs: the key bytes as BPF
 * stores them and the aggregating function's state as int64 words. */
typedef struct dt_aggent {
	uint8_t *key;
	int64_t *val;
	int64_t **percpu;	/* per-CPU values, for aggpercpu; may be NULL */
} dt_aggent_t;

/* The consumer's view of one aggregation. */
typedef struct dt_aggstate {
	dt_aggdesc_t *desc;
	dt_aggent_t *ents;
	size_t nents, cap;
	uint64_t normal;	/* normalize() factor, 1 by default */
	bool printed;		/* printa()ed: not printed again at exit */
} dt_aggstate_t;

struct dt_consumer {
	struct ring_buffer *rb;
	bool done;		/* an exit() record was consumed */
	bool heading;		/* the CPU/ID/FUNCTION:NAME heading is out */
	int fatal;		/* -1 after a fatal formatting error */
	int ncpus;		/* possible CPUs, for per-CPU maps */
	uint64_t *drops_seen;	/* ncpus * 3 counters already reported */
	uint64_t dyn_seen;
	dt_aggstate_t *aggs;
	int naggs;
};

/* dt_consume.c */
struct dt_consumer *dt_consumer_get(dtrace_hdl_t *dtp);
/* Format one output record (header and data), as the ring buffer
 * callback does.  Returns 0 or -1 on a malformed record (reported). */
int dt_consume_record(dtrace_hdl_t *dtp, const void *buf, size_t size);
/* The data of a trace() record, DTrace's way. */
void dt_print_trace(dtrace_hdl_t *dtp, FILE *out, const dt_recdesc_t *rec,
		    const uint8_t *addr);
/* The offset/hex/ascii table of tracemem() and non-string data. */
void dt_print_bytes(FILE *out, const uint8_t *p, size_t n);
/* A trace() of a string or bytes: a string when it looks like one. */
void dt_print_strbytes(dtrace_hdl_t *dtp, FILE *out, const uint8_t *p,
		       size_t n, int width, bool quiet);
const char *dt_fault_str(uint32_t fault);

/* dt_printf.c */
/* What %@ conversions print: the merged value of one aggregation. */
typedef struct dt_pfagg {
	const dt_aggdesc_t *desc;
	const int64_t *val;
	uint64_t normal;
} dt_pfagg_t;
/* The printf engine: fmt with the values of nrecs records at data; the
 * %@ conversions take aggs[0], aggs[1], ... in turn (printa).  Returns
 * 0, or -1 with a message in msg when the records do not fit. */
int dt_printf_run(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		  const dt_recdesc_t *recs, int nrecs, const void *data,
		  const dt_pfagg_t *aggs, int naggs);
/* Format walltimestamp-style ns since the epoch as %Y does. */
void dt_printf_walltime(char *buf, size_t len, uint64_t ns);

/* dt_agg.c */
/* Set up the consumer's aggregation table from dt_cg_naggs()/dt_cg_agg()
 * (descs NULL) or from descs[0..n-1] (tests). */
int dt_agg_setup(dtrace_hdl_t *dtp, dt_aggdesc_t **descs, int n);
void dt_agg_fini(dtrace_hdl_t *dtp);
/* Number of int64 words of an aggregation's value. */
size_t dt_agg_nwords(const dt_aggdesc_t *desc);
/* Merge one CPU's value into the entry of key (created if new). */
void dt_agg_merge(dtrace_hdl_t *dtp, int id, const void *key,
		  const int64_t *val);
/* Read every aggregation map into the consumer's table. */
int dt_agg_snapshot(dtrace_hdl_t *dtp);
/* printa(@a) / printa(@a, @b): DTrace's default layout. */
int dt_agg_print(dtrace_hdl_t *dtp, FILE *out, const int *ids, int n);
/* printa(fmt, @a, ...) */
int dt_agg_printf(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		  const int *ids, int n);
int dt_agg_clear(dtrace_hdl_t *dtp, int id);
int dt_agg_trunc(dtrace_hdl_t *dtp, int id, int64_t n, bool all);
int dt_agg_normalize(dtrace_hdl_t *dtp, int id, uint64_t normal);
/* Every aggregation not printa()ed yet, in id order. */
int dt_agg_print_all(dtrace_hdl_t *dtp, FILE *out);
/* An aggregation value in DTrace's default layout (" %16lld" or the
 * histogram), and stddev as DTrace computes it. */
int dt_agg_print_value(FILE *out, const dt_aggdesc_t *desc,
		       const int64_t *val, uint64_t normal);
uint64_t dt_agg_stddev(const int64_t *val, uint64_t normal);
/* llquantize: the bucket of value v (what BPF must compute) and the
 * number of buckets for the parameters. */
int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t v);
int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps);

#endif /* DT_CONSUME_IMPL_H */
