/* SPDX-License-Identifier: MIT */
/*
 * dt_opt.h: optimization of finished code (dt_opt.c).
 */
#ifndef DT_OPT_H
#define DT_OPT_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_as.h"

/* The function of as (finished: dt_as_finish()) that starts at start,
 * with its double words copied from the context to its stack loaded from
 * the context where they are used, and its dead code made no-ops;
 * ctx_in_r1: r1 holds the context on entry.  Returns the number of
 * instructions changed (0 when the function is left as it is). */
int dt_opt_function(dt_as_t *as, uint32_t start, bool ctx_in_r1);

/* The function of as (finished) that starts at start, its jumps all going
 * forward: past its last call, each of r6 to r9 whose values there are all
 * made there moved, with their uses, to a register of r2 to r5 it leaves
 * free, so that the function saves fewer registers in its prologue.
 * Returns the number of registers moved. */
int dt_opt_caller_saved_tail(dt_as_t *as, uint32_t start, bool ctx_in_r1);

/* What each exit of as (finished) returns, as a truth, when it is known
 * there: truth[i] (as->ninsns of them) is 0 or 1 where the exit at i is
 * reached only from the instruction before, which sets r0 to a number,
 * else -1.  Code run inline jumps from such an exit past the test of its
 * return. */
void dt_opt_exit_truths(const dt_as_t *as, int8_t *truth);

/* The bytes the memory access of the load or store in spans. */
int dt_insn_access_size(const struct bpf_insn *in);

#endif /* DT_OPT_H */
