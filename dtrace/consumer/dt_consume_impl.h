/* SPDX-License-Identifier: MIT */
/*
 * dt_consume_impl.h: private interfaces between the consumer's files
 * (dt_consume.c, dt_decode.c, dt_agg*.c, dt_consume_buf.c) and their unit
 * tests.
 *
 * The record formatter and the aggregation printer are reachable without
 * BPF: a test fills dtp->clauses/probes and the aggregation entries by
 * hand and calls them directly.
 */
#ifndef DT_CONSUME_IMPL_H
#define DT_CONSUME_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "dt_consume.h"
#include "dt_recval.h"
#include "dt_output.h"

/* One aggregation entry after merging the CPUs: the key bytes as BPF
 * stores them and the aggregating function's state as int64 words. */
typedef struct dt_aggent {
	uint8_t *key;
	int64_t *val;
	/* aggpercpu: percpu[cpu] is what CPU cpu holds for this key, NULL
	 * when it recorded nothing; npercpu entries.  NULL (and 0) when the
	 * option is off at the snapshot. */
	int64_t **percpu;
	int npercpu;
} dt_aggent_t;

/* The consumer's view of one aggregation. */
typedef struct dt_aggstate {
	dt_aggdesc_t *desc;
	dt_aggent_t *ents;
	size_t nents, cap;
	uint64_t normal;	/* normalize() factor, 1 by default */
	bool printed;		/* printa()ed: not printed again at exit */
	bool array_kept;	/* in an array (no keys): its entry has recorded
				   and was not truncated, so it stays, zero
				   after clear() as a hash entry would */
	/* clear() of a function whose values add up (all but min() and
	 * max()): what each key held at the snapshot it cleared, which
	 * every later snapshot subtracts; the maps are not written
	 * (dt_agg_clear.c).  NULL until the first such clear(). */
	struct dt_aggbase *base;
	uint64_t snap_batch;	/* dt_consumer.batch at the last snapshot */
} dt_aggstate_t;

/* The modules of a process whose user stacks are printed (dt_consume.c),
 * read once; proc is NULL when the process could not be read. */
typedef struct dt_symproc {
	pid_t pid;
	struct dt_elf_proc *proc;
	struct dt_unwind *uw;	/* unwinder over proc's modules, or NULL */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last reread */
	struct dt_symproc *next;
} dt_symproc_t;

/* A record kept for a speculation until its commit() or discard(). */
typedef struct dt_specrec {
	struct dt_specrec *next;
	size_t size;
	uint8_t data[];		/* header (spec cleared) and data */
} dt_specrec_t;

typedef struct dt_specbuf {
	dt_specrec_t *head, **tail;
	size_t bytes;		/* held, at most -x specsize */
} dt_specbuf_t;

struct dt_consumer {
	struct ring_buffer *rb;
	bool done;		/* an exit() record was consumed */
	dt_out_t *out;		/* text or JSON (dt_consume_out()) */
	int fatal;		/* -1 after a fatal formatting error */
	int ncpus;		/* possible CPUs, for per-CPU maps */
	uint64_t *drops_seen;	/* ncpus * 3 counters already reported */
	uint64_t dyn_seen;
	uint64_t uret_seen;	/* return probe firings omitted, reported */
	dt_aggstate_t *aggs;
	int naggs;
	struct dt_agg_pname *pnames;	/* probes' names met in aggregation
					   keys, by PRID (dt_agg.c) */
	uint8_t *mst;		/* the "mstate" map's mapping, for the
				   aggregations kept there (dt_agg.c) */
	size_t mst_len, mst_stride;
	uint32_t mst_ncpus;
	struct dt_agg_zero *zeros;	/* clear()'s programs, one a map of
					   CPU slots (dt_agg.c) */
	int nzeros;
	struct dt_elf_cache *elf;	/* symbolization: NULL until needed */
	dt_symproc_t *symprocs;
	bool targets_read;	/* the -c/-p targets' modules are cached */
	uint32_t rec_cpu;	/* the CPU of the record being consumed */
	uint64_t batch;		/* dt_consume_poll() calls, from 1: a snapshot
				   that a printa() took serves the clear()s of
				   the records read with it (dt_agg_clear.c) */
	uint64_t sample_drops;	/* aggregation samples that found no room */
	/* -F: the record held until the next one is seen (a return
	 * unindents only when the next record is not the same probe's). */
	uint8_t *held;
	size_t held_size;
	dt_specbuf_t specs[DT_NSPEC_MAX + 1];	/* by speculation id */
	uint64_t spec_drops, spec_drops_seen;	/* past specsize */
	uint64_t spec_failed_seen;	/* speculation() found none free */
	/* -x bufpolicy=ring: the records kept, oldest first, their bytes,
	 * and whether they are being printed (dt_consume_buf.c) */
	struct dt_ringrec *ring_head, **ring_tail;
	uint64_t ring_bytes;
	bool ring_replay;
};

/* dt_consume.c */
struct dt_consumer *dt_consumer_get(dtrace_hdl_t *dtp);
/* Drops of a kind through the output (JSON's line); the caller prints the
 * message on stderr. */
void dt_consume_drop(dtrace_hdl_t *dtp, const char *kind, int cpu,
		     uint64_t n);
/* Format one output record (header and data), as the ring buffer
 * callback does.  Returns 0 or -1 on a malformed record (reported). */
int dt_consume_record(dtrace_hdl_t *dtp, const void *buf, size_t size);
/* The bytes a tracemem() or printm() record prints: its size, cut by
 * tracemem()'s third argument. */
size_t dt_consume_mem_len(const dt_actdesc_t *act, const uint8_t *data);
/* The frames of a user stack record (DT_RK_USTACK: as recorded;
 * DT_RK_USAMPLE: unwound), at most rec->arg and max of them, into pcs;
 * the pid into *pid.  Returns how many. */
int dt_ustack_pcs(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		  const uint8_t *p, uint64_t *pcs, int max, pid_t *pid);
/* The text of user PC pc, whose lookup found u (found) or not. */
struct dt_usymbol;
void dt_upc_text(dtrace_hdl_t *dtp, uint64_t pc, bool found,
		 const struct dt_usymbol *u, char *buf, size_t len);
/* One user PC of process pid, symbolized into buf. */
void dt_format_upc(dtrace_hdl_t *dtp, pid_t pid, uint64_t pc, char *buf,
		   size_t len);
/* What a user address of process pid is: false when no module of the
 * process (as last read, kept after it exits) maps it. */
typedef struct dt_usymbol {
	const char *module;	/* the file name, as DTrace prints it */
	uint64_t modbase;	/* the module's lowest address */
	uint64_t mapstart;	/* start of the mapping that holds pc */
	const char *symbol;	/* NULL when no symbol covers pc */
	uint64_t symaddr;	/* the symbol's run-time address */
	uint64_t offset;	/* pc - symaddr */
	const struct dt_elf_module *mod;	/* the module itself */
} dt_usymbol_t;
bool dt_lookup_upc(dtrace_hdl_t *dtp, pid_t pid, uint64_t pc,
		   dt_usymbol_t *u);
/* The pid and address of a DT_RK_UADDR record. */
void dt_uaddr_rec(const uint8_t *p, pid_t *pid, uint64_t *pc);
/* A DT_RK_UADDR record as its dt_usym_t says, into buf. */
void dt_format_usym(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		    const uint8_t *p, char *buf, size_t len);
/* An aggregation key's ufunc/usym address moved to its symbol's start,
 * a umod's to its module's: the keys that print alike merge.  Returns
 * whether the key changed. */
bool dt_usym_normalize(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		       uint8_t *p);


/* dt_agg.c */
/* Set up the consumer's aggregation table from dt_pd_naggs()/dt_pd_agg()
 * (descs NULL) or from descs[0..n-1] (tests). */
int dt_agg_setup(dtrace_hdl_t *dtp, dt_aggdesc_t **descs, int n);
void dt_agg_fini(dtrace_hdl_t *dtp);
/* Merge one CPU's value into the entry of key (created if new). */
void dt_agg_merge(dtrace_hdl_t *dtp, int id, const void *key,
		  const int64_t *val);
/* Record CPU cpu's value of key in the entry's per-CPU values (aggpercpu;
 * the snapshot does it for each CPU that recorded something, tests call
 * it by hand).  Does not merge: call dt_agg_merge() too.  The entry must
 * exist; cpu must be below dt_agg_ncpus(). */
void dt_agg_merge_cpu(dtrace_hdl_t *dtp, int id, int cpu, const void *key,
		      const int64_t *val);
/* Possible CPUs: the number of values per key in an aggregation map. */
int dt_agg_ncpus(dtrace_hdl_t *dtp);
/* Read every aggregation map into the consumer's table. */
int dt_agg_snapshot(dtrace_hdl_t *dtp);
/* One value (v, increment w or -1) for the entry key of aggregation id on
 * CPU cpu, added to the aggregation's map by the consumer (aggregations
 * keyed on ustack()).  Returns 0 or -errno (a full map: -E2BIG). */
int dt_agg_add_sample(dtrace_hdl_t *dtp, int id, const void *key, int cpu,
		      int64_t v, int64_t w);
/* printa(@a) / printa(@a, @b): DTrace's default layout. */
int dt_agg_print(dtrace_hdl_t *dtp, FILE *out, const int *ids, int n);
/* printa(fmt, @a, ...) */
int dt_agg_printf(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		  const int *ids, int n);
int dt_agg_clear(dtrace_hdl_t *dtp, int id);
/* Load the programs that clear() runs (dt_aggzero), before tracing. */
void dt_agg_zero_prepare(dtrace_hdl_t *dtp);
int dt_agg_trunc(dtrace_hdl_t *dtp, int id, int64_t n, bool all);
int dt_agg_normalize(dtrace_hdl_t *dtp, int id, uint64_t normal);
/* Every aggregation not printa()ed yet, in id order. */
int dt_agg_print_all(dtrace_hdl_t *dtp, FILE *out);
/* printa(): the snapshot of its aggregations, joined (and each alone
 * when the output prints them so), into a (dt_agg_printa_free()). */
void dt_agg_printa_decode(dtrace_hdl_t *dtp, dt_outact_t *a, bool each_alone);
void dt_agg_printa_free(dt_outact_t *a);
/* Aggregation id snapshot and sorted as an output is given it (tests;
 * NULL after an error); freed with dt_agg_outagg_free(). */
dt_outagg_t *dt_agg_outagg(dtrace_hdl_t *dtp, int id);
void dt_agg_outagg_free(dt_outagg_t *oa);

/* dt_consume.c: what an action does besides printing (exit status,
 * clear, trunc, normalize, setopt, ftruncate, freopen), shared by the text
 * and JSON printers.  Returns 0 or -1. */
int dt_consume_effect(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
		      const uint8_t *data);
/* Whether action i of clause cl is to be formatted: it ran (action mask)
 * and its records fit in the dsize bytes of data (else reported, *err
 * set to -1). */
bool dt_consume_action_ok(const dt_compiled_clause_t *cl, int i,
			  const uint8_t *data, size_t dsize, int *err);

/* dt_consume_buf.c: the output buffer's policies (-x bufpolicy).
 * Before tracing: fill keeps END's room (0, or -1 with the error set). */
int dt_bufpol_start(dtrace_hdl_t *dtp);
/* Fill: whether the buffer is filled (tracing is to end). */
bool dt_bufpol_filled(dtrace_hdl_t *dtp);
/* Ring: keep a record to print at the end (true), running at once what
 * must run at once; false when it is to be printed now. */
bool dt_bufpol_keep(dtrace_hdl_t *dtp, const void *buf, size_t size);
/* Ring: print the records kept, oldest first, through consume. */
void dt_bufpol_replay(dtrace_hdl_t *dtp,
		      int (*consume)(void *ctx, void *data, size_t size));
void dt_bufpol_fini(struct dt_consumer *c);

/* dt_decode.c: records decoded into the values the outputs print
 * (output/dt_output.h). */
void dt_value_decode(dtrace_hdl_t *dtp, dt_value_t *v,
		     const dt_recdesc_t *rec, const uint8_t *p);
void dt_value_free(dt_value_t *v);
/* The values of n records of data (to dt_values_free()). */
dt_value_t *dt_values_decode(dtrace_hdl_t *dtp, const dt_recdesc_t *recs,
			     int n, const uint8_t *data);
void dt_values_free(dt_value_t *vals, int n);
/* One action of a record, decoded after its effect ran. */
void dt_outact_decode(dtrace_hdl_t *dtp, dt_outact_t *a,
		      const dt_actdesc_t *act, const uint8_t *data);
void dt_outact_free(dt_outact_t *a);

#endif /* DT_CONSUME_IMPL_H */
