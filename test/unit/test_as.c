/* SPDX-License-Identifier: MIT */
/*
 * test_as.c: the assembler's cold block (dt_as.c): code emitted cold lands
 * where dt_as_cold_place() puts it, with its labels, jumps and map loads
 * moved along, jumps between it and the rest resolved, and cold code that
 * is never placed is an error.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_as.h"
#include "unit_check.h"

/* hot: r0 = 1; if r1 == 0 goto cold; back: exit (the function's end);
 * cold: r0 = map; goto back.  The cold block follows the exit. */
static void test_cold_placed(void)
{
	dt_as_t as;
	dtrace_map_t *map = (dtrace_map_t *)&as;	/* any address */

	dt_as_init(&as);
	int cold = dt_as_label(&as), back = dt_as_label(&as);
	dt_as_emit(&as, DT_MOV64_IMM(DT_R0, 1));
	dt_as_jump(&as, BPF_JEQ, DT_R1, 0, cold);
	dt_as_cold(&as, true);
	dt_as_place(&as, cold);
	dt_as_load_map(&as, DT_R0, map);
	dt_as_jump(&as, BPF_JA, 0, 0, back);
	dt_as_cold(&as, false);
	dt_as_place(&as, back);
	dt_as_emit(&as, DT_EXIT());
	CHECK(as.ninsns == 3);
	dt_as_cold_place(&as);
	CHECK(dt_as_finish(&as) == 0);
	CHECK(as.ninsns == 6);
	/* 1: if r1 == 0 goto 3 (the cold block's first instruction). */
	CHECK(as.insns[1].off == 1);
	/* 3, 4: the map load, its relocation moved with it. */
	CHECK(as.insns[3].code == (BPF_LD | BPF_DW | BPF_IMM));
	CHECK(as.nmaprels == 1 && as.maprels[0].insn == 3 &&
	      as.maprels[0].map == map);
	/* 5: goto 2, the exit. */
	CHECK(as.insns[5].code == (BPF_JMP | BPF_JA) && as.insns[5].off == -4);
	dt_as_fini(&as);
}

/* Two cold blocks in one emitter, each placed at the end of its own
 * function, and a label placed in each. */
static void test_cold_twice(void)
{
	dt_as_t as;

	dt_as_init(&as);
	int a = dt_as_label(&as), b = dt_as_label(&as);
	for (int f = 0; f < 2; f++) {
		int label = f == 0 ? a : b;
		dt_as_jump(&as, BPF_JA, 0, 0, label);
		dt_as_cold(&as, true);
		dt_as_place(&as, label);
		dt_as_emit(&as, DT_MOV64_IMM(DT_R0, f));
		dt_as_emit(&as, DT_EXIT());
		dt_as_cold(&as, false);
		dt_as_cold_place(&as);
	}
	CHECK(dt_as_finish(&as) == 0);
	CHECK(as.ninsns == 6);
	CHECK(as.insns[0].off == 0 && as.insns[1].imm == 0);
	CHECK(as.insns[3].off == 0 && as.insns[4].imm == 1);
	dt_as_fini(&as);
}

/* Cold code never placed: dt_as_finish() fails, the code is not used. */
static void test_cold_unplaced(void)
{
	dt_as_t as;

	dt_as_init(&as);
	dt_as_emit(&as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_cold(&as, true);
	dt_as_emit(&as, DT_EXIT());
	dt_as_cold(&as, false);
	dt_as_emit(&as, DT_EXIT());
	CHECK(dt_as_finish(&as) != 0);
	dt_as_fini(&as);

	/* Nor may it be placed while it is being emitted. */
	dt_as_init(&as);
	dt_as_cold(&as, true);
	dt_as_emit(&as, DT_EXIT());
	dt_as_cold_place(&as);
	CHECK(dt_as_finish(&as) != 0);
	dt_as_fini(&as);
}

int main(void)
{
	test_cold_placed();
	test_cold_twice();
	test_cold_unplaced();
	return failures ? 1 : 0;
}
