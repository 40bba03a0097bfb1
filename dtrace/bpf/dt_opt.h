/* SPDX-License-Identifier: MIT */
/*
 * dt_opt.h: optimization of finished code (dt_opt.c).
 */
#ifndef DT_OPT_H
#define DT_OPT_H

#include <stdbool.h>
#include <stddef.h>
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

/* dt_opt_inline.c: dataflow over straight-line code, and functions run
 * inline at a program's entry. */

/* A field of some memory: size bytes at off, named by bit. */
typedef struct dt_opt_field {
	int64_t off, size;
	unsigned bit;
} dt_opt_field_t;

typedef struct dt_opt_fields {
	const dt_opt_field_t *f;
	size_t n;
} dt_opt_fields_t;

/* Which fields of fs (their bits or'ed) the instructions [from, to) of as
 * read (or write too, with stores) through register base, which points to
 * the memory, or through an address made from it while straight-line
 * code lasts; every field when that cannot be told. */
unsigned dt_opt_fields_used(const dt_as_t *as, uint32_t from, uint32_t to,
			    int base, const dt_opt_fields_t *fs, bool stores);

/* The instructions [from, to) of as become no-ops (the verifier drops
 * them): they hold no map reference and no jump to a label. */
void dt_opt_nop(dt_as_t *as, uint32_t from, uint32_t to);

/* A register of r6 to r9 where the context may wait while f (finished)
 * runs inline at a program's entry: one f leaves alone, or one that holds
 * the context all through f; -1 when f may not run inline (it calls a
 * subprogram, uses the stack, or is too long). */
int dt_opt_inline_reg(const dt_as_t *f);

/* f, which calls nothing and uses no stack, with its uses of r6 to r9
 * moved to caller-saved registers it leaves free, so that the entry it
 * runs inline at saves none; *spare: where the context waits meanwhile.
 * false when f is left as it was. */
bool dt_opt_caller_saved_all(dt_as_t *f, int *spare);

/* f appended to as, to run inline at the program's entry, the context in
 * spare meanwhile: its exits jump to a test of its return (0 ends the
 * firing), or past it where the return is known. */
void dt_opt_inline_at_entry(dt_as_t *as, const dt_as_t *f, int spare);

#endif /* DT_OPT_H */
