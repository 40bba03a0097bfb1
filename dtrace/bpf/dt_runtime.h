/* SPDX-License-Identifier: MIT */
/*
 * dt_runtime.h: the session's BPF-side state, shared by the code generator,
 * the program builder and the consumer.
 *
 * Maps every session has (created by dt_prog_maps.c):
 *   "output"	RINGBUF	records to the consumer (dt_rec.h)
 *   "state"	ARRAY	u64 slots, DT_STATE_*; key is the slot number
 *   "cpuinfo"	PERCPU_ARRAY, 1 entry: dt_cpuinfo_t, counters per CPU
 *   "mstate"	ARRAY, one entry per possible CPU, indexed by the CPU a
 *		program runs on (it cannot migrate): dt_mstate_t then the
 *		code generator's area (dt_cg_mstate_size() bytes in all).
 *		Mapped by the consumer (BPF_F_MMAPABLE), which writes each
 *		CPU's cpu_active and cpu_generic there.
 *		Not a PERCPU_ARRAY, whose lookup reads the map's table of
 *		per-CPU pointers, one more page touched per firing.
 *   "overlay"	HASH	key: the mstate's key (pid, cookie); value:
 *		dt_overlay_t, the overlying probes and their clauses
 *   "probedesc" ARRAY	key: PRID; value: dt_probedesc_rt_t, the names
 *		of each enabled probe (probeprov, probemod, ...)
 *   "instance"	HASH	key: (pid, PRID of a DTRACE_PROBE_TEMPLATE probe);
 *		value: the PRID of that process's own probe, made at
 *		run time (dt_instance.c), 0 while being made
 *   "instorigin" ARRAY	key: PRID - dtp->inst_base; value: (template
 *		PRID, pid) of each probe made at run time, for the consumer
 *
 * A program whose clauses all have predicates on arguments alone first
 * runs its trampoline into a copy on its stack and tests them there, and
 * returns when none holds, touching no map (dt_prog_prefilter.c).
 * A program runs: prologue (activity check, mstate, default key), the
 * provider's trampoline, overlay lookup ((pid, cookie), then (0, cookie);
 * there, when the trampoline set mstate.instance, the (pid, cookie) overlay
 * made from it, dt_instance.c),
 * then for each overlying probe found, each clause whose bit is set in its
 * mask, as a BPF-to-BPF call clause(ctx, mstate).  A program that serves
 * one underlying probe with one overlying probe when it is built calls
 * that probe's clauses straight away, without the lookup, for as long as
 * DT_STATE_GENERIC is 0.  A clause returns 0, or
 * non-zero after a fault, whose details it left in the mstate; the program
 * then writes an error record and runs the ERROR clauses.
 */
#ifndef DT_RUNTIME_H
#define DT_RUNTIME_H

#include <stdint.h>
#include <dtrace/provider.h>

enum dt_state_slot {
	DT_STATE_ACTIVITY,	/* dt_activity_t */
	DT_STATE_BEGIN_TID,	/* the thread running BEGIN */
	DT_STATE_WALL_OFFSET,	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns, at
				   start: walltimestamp = ktime_get_ns() + it */
	DT_STATE_DTRACE_PID,	/* the consumer's pid ($pid) */
	DT_STATE_INST_NEXT,	/* probes made at run time so far
				   (dt_instance.c) */
	DT_STATE_GENERIC,	/* non-zero once an overlay or an underlying
				   probe changed while tracing: programs built
				   for one overlay take the general path */
	DT_STATE_FILL_ROOM,	/* bufpolicy=fill: bytes the records but
				   END's may still take (dt_cg.c) */
	DT_STATE_NSLOTS
};

typedef enum dt_activity {
	DT_ACTIVITY_INACTIVE,	/* before BEGIN: only BEGIN runs */
	DT_ACTIVITY_ACTIVE,	/* every probe runs */
	DT_ACTIVITY_DRAINING,	/* exit() was called: only END runs */
	DT_ACTIVITY_STOPPED,	/* after END: nothing runs */
} dt_activity_t;

typedef struct dt_cpuinfo {
	uint64_t buf_drops;	/* records the output buffer had no room for */
	uint64_t agg_drops;	/* aggregation entries that found no room */
	uint64_t dyn_drops;	/* dynamic variables that found no room */
	uint64_t errors;	/* faults */
	uint64_t uret_drops;	/* return probe firings the kernel omitted
				   (calls too deeply nested: dt_uretdepth.c) */
} dt_cpuinfo_t;

#define DT_OVERLAY_MAX	4	/* overlying probes per (pid, site) */
#define DT_OVL_TEMPLATE	0x1	/* the probe is a DTRACE_PROBE_TEMPLATE */
#define DT_OVL_USER_SHIFT 8	/* flags >> 8: which of the program's
				   trampolines reads the probe's arguments
				   (a site that several providers share) */

/*
 * An overlay value: dt_overlay_t, then DT_OVERLAY_MAX entries of
 * dt_ovl_ent_size(words) bytes, each a dt_ovlent_t and its clause set
 * (bit c of word c / 64: run clause c).  words is the session's
 * dt_clause_words(nclauses): a session of at most 64 clauses has one word
 * per entry, and there is no limit on the number of clauses.
 */
typedef struct dt_overlay {
	uint32_t n;		/* entries used */
	uint32_t pad;
} dt_overlay_t;

typedef struct dt_ovlent {
	uint32_t prid;
	uint32_t flags;		/* DT_OVL_* */
	uint64_t clauses[];	/* words of the clause set */
} dt_ovlent_t;

static inline int dt_ovl_ent_size(uint32_t words)
{
	return (int)(sizeof(dt_ovlent_t) + 8 * words);
}

/* Offset of entry i in the value. */
static inline int dt_ovl_ent_off(uint32_t words, int i)
{
	return (int)sizeof(dt_overlay_t) + i * dt_ovl_ent_size(words);
}

static inline int dt_ovl_size(uint32_t words)
{
	return dt_ovl_ent_off(words, DT_OVERLAY_MAX);
}

#define DT_PROBE_PRV_MAX	64
#define DT_PROBE_MOD_MAX	128
#define DT_PROBE_FUN_MAX	128
#define DT_PROBE_PRB_MAX	64

typedef struct dt_probedesc_rt {
	char prv[DT_PROBE_PRV_MAX];
	char mod[DT_PROBE_MOD_MAX];
	char fun[DT_PROBE_FUN_MAX];
	char prb[DT_PROBE_PRB_MAX];
} dt_probedesc_rt_t;

/* The machine state: the public part, then the engine's.  The code
 * generator's own area follows at offsetof(dt_mstate_t, cg_area). */
typedef struct dt_mstate {
	dtrace_mstate_t pub;
	uint32_t epid;
	uint32_t fault;		/* dt_fault_t, set by a faulting clause */
	uint32_t fault_action;	/* 1-based statement of the fault */
	uint32_t fault_pc;
	uint64_t fault_addr;
	uint64_t timestamp;	/* cached per firing, 0 until read */
	uint32_t exited;	/* exit() ended the session in this firing */
	uint32_t strtok;	/* 1 + where strtok() goes on; 0: nowhere */
	/* This CPU's copies of the session's state, beside the fields every
	 * firing touches: reading the "state" map costs a page of its own.
	 * Kept by dt_prog_maps.c (userspace, through the map's mapping) and by
	 * exit() (dt_cg_act.c, every CPU's); the firing never writes them. */
	uint32_t cpu_active;	/* the activity is DT_ACTIVITY_ACTIVE */
	uint32_t cpu_generic;	/* DT_STATE_GENERIC is non-zero */
	uint32_t chain_ent;	/* the overlay entry a chained program runs
				   (dt_prog_chain.c) */
	uint32_t pad;
	uint64_t err_argv[6];	/* the firing's arg0..arg5 while ERROR runs */
	uint64_t cg_area[];
} dt_mstate_t;

#endif /* DT_RUNTIME_H */
