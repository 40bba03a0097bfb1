/* SPDX-License-Identifier: MIT */
/*
 * dt_as.h: the BPF assembler.
 *
 * Code is built through one emitter per program (or per clause).  Emission
 * never fails on the spot: an error (out of memory, too many instructions,
 * an unplaced label) is sticky and reported once by dt_as_finish().  Jumps
 * and calls name labels; dt_as_finish() resolves them, after which the code
 * is position independent (relative jumps and calls) except for map loads,
 * which stay as relocations until the program is loaded.  A finished
 * emitter can therefore be appended to another one as a block.
 */
#ifndef DT_AS_H
#define DT_AS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <dtrace/provider.h>

#define DT_AS_MAX_INSNS	(1u << 20)

typedef struct dt_maprel {
	uint32_t insn;		/* index of the first half of the ld_imm64 */
	dtrace_map_t *map;
} dt_maprel_t;

typedef struct dt_fixup {
	uint32_t insn;
	int label;
} dt_fixup_t;

/* Code apart from the emitter's: its cold block (dt_as_cold()). */
typedef struct dt_as_block {
	struct bpf_insn *insns;
	uint32_t ninsns, cap;
	dt_fixup_t *fixups;
	int nfixups, fixups_cap;
	dt_maprel_t *maprels;
	int nmaprels, maprels_cap;
} dt_as_block_t;

struct dtrace_emitter {
	struct bpf_insn *insns;
	uint32_t ninsns, cap;
	int32_t *labels;	/* instruction index of each label, -1 unplaced,
				   -2 - i: at i of the cold block */
	int nlabels, labels_cap;
	dt_fixup_t *fixups;	/* jumps and calls to labels */
	int nfixups, fixups_cap;
	dt_maprel_t *maprels;
	int nmaprels, maprels_cap;
	dt_as_block_t other;	/* the cold block, or while it is emitted
				   (in_cold) the code */
	bool in_cold;
	int err;		/* sticky: 0 or -errno */
	const char *errmsg;
};

typedef struct dtrace_emitter dt_as_t;

void dt_as_init(dt_as_t *as);
void dt_as_fini(dt_as_t *as);
void dt_as_emit(dt_as_t *as, struct bpf_insn insn);
int dt_as_label(dt_as_t *as);
void dt_as_place(dt_as_t *as, int label);
/* Whether a jump or call emitted so far names label. */
bool dt_as_label_used(const dt_as_t *as, int label);
/* Conditional jump: if (reg op imm) goto label; op BPF_JA: always. */
void dt_as_jump(dt_as_t *as, int op, int reg, int32_t imm, int label);
/* Conditional jump comparing two registers. */
void dt_as_jump_reg(dt_as_t *as, int op, int reg, int sreg, int label);
/* BPF-to-BPF call of the subprogram that starts at label. */
void dt_as_call(dt_as_t *as, int label);
void dt_as_ld_imm64(dt_as_t *as, int reg, uint64_t value);
/* reg = the address of the subprogram at label (BPF_PSEUDO_FUNC), for
 * helpers that take a callback such as bpf_loop. */
void dt_as_ld_func(dt_as_t *as, int reg, int label);
void dt_as_load_map(dt_as_t *as, int reg, dtrace_map_t *map);
/* r0 = lookup(map, &key), the 4-byte key staged at fp-8 (the caller's
 * stack slot for keys); r0 may be NULL.  Clobbers r1-r5. */
void dt_as_array_lookup(dt_as_t *as, dtrace_map_t *map, int32_t key);
/* Emit into the cold block (on) or back into the code.  The cold block's
 * instructions go where dt_as_cold_place() puts them, away from the
 * pages a firing runs through: code that rarely runs (the program's
 * engine places its trampolines' cold functions after all others).
 * Labels, jumps and calls work across both. */
void dt_as_cold(dt_as_t *as, bool on);
/* Place the cold block here and empty it. */
void dt_as_cold_place(dt_as_t *as);
/* Resolve labels; returns 0 or the sticky error (also when cold code was
 * never placed). */
int dt_as_finish(dt_as_t *as);
/* Append the finished block src at the end of as; returns the instruction
 * index where it starts (a label may be placed there by the caller). */
uint32_t dt_as_append(dt_as_t *as, const dt_as_t *src);

/* dt_dis.c: disassemble, one instruction a line, as -S shows it. */
void dt_dis(FILE *out, const struct bpf_insn *insns, uint32_t n,
	    const char *(*mapname)(void *arg, uint32_t insn), void *arg);
/* Format one instruction; returns the number of slots it takes (1 or 2). */
int dt_dis_insn(char *buf, size_t len, const struct bpf_insn *insns,
		uint32_t i, uint32_t n);

#endif /* DT_AS_H */
