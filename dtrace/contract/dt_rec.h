/* SPDX-License-Identifier: MIT */
/*
 * dt_rec.h: what travels from BPF to the consumer, and how it is described.
 *
 * The run-time contract between the code generator (which lays records out),
 * the program builder (which writes headers and error records) and the
 * consumer (which formats them).
 *
 * Output records.  Every clause firing that has something to say writes one
 * record to the output ring buffer: a dt_rechdr_t, then the data of the
 * clause's actions at the offsets its action descriptors give.  The header
 * carries both the clause and the PRID of the probe that fired: the consumer
 * never derives a probe from a clause.  A fault writes an error record
 * instead (clause DT_CLAUSE_ERROR).
 *
 * Aggregations.  Each aggregation is a BPF per-CPU hash map keyed on its key
 * tuple (laid out like record data: integers as 8 bytes, strings strsize
 * bytes, NUL padded), the value is the aggregating function's state
 * (dt_aggfunc_t says which).  The consumer snapshots and merges the CPUs.
 */
#ifndef DT_REC_H
#define DT_REC_H

#include <stdint.h>
#include "dt_type.h"

typedef struct dt_rechdr {
	uint32_t clause;	/* index in dtp->clauses, or DT_CLAUSE_* */
	uint32_t prid;		/* the probe that fired */
	uint32_t cpu;
	uint32_t spec;		/* speculate(): the speculation, else 0 */
} dt_rechdr_t;

/* The bytes a record of recsize bytes after its header takes in the output
 * ring buffer: the header, the data 8-aligned and the ring's own 8-byte
 * header (-x bufpolicy=fill counts these, dt_cg.c and dt_consume_buf.c). */
static inline uint64_t dt_rec_ring_room(uint32_t recsize)
{
	return sizeof(dt_rechdr_t) + ((recsize + 7ull) & ~7ull) + 8;
}

/* The spec of a record that speculate()d on a speculation that is not
 * active: the consumer drops it. */
#define DT_SPEC_INACTIVE 0xffffffffu

#define DT_CLAUSE_ERROR	0xfffffffeu	/* body: dt_errrec_t */

/* Run-time faults, as DTrace names them. */
typedef enum dt_fault {
	DT_FAULT_NONE,
	DT_FAULT_BADADDR,	/* "invalid address (0x%llx)" */
	DT_FAULT_BADALIGN,	/* "invalid alignment (0x%llx)" */
	DT_FAULT_ILLOP,		/* "illegal operation" */
	DT_FAULT_DIVZERO,	/* "divide-by-zero" */
	DT_FAULT_NOSCRATCH,	/* "out of scratch space" */
	DT_FAULT_KPRIV,		/* "invalid kernel access" */
	DT_FAULT_UPRIV,		/* "invalid user access" */
	DT_FAULT_TUPOFLOW,	/* "tuple stack overflow" */
	DT_FAULT_BADSTACK,	/* "bad stack" */
	DT_FAULT_STRSIZE,	/* "string too long" */
	DT_FAULT_DYNVAR,	/* "dynamic variable drop" (map full) */
} dt_fault_t;

typedef struct dt_errrec {
	uint32_t clause;	/* the clause that faulted */
	uint32_t action;	/* 1-based action (statement) index */
	uint32_t pc;		/* BPF instruction index in the clause */
	uint32_t fault;		/* dt_fault_t */
	uint64_t addr;		/* faulting address, when there is one */
} dt_errrec_t;

/* How one recorded value is stored. */
typedef enum dt_reckind {
	DT_RK_INT,		/* size 1, 2, 4 or 8; signed per is_signed */
	DT_RK_STRING,		/* size bytes, NUL-terminated within */
	DT_RK_MEM,		/* size raw bytes (tracemem, structs) */
	DT_RK_USTACK,		/* size/8 user PCs, 0-terminated; first u64 is
				   the pid (ustack, ufunc, uaddr, usym) */
	DT_RK_KSTACK,		/* size/8 kernel PCs, 0-terminated */
	DT_RK_UADDR,		/* 16 bytes: the pid, then a user address;
				   arg is its dt_usym_t */
	DT_RK_USAMPLE,		/* a user stack to unwind: dt_usample_t then
				   the stack's bytes; arg is the frames */
} dt_reckind_t;

/*
 * A user stack as BPF copies it for the consumer to unwind (ustack()):
 * the registers an unwinder starts from and the stack from the 512-byte
 * block that holds sp upwards, as many blocks as could be read (the copy
 * stops at the first that cannot: the top of the stack).  The stack's
 * bytes follow; the record holds -x ustackbytes of them.
 */
#define DT_USAMPLE_URETS	8

typedef struct dt_usample {
	uint64_t pid;
	uint64_t base;		/* user address of the first byte copied */
	uint64_t len;		/* bytes copied (0: no user context) */
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
	/* Return addresses that return probes replaced on the stack with
	 * the kernel's uretprobe trampoline, innermost first: the stack
	 * slot and the address it held (0, 0 ends the list). */
	struct {
		uint64_t slot, ret;
	} uret[DT_USAMPLE_URETS];
} dt_usample_t;

#define DT_USAMPLE_BLOCK	512

/* How a DT_RK_UADDR record prints (as DTrace's actions of those names):
 * module`function (ufunc, usym), module (umod), module`function+0xoff
 * (uaddr, and printf's %a and %A). */
typedef enum dt_usym {
	DT_USYM_FUNC,
	DT_USYM_SYM,
	DT_USYM_MOD,
	DT_USYM_ADDR,
} dt_usym_t;

typedef struct dt_recdesc {
	dt_reckind_t kind;
	uint32_t offset;	/* from the start of the data (after header) */
	uint32_t size;
	bool is_signed;
	dt_type_t *type;	/* the D type, for printf checks and trace() */
	uint32_t arg;		/* kind specific: tracemem's size, ustack's
				   frames, the format of uaddr/usym/umod */
	uint32_t usample;	/* a DT_RK_INT of ustackdepth: the bytes of
				   the stack copy (a DT_RK_USAMPLE at offset
				   arg) that the consumer unwinds, writing the
				   depth at offset in a copy of the record.
				   0 otherwise */
} dt_recdesc_t;

/* Whether r is an aggregation key that sorts and prints as an integer of
 * its size: an integer, or a struct or union of 1, 2, 4 or 8 bytes, as
 * DTrace treats every key of those sizes. */
static inline bool dt_rec_is_word(const dt_recdesc_t *r)
{
	return r->kind == DT_RK_INT ||
	       (r->kind == DT_RK_MEM && (r->size == 1 || r->size == 2 ||
					 r->size == 4 || r->size == 8));
}

/* What the consumer does with an action's records. */
typedef enum dt_actkind {
	DT_ACT_TRACE,		/* trace(x): 1 record */
	DT_ACT_PRINTF,		/* printf(fmt, ...): n records */
	DT_ACT_PRINTA,		/* printa([fmt,] @a, ...): no records; aggs */
	DT_ACT_EXIT,		/* exit(n): 1 record, the status */
	DT_ACT_TRACEMEM,	/* tracemem(addr, size): 1 MEM record */
	DT_ACT_STACK,		/* stack(): 1 KSTACK record */
	DT_ACT_USTACK,		/* ustack(): 1 USTACK record */
	DT_ACT_SYSTEM,		/* system(fmt, ...): like printf */
	DT_ACT_CLEAR,		/* clear(@a) */
	DT_ACT_TRUNC,		/* trunc(@a[, n]): 0 or 1 record */
	DT_ACT_NORMALIZE,	/* normalize(@a, n): 1 record */
	DT_ACT_DENORMALIZE,	/* denormalize(@a) */
	DT_ACT_SETOPT,		/* setopt(name[, value]): strings in fmt/arg */
	DT_ACT_RAISE,		/* raise(sig): done in BPF, nothing recorded */
	DT_ACT_STOP,		/* stop(): done in BPF */
	DT_ACT_FTRUNCATE,	/* ftruncate() */
	DT_ACT_FREOPEN,		/* freopen(fmt, ...) */
	DT_ACT_PRINTM,
	DT_ACT_UADDR,		/* ufunc(), usym(), umod(), uaddr(): 1 UADDR
				   record */
	DT_ACT_SPECULATE,	/* speculate(id): the header's spec */
	DT_ACT_COMMIT,		/* commit(id): 1 record, the id */
	DT_ACT_DISCARD,		/* discard(id): 1 record, the id */
	DT_ACT_AGGSAMPLE,	/* @a[..., ustack(), ...] = f(v): aggregated
				   by the consumer; aggs[0] is @a; one record
				   per key (a ustack() key as a USAMPLE),
				   then v and f's increment when it has them */
	DT_ACT_PRINT,		/* print(x): 1 record whose type (recdesc's)
				   lays the value out (dt_print.c); for a
				   struct or union, then two per char *
				   member (DT_PRINT_STRINGS_MAX at most, in
				   the order of the members, nested structs'
				   too, not array elements'): the string
				   read's result (INT, < 0 when it failed)
				   and the string */
} dt_actkind_t;

/* The char * members of a print()ed struct whose strings are recorded;
 * the next ones print as addresses. */
#define DT_PRINT_STRINGS_MAX	16

/* Whether print() shows the string that a member of type t points to. */
static inline bool dt_print_is_strptr(const dt_type_t *t)
{
	return t->kind == DT_TK_PTR && t->base != NULL &&
	       t->base->kind == DT_TK_INT && t->base->size == 1;
}

typedef struct dt_actdesc {
	dt_actkind_t kind;
	const char *fmt;	/* printf/printa/system/setopt format */
	int nrecs;
	dt_recdesc_t *recs;
	int naggs;		/* printa, clear, trunc, normalize: */
	int *aggs;		/*   aggregation ids */
	int line;
} dt_actdesc_t;

typedef enum dt_aggfunc {
	DT_AGG_COUNT,		/* value: u64 count */
	DT_AGG_SUM,		/* value: i64 sum */
	DT_AGG_AVG,		/* value: u64 count, i64 sum */
	DT_AGG_MIN,		/* value: i64 min, u64 count (0: nothing
				   recorded on this CPU; the min is then
				   meaningless) */
	DT_AGG_MAX,		/* value: i64 max, u64 count (likewise) */
	DT_AGG_STDDEV,		/* value: u64 count, i64 sum, u64 sumsq[2]
				   (128-bit, low word first) */
	DT_AGG_QUANTIZE,	/* value: i64 buckets[DT_QUANTIZE_NBUCKETS] */
	DT_AGG_LQUANTIZE,	/* value: i64 buckets[levels + 2] */
	DT_AGG_LLQUANTIZE,	/* value: i64 buckets[...] see dt_agg.c */
} dt_aggfunc_t;

/* quantize: bucket 0 is the most negative power of two, DT_QUANTIZE_ZERO is
 * the zero bucket, as DTrace lays them out. */
#define DT_QUANTIZE_NBUCKETS	127
#define DT_LQUANTIZE_MAXLEVELS	4094	/* levels of lquantize() */
#define DT_QUANTIZE_ZERO	63

typedef struct dt_aggdesc {
	int id;			/* index in the compile's aggregation table */
	const char *name;	/* "" for @ */
	dt_aggfunc_t func;
	int nkeys;
	dt_recdesc_t *keys;	/* offsets within the key */
	uint32_t keysize;
	uint32_t valsize;
	int64_t params[4];	/* lquantize low, high, step; llquantize
				   factor, low, high, steps */
	dt_type_t **ktypes;	/* the keys' types, for printa()'s format
				   (stack keys: dt_printf_stack_type) */
	uint32_t mstoff;	/* non-zero: no map; each CPU's value is in
				   its mstate at this offset (dt_cg_agg.c) */
	bool mstflag;		/* and the 8 bytes before it are non-zero
				   once that CPU recorded */
	dtrace_map_t *map;	/* the (per-CPU) hash, maybe shared by
				   aggregations of one key and value size:
				   its keys are the id (DT_AGG_KEYPREFIX
				   bytes), then the mkeysize bytes of the
				   keys */
	/*
	 * Keys that name the probe (probeprov, probemod, probefunc,
	 * probename as the key itself) are kept in the map as 8 bytes,
	 * DT_AGG_PROBEKEY(name, PRID), instead of strsize bytes of string:
	 * less to hash per firing.  The consumer expands them into the
	 * string (cut at strsize - 1 characters) as it reads the map, so
	 * that keysize and offset describe the keys it sees.  Uses whose
	 * key there is another string go to the plain part.
	 */
	bool *kprobe;		/* per key: kept as DT_AGG_PROBEKEY; NULL:
				   none is, the map's key is the consumer's */
	uint32_t *moffset;	/* per key: its offset in the map's key */
	uint32_t mkeysize;	/* the map's key after the prefix */
	uint32_t strsize;	/* a string's bytes with its NUL in the
				   compile (-x strsize + 1) */
	struct dt_aggdesc *plain;	/* the same aggregation with keys laid
				   out as the consumer's: id + DT_AGG_PLAIN,
				   its own map; NULL until a use needs it */
	/*
	 * When every key names the probe, the PRID alone gives the entry:
	 * the entries of the PRIDs below the array's size are kept in an
	 * array indexed by PRID, which a firing indexes without staging,
	 * hashing or comparing a key (dt_cg_agg.c).  byprid is that part:
	 * the aggregation's id, keys and layout, its map the array, whose
	 * value is the hash's CPU slots; a firing sets the last word of its
	 * CPU's slot (DT_AGG_SLOT_SEEN), so that an entry whose values are
	 * zeros (after clear()) stays.  pnames: which name each key is, as
	 * the first use gave them; a use naming others goes to the hash.
	 */
	struct dt_aggdesc *byprid;
	uint8_t *pnames;	/* byprid's: 0 probeprov .. 3 probename */
} dt_aggdesc_t;

/* A probe-naming key in the map: which name (0 probeprov .. 3 probename)
 * and the PRID. */
#define DT_AGG_PROBEKEY(name, prid)	((uint64_t)(name) << 32 | (prid))
#define DT_AGG_PLAIN		0x40000000

#define DT_AGG_KEYPREFIX	8
#define DT_AGG_MAP_MAX		1000000	/* entries of a shared map */
#define DT_AGG_OWN_MAPS		32	/* aggregations with a map each */
/* A keyed aggregation whose value fits a slot of DT_AGG_SLOT bytes for
 * every possible CPU within DT_AGG_SLOTS_MAX is a plain hash whose value
 * holds the CPUs' slots side by side (dt_cg_agg.c), else a per-CPU hash.
 * The bound keeps an entry's memory within 1 KB (16 CPUs): beyond, a
 * per-CPU hash takes 8 bytes of a count per CPU, not 64. */
#define DT_AGG_SLOT		64
#define DT_AGG_SLOTS_MAX	1024
/* The word of a CPU's slot in an array by PRID: non-zero once that CPU
 * recorded the entry. */
#define DT_AGG_SLOT_SEEN	(DT_AGG_SLOT - 8)
/* The bytes of the arrays by PRID of a session at most, together: the
 * PRIDs beyond an array go to the hash (the arrays are allocated whole, and
 * the consumer reads one whole for a snapshot). */
#define DT_AGG_BYPRID_MAX	(16u << 20)

#endif /* DT_REC_H */
