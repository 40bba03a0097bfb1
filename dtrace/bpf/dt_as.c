/* SPDX-License-Identifier: MIT */
/*
 * dt_as.c: the BPF assembler.
 *
 * Invariants: labels are indices into as->labels; a label is placed at most
 * once; every jump or call to a label is recorded as a fixup and patched by
 * dt_as_finish(), which is the only place offsets are computed.  Errors are
 * sticky: the first one is kept, later emission is ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_as.h"
#include "dt_impl.h"

static void as_fail(dt_as_t *as, int err, const char *msg)
{
	if (as->err == 0) {
		as->err = err;
		as->errmsg = msg;
	}
}

/* Grow an array of elem-sized items to hold at least n + 1 of them
 * (dt_array.h); false after as_fail() when memory ran out. */
static bool as_grow(dt_as_t *as, void **arr, int *cap, int n, size_t elem)
{
	size_t c = (size_t)*cap;

	if (dtrace_array_resize(arr, &c, (size_t)n + 1, elem) < 0) {
		as_fail(as, -ENOMEM, "out of memory");
		return false;
	}
	*cap = (int)c;
	return true;
}

void dt_as_init(dt_as_t *as)
{
	memset(as, 0, sizeof(*as));
}

void dt_as_fini(dt_as_t *as)
{
	free(as->insns);
	free(as->labels);
	free(as->fixups);
	free(as->maprels);
	free(as->other.insns);
	free(as->other.fixups);
	free(as->other.maprels);
	memset(as, 0, sizeof(*as));
}

/* Append n instructions at the end of as, with their nrels map
 * relocations (indices from the first of them). */
static void as_append_code(dt_as_t *as, const struct bpf_insn *insns,
			   uint32_t n, const dt_maprel_t *rels, int nrels)
{
	uint32_t base = as->ninsns;

	for (int i = 0; i < nrels && as->err == 0; i++) {
		if (!as_grow(as, (void **)&as->maprels, &as->maprels_cap,
			     as->nmaprels, sizeof(dt_maprel_t)))
			break;
		as->maprels[as->nmaprels++] = (dt_maprel_t){
			base + rels[i].insn, rels[i].map };
	}
	for (uint32_t i = 0; i < n; i++)
		dt_as_emit(as, insns[i]);
}

#define AS_SWAP(a, b) do {						\
		__typeof__(a) tmp_ = (a);				\
		(a) = (b);						\
		(b) = tmp_;						\
	} while (0)

/* The code and the cold block trade places: emission goes on into the
 * other one, with the same labels. */
static void as_swap_block(dt_as_t *as)
{
	dt_as_block_t *o = &as->other;

	AS_SWAP(as->insns, o->insns);
	AS_SWAP(as->ninsns, o->ninsns);
	AS_SWAP(as->cap, o->cap);
	AS_SWAP(as->fixups, o->fixups);
	AS_SWAP(as->nfixups, o->nfixups);
	AS_SWAP(as->fixups_cap, o->fixups_cap);
	AS_SWAP(as->maprels, o->maprels);
	AS_SWAP(as->nmaprels, o->nmaprels);
	AS_SWAP(as->maprels_cap, o->maprels_cap);
	as->in_cold = !as->in_cold;
}

void dt_as_cold(dt_as_t *as, bool on)
{
	if (on != as->in_cold)
		as_swap_block(as);
}

void dt_as_cold_place(dt_as_t *as)
{
	dt_as_block_t *c = &as->other;
	uint32_t base = as->ninsns;

	if (as->in_cold) {
		as_fail(as, -EINVAL, "cold code placed within itself");
		return;
	}
	for (int i = 0; i < c->nfixups && as->err == 0; i++) {
		if (!as_grow(as, (void **)&as->fixups, &as->fixups_cap,
			     as->nfixups, sizeof(dt_fixup_t)))
			break;
		as->fixups[as->nfixups++] = (dt_fixup_t){
			base + c->fixups[i].insn, c->fixups[i].label };
	}
	as_append_code(as, c->insns, c->ninsns, c->maprels, c->nmaprels);
	for (int l = 0; l < as->nlabels; l++)
		if (as->labels[l] <= -2)
			as->labels[l] = (int32_t)base - 2 - as->labels[l];
	c->ninsns = 0;
	c->nfixups = 0;
	c->nmaprels = 0;
}

void dt_as_emit(dt_as_t *as, struct bpf_insn insn)
{
	if (as->err)
		return;
	if (as->ninsns >= DT_AS_MAX_INSNS) {
		as_fail(as, -E2BIG, "program too large");
		return;
	}
	int cap = (int)as->cap;
	if (!as_grow(as, (void **)&as->insns, &cap, (int)as->ninsns,
		     sizeof(struct bpf_insn)))
		return;
	as->cap = (uint32_t)cap;
	as->insns[as->ninsns++] = insn;
}

int dt_as_label(dt_as_t *as)
{
	if (!as_grow(as, (void **)&as->labels, &as->labels_cap, as->nlabels,
		     sizeof(int32_t)))
		return 0;
	as->labels[as->nlabels] = -1;
	return as->nlabels++;
}

void dt_as_place(dt_as_t *as, int label)
{
	if (as->err)
		return;
	if (label < 0 || label >= as->nlabels || as->labels[label] != -1) {
		as_fail(as, -EINVAL, "label placed twice or unknown");
		return;
	}
	as->labels[label] = as->in_cold ? -2 - (int32_t)as->ninsns
				      : (int32_t)as->ninsns;
}

static bool fixups_name(const dt_fixup_t *fixups, int n, int label)
{
	for (int i = 0; i < n; i++)
		if (fixups[i].label == label)
			return true;
	return false;
}

bool dt_as_label_used(const dt_as_t *as, int label)
{
	return fixups_name(as->fixups, as->nfixups, label) ||
	       fixups_name(as->other.fixups, as->other.nfixups, label);
}

static void as_fixup(dt_as_t *as, int label)
{
	if (!as_grow(as, (void **)&as->fixups, &as->fixups_cap, as->nfixups,
		     sizeof(dt_fixup_t)))
		return;
	as->fixups[as->nfixups++] = (dt_fixup_t){ as->ninsns, label };
}

void dt_as_jump(dt_as_t *as, int op, int reg, int32_t imm, int label)
{
	if (as->err)
		return;
	as_fixup(as, label);
	if (op == BPF_JA)
		dt_as_emit(as, DT_INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0));
	else
		dt_as_emit(as, DT_INSN(BPF_JMP | op | BPF_K, reg, 0, 0, imm));
}

void dt_as_jump_reg(dt_as_t *as, int op, int reg, int sreg, int label)
{
	if (as->err)
		return;
	as_fixup(as, label);
	dt_as_emit(as, DT_INSN(BPF_JMP | op | BPF_X, reg, sreg, 0, 0));
}

void dt_as_call(dt_as_t *as, int label)
{
	if (as->err)
		return;
	as_fixup(as, label);
	dt_as_emit(as, DT_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
}

void dt_as_ld_func(dt_as_t *as, int reg, int label)
{
	if (as->err)
		return;
	as_fixup(as, label);
	dt_as_emit(as, DT_LD_IMM64_LO(reg, BPF_PSEUDO_FUNC, 0));
	dt_as_emit(as, DT_LD_IMM64_HI(0));
}

void dt_as_ld_imm64(dt_as_t *as, int reg, uint64_t value)
{
	dt_as_emit(as, DT_LD_IMM64_LO(reg, 0, value));
	dt_as_emit(as, DT_LD_IMM64_HI(value));
}

void dt_as_load_map(dt_as_t *as, int reg, dtrace_map_t *map)
{
	if (as->err)
		return;
	if (!as_grow(as, (void **)&as->maprels, &as->maprels_cap,
		     as->nmaprels, sizeof(dt_maprel_t)))
		return;
	as->maprels[as->nmaprels++] = (dt_maprel_t){ as->ninsns, map };
	dt_as_emit(as, DT_LD_IMM64_LO(reg, BPF_PSEUDO_MAP_FD, 0));
	dt_as_emit(as, DT_LD_IMM64_HI(0));
}

void dt_as_array_lookup(dt_as_t *as, dtrace_map_t *map, int32_t key)
{
	dt_as_emit(as, DT_STORE_IMM(BPF_W, DT_FP, -8, key));
	dt_as_load_map(as, DT_R1, map);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
}

int dt_as_finish(dt_as_t *as)
{
	if (as->in_cold || as->other.ninsns > 0)
		as_fail(as, -EINVAL, "cold code never placed");
	for (int i = 0; i < as->nfixups && as->err == 0; i++) {
		dt_fixup_t *f = &as->fixups[i];
		int32_t target = as->labels[f->label];
		if (target < 0) {
			as_fail(as, -EINVAL, "jump to a label never placed");
			break;
		}
		int64_t rel = (int64_t)target - (int64_t)f->insn - 1;
		struct bpf_insn *in = &as->insns[f->insn];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			in->imm = (int32_t)rel;	/* BPF_PSEUDO_FUNC */
		} else if (BPF_OP(in->code) == BPF_CALL) {
			in->imm = (int32_t)rel;
		} else if (rel < INT16_MIN || rel > INT16_MAX) {
			as_fail(as, -E2BIG, "jump out of range");
		} else {
			in->off = (int16_t)rel;
		}
	}
	as->nfixups = 0;	/* resolved: the block is now position free */
	return as->err;
}

uint32_t dt_as_append(dt_as_t *as, const dt_as_t *src)
{
	uint32_t base = as->ninsns;

	if (src->err)
		as_fail(as, src->err, src->errmsg);
	as_append_code(as, src->insns, src->ninsns, src->maprels,
		       src->nmaprels);
	return base;
}
