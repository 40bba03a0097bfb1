/* SPDX-License-Identifier: MIT */
/*
 * dt_instance.c: a process's own probes, made at run time.
 *
 * A provider marks the probes that stand for every process with
 * DTRACE_PROBE_TEMPLATE ("myapp": USDT probes of processes the plugin has
 * not seen).  Each process has its own probe of the same names with its pid
 * after the provider name ("myapp1234").  Usually the plugin makes it and
 * overlays it on (pid, cookie) as soon as it hears of the process.  But it
 * hears late when dtrace is busy or stopped, so the program can do it
 * itself: when the overlay lookup fell back to (0, cookie) and the
 * trampoline set mstate.instance (the firing process has probes of its own
 * at this site: for USDT, it registered the site with dtprobed), the
 * subprogram emitted here
 *
 *	- finds, or makes, the process's probe of each template of the
 *	  (0, cookie) overlay: the "instance" map holds (pid, template) ->
 *	  PRID; a new PRID is taken from the state slot DT_STATE_INST_NEXT
 *	  (an atomic add), in the range dtp->inst_base .. + inst_max, and
 *	  gets its names in "probedesc" (the template's, the pid appended to
 *	  the provider's) and its origin in "instorigin";
 *	- writes the (pid, cookie) overlay with those PRIDs, which the next
 *	  firings of the process find at once, at no cost;
 *	- returns it for this firing.
 *
 * The consumer learns of those probes when it meets a PRID it does not
 * know, and before a plugin may create probes (dt_prog_batch_begin):
 * dt_inst_import() reads their names and origins.  Such a probe has its
 * template's provider, clauses and argument types and no private data; the
 * plugin's probe_insert() of the same names later gives it the plugin's
 * (dt_probe_insert).
 *
 * Races.  Two CPUs making the same (pid, template) at once: the first
 * reserves the "instance" entry (BPF_NOEXIST, value 0) and the other runs
 * this firing under the template.  A PRID whose origin is not written yet
 * is not imported: the import stops there and goes on later.  When the
 * range is used up, firings run under the templates.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "dt_instance.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

typedef struct dt_inst_key {
	uint32_t pid;
	uint32_t tprid;		/* the template */
} dt_inst_key_t;

typedef struct dt_inst_origin {
	uint32_t tprid;		/* 0: not written yet */
	uint32_t pid;
} dt_inst_origin_t;

#define EMIT(as, insn)	dt_as_emit((as), (insn))
#define OFF(type, field)	((int)offsetof(type, field))

int dt_inst_maps_declare(dtrace_hdl_t *dtp)
{
	if (!dt_bpf_map(dtp, "instance", BPF_MAP_TYPE_HASH,
			sizeof(dt_inst_key_t), 8, dtp->inst_max) ||
	    !dt_bpf_map(dtp, "instorigin", BPF_MAP_TYPE_ARRAY, 4,
			sizeof(dt_inst_origin_t), dtp->inst_max))
		return -1;
	return 0;
}

/* r0 = lookup(map, fp + keyoff); r0 may be NULL. */
static void emit_lookup(dt_as_t *as, dtrace_hdl_t *dtp, const char *map,
			int keyoff)
{
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, map));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, keyoff));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
}

/* r0 = update(map, fp + keyoff, fp + valoff, BPF_NOEXIST). */
static void emit_insert(dt_as_t *as, dtrace_hdl_t *dtp, const char *map,
			int keyoff, int valoff)
{
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, map));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, keyoff));
	EMIT(as, DT_MOV64_REG(DT_R3, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R3, valoff));
	EMIT(as, DT_MOV64_IMM(DT_R4, BPF_NOEXIST));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_update_elem));
}

/* r0 = update(map, fp + keyoff, the value valreg points to, BPF_NOEXIST). */
static void emit_insert_from(dt_as_t *as, dtrace_hdl_t *dtp, const char *map,
			     int keyoff, int valreg)
{
	EMIT(as, DT_MOV64_REG(DT_R3, valreg));
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, map));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, keyoff));
	EMIT(as, DT_MOV64_IMM(DT_R4, BPF_NOEXIST));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_update_elem));
}

/* The pid in r1 as decimal digits at fp + buf (24 bytes, zeroed first;
 * the number ends with a NUL).  r2, r3, r4 are scratch. */
static void emit_digits(dt_as_t *as, int buf)
{
	uint32_t t = 10;

	for (int i = 0; i < 24; i += 8)
		EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, buf + i, 0));
	/* r3 = the largest power of ten <= pid (1 for 0) */
	EMIT(as, DT_MOV64_IMM(DT_R3, 1));
	for (int i = 0; i < 9; i++, t *= 10) {
		int less = dt_as_label(as);
		dt_as_jump(as, BPF_JLT, DT_R1, (int32_t)t, less);
		EMIT(as, DT_MOV64_IMM(DT_R3, (int32_t)t));
		dt_as_place(as, less);
	}
	int done = dt_as_label(as);
	for (int k = 0; k < 10; k++) {
		dt_as_jump(as, BPF_JEQ, DT_R3, 0, done);
		EMIT(as, DT_MOV64_REG(DT_R4, DT_R1));
		EMIT(as, DT_ALU64_REG(BPF_DIV, DT_R4, DT_R3));
		EMIT(as, DT_ALU64_IMM(BPF_MOD, DT_R4, 10));
		EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R4, '0'));
		EMIT(as, DT_STORE(BPF_B, DT_FP, buf + k, DT_R4));
		EMIT(as, DT_ALU64_IMM(BPF_DIV, DT_R3, 10));
	}
	dt_as_place(as, done);
}

/*
 * inst_prid(mst, template prid): the PRID of the firing process's own
 * probe of the template (found, or made now), or 0.  Frame: fp-8 the
 * instance key, fp-16 a value or an array key, fp-40 the pid's digits,
 * fp-104 the provider name's copy (to measure it).
 */
static void emit_inst_prid(dtrace_hdl_t *dtp, dt_as_t *as, int label)
{
	const int key = -8, val = -16, digits = -40, scratch = -104;
	const int inst = OFF(dtrace_mstate_t, instance);
	const int namemax = DT_PROBE_PRV_MAX - 12;	/* room for the pid */
	int fail = dt_as_label(as), reserve = dt_as_label(as);
	int named = dt_as_label(as);

	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R6, inst));
	EMIT(as, DT_STORE(BPF_W, DT_FP, key, DT_R1));
	EMIT(as, DT_STORE(BPF_W, DT_FP, key + 4, DT_R7));
	emit_lookup(as, dtp, "instance", key);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, reserve);
	EMIT(as, DT_LOAD(BPF_W, DT_R0, DT_R0, 0));
	EMIT(as, DT_EXIT());

	/* Reserve (pid, template), then take a PRID. */
	dt_as_place(as, reserve);
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, val, 0));
	emit_insert(as, dtp, "instance", key, val);
	dt_as_jump(as, BPF_JNE, DT_R0, 0, fail);
	EMIT(as, DT_STORE_IMM(BPF_W, DT_FP, val, DT_STATE_INST_NEXT));
	emit_lookup(as, dtp, "state", val);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, DT_R0, DT_R1, 0,
			 BPF_ADD | BPF_FETCH));
	dt_as_jump(as, BPF_JGE, DT_R1, (int32_t)dtp->inst_max, fail);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R1));

	/* r9 = probedesc[inst_base + index], the template's names copied. */
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)dtp->inst_base));
	EMIT(as, DT_STORE(BPF_W, DT_FP, val, DT_R1));
	emit_lookup(as, dtp, "probedesc", val);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
	EMIT(as, DT_MOV64_REG(DT_R9, DT_R0));
	EMIT(as, DT_STORE(BPF_W, DT_FP, val, DT_R7));
	emit_lookup(as, dtp, "probedesc", val);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
	EMIT(as, DT_MOV64_REG(DT_R3, DT_R0));
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R9));
	EMIT(as, DT_MOV64_IMM(DT_R2, sizeof(dt_probedesc_rt_t)));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));

	/* The pid after the provider name, when there is room. */
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R6, inst));
	emit_digits(as, digits);
	EMIT(as, DT_MOV64_REG(DT_R1, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, scratch));
	EMIT(as, DT_MOV64_IMM(DT_R2, DT_PROBE_PRV_MAX));
	EMIT(as, DT_MOV64_REG(DT_R3, DT_R9));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	EMIT(as, DT_ALU64_IMM(BPF_SUB, DT_R0, 1));
	dt_as_jump(as, BPF_JGT, DT_R0, namemax, named);
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R9));
	EMIT(as, DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(as, DT_MOV64_IMM(DT_R2, 11));
	EMIT(as, DT_MOV64_REG(DT_R3, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R3, digits));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_place(as, named);

	/* Its origin, for the consumer, then the instance entry. */
	EMIT(as, DT_STORE(BPF_W, DT_FP, val, DT_R8));
	emit_lookup(as, dtp, "instorigin", val);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R6, inst));
	EMIT(as, DT_STORE(BPF_W, DT_R0, OFF(dt_inst_origin_t, pid), DT_R1));
	EMIT(as, DT_STORE(BPF_W, DT_R0, OFF(dt_inst_origin_t, tprid), DT_R7));
	emit_lookup(as, dtp, "instance", key);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R8, (int32_t)dtp->inst_base));
	EMIT(as, DT_STORE(BPF_W, DT_R0, 0, DT_R8));
	EMIT(as, DT_MOV64_REG(DT_R0, DT_R8));
	EMIT(as, DT_EXIT());

	dt_as_place(as, fail);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
}

/* fp + prids[i] = the PRID entry i of the (0, cookie) overlay in r7 is
 * to have in the process's overlay: its own, made by inst_prid for a
 * template, else the same; fp + n holds the entries to do.  Jumps to
 * fail when inst_prid made none. */
static void emit_inst_prids(dtrace_hdl_t *dtp, dt_as_t *as, int n, int prids,
			    int inst_prid, int done, int fail)
{
	const uint32_t words = dt_clause_words(dtp->nclauses);

	_Static_assert(DT_OVERLAY_MAX == 4, "fp-32 holds 4 PRIDs");
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, prids, 0));
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, prids + 8, 0));

	for (int i = 0; i < DT_OVERLAY_MAX; i++) {
		const int ent = dt_ovl_ent_off(words, i);
		int store = dt_as_label(as);

		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_FP, n));
		dt_as_jump(as, BPF_JLE, DT_R1, i, done);
		EMIT(as, DT_LOAD(BPF_W, DT_R2, DT_R7,
				 ent + OFF(dt_ovlent_t, prid)));
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
				 ent + OFF(dt_ovlent_t, flags)));
		EMIT(as, DT_ALU64_IMM(BPF_AND, DT_R1, DT_OVL_TEMPLATE));
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, store);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		dt_as_call(as, inst_prid);
		dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R0));
		dt_as_place(as, store);
		EMIT(as, DT_STORE(BPF_W, DT_FP, prids + 4 * i, DT_R2));
	}
}

/* The overlay value in r0 gets the PRIDs at fp + prids, its entries no
 * template flag, and fp + n entries. */
static void emit_inst_patch(dtrace_hdl_t *dtp, dt_as_t *as, int n, int prids)
{
	const uint32_t words = dt_clause_words(dtp->nclauses);
	int done = dt_as_label(as);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_FP, n));
	EMIT(as, DT_STORE(BPF_W, DT_R0, OFF(dt_overlay_t, n), DT_R1));
	for (int i = 0; i < DT_OVERLAY_MAX; i++) {
		const int ent = dt_ovl_ent_off(words, i);

		dt_as_jump(as, BPF_JLE, DT_R1, i, done);
		EMIT(as, DT_LOAD(BPF_W, DT_R2, DT_FP, prids + 4 * i));
		EMIT(as, DT_STORE(BPF_W, DT_R0, ent + OFF(dt_ovlent_t, prid),
				  DT_R2));
		/* the process's probe: the template's flags but that one
		 * (the rest says whose trampoline reads its arguments) */
		EMIT(as, DT_LOAD(BPF_W, DT_R2, DT_R0,
				 ent + OFF(dt_ovlent_t, flags)));
		EMIT(as, DT_ALU32_IMM(BPF_AND, DT_R2, ~DT_OVL_TEMPLATE));
		EMIT(as, DT_STORE(BPF_W, DT_R0, ent + OFF(dt_ovlent_t, flags),
				  DT_R2));
	}
	dt_as_place(as, done);
}

/*
 * inst_overlay(mst, (0, cookie) overlay): the (pid, cookie) overlay made
 * from it, each template replaced by the process's own probe, or 0.
 * The value is inserted as a copy of the (0, cookie) one (its clause sets
 * may be too large for the stack), then given its PRIDs: a firing of the
 * process on another CPU in between runs under the templates, as it does
 * while the instance is being made.  Frame: fp-8 the overlay key, fp-16
 * the entries, fp-32 the PRIDs.
 */
void dt_inst_emit(dtrace_hdl_t *dtp, dt_as_t *as, int label)
{
	const int key = -8, n = -16, prids = -32;
	int fail = dt_as_label(as), build = dt_as_label(as);
	int inst_prid = dt_as_label(as), made = dt_as_label(as);

	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));
	int capped = dt_as_label(as);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_overlay_t, n)));
	dt_as_jump(as, BPF_JLE, DT_R1, DT_OVERLAY_MAX, capped);
	EMIT(as, DT_MOV64_IMM(DT_R1, DT_OVERLAY_MAX));
	dt_as_place(as, capped);
	EMIT(as, DT_STORE(BPF_DW, DT_FP, n, DT_R1));
	emit_inst_prids(dtp, as, n, prids, inst_prid, build, fail);
	dt_as_place(as, build);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R6, OFF(dtrace_mstate_t, instance)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, key, DT_R1));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R6,
			 OFF(dtrace_mstate_t, key.cookie)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, key + 4, DT_R1));
	emit_insert_from(as, dtp, "overlay", key, DT_R7);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
	emit_lookup(as, dtp, "overlay", key);
	/* Another CPU inserted it first: that one gives it its PRIDs. */
	dt_as_jump(as, BPF_JNE, DT_R8, 0, made);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, made);
	emit_inst_patch(dtp, as, n, prids);
	dt_as_place(as, made);
	EMIT(as, DT_EXIT());
	dt_as_place(as, fail);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());

	emit_inst_prid(dtp, as, inst_prid);
}

/* A probe made at run time, as its template and its names say. */
static dtrace_probe_t *inst_probe(dtrace_hdl_t *dtp, uint32_t id,
				  const dtrace_probe_t *t,
				  const dt_probedesc_rt_t *d)
{
	dtrace_probe_t *p = dt_zalloc(sizeof(*p));

	p->id = id;
	p->prv = dt_strdup(d->prv);
	p->mod = dt_strdup(t->mod);
	p->fun = dt_strdup(t->fun);
	p->prb = dt_strdup(t->prb);
	p->provider = t->provider;
	dt_probe_args_alloc(p, t->nargs);
	for (int i = 0; i < t->nargs; i++) {
		p->args[i] = t->args[i];
		p->argtypes[i] = t->argtypes[i];
		p->nativetypes[i] = t->nativetypes[i];
	}
	dt_cs_copy(&p->clauses, &t->clauses);
	p->attr = t->attr & ~DTRACE_PROBE_TEMPLATE;
	p->enabled = true;
	dt_probe_hash_add(dtp, p);
	return p;
}

/* Read the origin and names of the probe made with index i: 1 when it
 * is there, 0 when not written yet. */
static int inst_read(dtrace_hdl_t *dtp, uint32_t i, dt_inst_origin_t *o,
		     dt_probedesc_rt_t *d)
{
	uint32_t id = dtp->inst_base + i;

	if (bpf_map_lookup_elem(dt_bpf_map_find(dtp, "instorigin")->fd, &i,
				o) < 0 || o->tprid == 0)
		return 0;
	if (bpf_map_lookup_elem(dt_bpf_map_find(dtp, "probedesc")->fd, &id,
				d) < 0)
		return 0;
	d->prv[sizeof(d->prv) - 1] = '\0';
	return 1;
}

void dt_inst_import(dtrace_hdl_t *dtp)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	dtrace_map_t *orig = dt_bpf_map_find(dtp, "instorigin");
	uint32_t k = DT_STATE_INST_NEXT;
	uint64_t next = 0;

	if (dtp->inst_base == 0 || st == NULL || st->fd < 0 || orig == NULL ||
	    orig->fd < 0 || bpf_map_lookup_elem(st->fd, &k, &next) < 0)
		return;
	if (next >= dtp->inst_max && !dtp->inst_full) {
		dtp->inst_full = true;
		dt_warn(dtp, "the programs made %u probes of processes "
			"dtrace had not seen yet, as many as they may "
			"(-x procprobes): those of other such processes fire "
			"under the probes for every process until dtrace sees "
			"them", dtp->inst_max);
	}
	if (next > dtp->inst_max)
		next = dtp->inst_max;
	while (dtp->ninst < next) {
		dt_inst_origin_t o;
		dt_probedesc_rt_t d;

		if (!inst_read(dtp, dtp->ninst, &o, &d))
			return;	/* still being made: later */
		dtrace_probe_t *t = o.tprid <= dtp->nprobes ?
				    dtp->probes[o.tprid] : NULL;
		if (t == NULL)
			return;
		dt_array_room(dtp->inst, dtp->ninst, dtp->inst_cap);
		dtp->inst[dtp->ninst] = inst_probe(dtp, dtp->inst_base +
						   dtp->ninst, t, &d);
		dtp->ninst++;
	}
}
