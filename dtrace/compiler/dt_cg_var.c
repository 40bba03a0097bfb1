/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_var.c: D variables: their storage, and the code that reads and
 * writes them.  The checker declares them in the session's table
 * (dt_idtab_t); dt_var_place_new() gives each its storage.
 *
 * Storage (every integer or pointer takes an 8-byte slot holding the value
 * normalized to its type; a string takes strsize bytes):
 *   global scalar	a slot in the one value of the "globals" ARRAY map
 *   global a[k...]	HASH map "assoc_NAME", key: the tuple
 *   self->x		HASH map "self_NAME", key: the thread id (8 bytes)
 *   self->a[k...]	HASH map "self_NAME", key: thread id, then the tuple
 *   this->x		a slot in the mstate area (kept across the clauses of
 *			one firing, as DTrace does)
 * A struct, union or array variable takes its size, rounded up to 8, and
 * reads as its address (dt_cg_sou.c).
 * Tuple keys: integers as 8 bytes, strings strsize bytes NUL padded, a
 * struct or union its bytes in its slot (zero padded).  A
 * missing element reads as 0, a string one as NULL (DTrace's unset
 * element).  Storing 0 (or a NULL string) into a map-backed variable
 * deletes the element; a full map counts cpuinfo.dyn_drops.  A NULL string
 * in a slot is marked by its first two bytes (STR_NULL_MARK), so that it
 * reads back as NULL.
 *
 * Keys are built in the mstate's key area.  A key component may itself
 * read an associative array (a[b[1]]), so keys nest: each nesting level has
 * its own area (st->off_key + level * st->key_max).
 */
#include <string.h>
#include <stdio.h>

#include "dt_cg_impl.h"

#define DT_VAR_NENTRIES	65536	/* dynamic variables per map */
#define DT_KEY_LEVELS	2

/* The first two bytes of a slot holding a NULL string, read as one
 * little-endian halfword: 0x00, as the empty string (whoever copies the
 * slot as a string sees ""), then 0x7f.  Storing a string clears the
 * second byte, so an empty string is never taken for NULL.  strsize is at
 * least 2 (dt_options.c). */
#define STR_NULL_MARK	0x7f00

uint32_t dt_var_slot_size(dt_cg_state_t *st, const dt_type_t *t)
{
	if (dt_sou_type(t))	/* by value (dt_cg_sou.c) */
		return ((uint32_t)t->size + 7) & ~7u;
	return t->kind == DT_TK_STRING ? st->strroom : 8;
}

uint32_t dt_cg_key_size(dt_cg_state_t *st, dt_type_t **keys, int nkeys,
			bool tid)
{
	uint32_t size = tid ? 8 : 0;

	for (int i = 0; i < nkeys; i++)
		size += dt_var_slot_size(st, keys[i]);
	return size;
}

/* The most elements a hash map may hold: the kernel gives it a power of
 * two of 16-byte buckets and refuses more than 4 GiB of them (E2BIG). */
#define VAR_NENTRIES_MAX (1u << 27)

/* The elements a dynamic variable's map holds: DT_VAR_NENTRIES, or as
 * many as -x dynvarsize bytes hold (key and value), at least one and at
 * most what the kernel takes. */
static uint32_t var_nentries(const dt_cg_state_t *st, const dt_ident_t *id)
{
	uint64_t size = st->dtp->opt.dynvarsize, n;

	if (size == 0)
		return DT_VAR_NENTRIES;
	n = size / (id->ksize + id->vsize);
	return n == 0 ? 1 : n > VAR_NENTRIES_MAX ? VAR_NENTRIES_MAX : (uint32_t)n;
}

/* Whether -x dynvarsize has no room for one element (key and value) of
 * dynamic variable id: DTrace then runs, and each store of the variable is
 * a dynamic variable drop. */
static bool var_no_room(const dt_cg_t *cx, const dt_ident_t *id)
{
	uint64_t size = cx->st->dtp->opt.dynvarsize;

	return size != 0 && (uint64_t)id->ksize + id->vsize > size;
}

static void var_map(dt_cg_t *cx, dt_ident_t *id, const char *prefix)
{
	char name[256];
	bool tid = id->kind == DT_IK_SELF;

	id->ksize = dt_cg_key_size(cx->st, id->keys, id->nkeys < 0 ? 0 :
				   id->nkeys, tid);
	if (id->ksize == 0)
		dt_cg_ice(cx, "associative array without keys");
	if (id->ksize > cx->st->key_max)
		dt_pcb_error(cx->pcb, D_ARR_KEYS, id->line, "the keys of %s "
			     "take %u bytes, more than the %u available",
			     id->name, id->ksize, cx->st->key_max);
	id->vsize = dt_var_slot_size(cx->st, id->type);
	if (dt_sou_type(id->type))
		dt_sou_zero_map(cx->st, id->vsize);
	snprintf(name, sizeof(name), "%s%s", prefix, id->name);
	id->map = dt_cg_map(cx->st, name, BPF_MAP_TYPE_HASH, id->ksize,
			    id->vsize, var_nentries(cx->st, id));
}

/* Storage for id, which the checker declared: a variable's (an
 * aggregation's comes with its description, dt_cg_agg.c; an inline has
 * none). */
static void var_place(dt_cg_t *cx, dt_ident_t *id)
{
	dt_cg_state_t *st = cx->st;

	if (id->kind != DT_IK_GLOBAL && id->kind != DT_IK_SELF &&
	    id->kind != DT_IK_THIS)
		return;
	uint32_t slot = dt_var_slot_size(st, id->type);
	if (id->kind == DT_IK_SELF) {
		var_map(cx, id, "self_");
	} else if (id->kind == DT_IK_GLOBAL && id->nkeys >= 0) {
		var_map(cx, id, "assoc_");
	} else if (id->kind == DT_IK_GLOBAL) {
		id->offset = st->globals_size;
		st->globals_size += slot;
	} else if (id->kind == DT_IK_THIS) {
		id->offset = st->off_this + st->this_size;
		st->this_size += slot;
	}
}

void dt_var_place_new(dt_cg_t *cx)
{
	dt_cg_state_t *st = cx->st;
	dt_ident_t *id;
	size_t n = 0, i = 0;

	for (id = st->idents.list; id != st->placed; id = id->next)
		n++;
	if (n == 0)
		return;
	dt_ident_t **fresh = dt_pcb_alloc(cx->pcb, n * sizeof(*fresh));
	for (id = st->idents.list; id != st->placed; id = id->next)
		fresh[i++] = id;
	/* oldest first; each one placed before the next may fail the
	 * compile (var_map()) */
	while (i-- > 0) {
		var_place(cx, fresh[i]);
		st->placed = fresh[i];
	}
}

/* ---- keys ---- */

/* Zero size bytes at mstate offset off with immediate stores. */
static void zero_mst(dt_cg_t *cx, uint32_t off, uint32_t size)
{
	for (uint32_t i = 0; i < size; i += 8)
		dt_cg_emit(cx, DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(off + i),
					    0));
}

/* Copy the string in src_reg to mstate offset dst, NUL padded to strsize
 * (keys must compare equal byte for byte). */
static void key_str(dt_cg_t *cx, uint32_t dst, int src_reg)
{
	zero_mst(cx, dst, cx->st->strroom);
	dt_cg_mst_ptr(cx, DT_R1, dst);
	dt_cg_emit(cx, DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
	dt_cg_emit(cx, DT_MOV64_REG(DT_R3, src_reg));
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
}

static uint32_t key_area(dt_cg_t *cx)
{
	return cx->st->off_key + (uint32_t)cx->key_level * cx->st->key_max;
}

void dt_cg_key(dt_cg_t *cx, dt_node_t *args, int64_t prefix, uint32_t ksize)
{
	if (cx->key_level >= DT_KEY_LEVELS)
		dt_pcb_error(cx->pcb, D_ARR_KEYS, args ? args->line : 0,
			     "associative array keys nested too deeply");
	uint32_t base = key_area(cx), off = base;

	if (prefix == DT_KEY_TID) {
		/* The thread id: the low half of get_current_pid_tgid. */
		dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
		dt_cg_emit(cx, DT_MOV32_REG(DT_R0, DT_R0));
		dt_cg_emit(cx, DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R0));
		off += 8;
	} else if (prefix >= 0) {
		dt_cg_emit(cx, DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)off,
					    (int32_t)prefix));
		off += 8;
	}
	for (dt_node_t *a = args; a != NULL; a = a->next)
		off += dt_cg_key_part(cx, a, off);
	if (off - base != ksize)
		dt_cg_ice(cx, "key size mismatch");
}

uint32_t dt_cg_key_part(dt_cg_t *cx, dt_node_t *a, uint32_t off)
{
	uint32_t ntemps = cx->ntemps, size = 8;

	if (dt_check_is_stack_call(a)) { /* aggregation keys only */
		dt_recdesc_t rd = { 0 };
		dt_cg_stack_desc(cx->st, a, &rd);
		dt_cg_stack(cx, a, &rd, off);
		return rd.size;
	}
	cx->key_level++;
	int r = dt_cg_expr(cx, a);
	cx->key_level--;
	if (dt_check_is_string(a->type)) {
		key_str(cx, off, r);
		size = cx->st->strroom;
	} else if (dt_sou_type(a->type)) {
		/* its bytes, the slot's padding zeroed: keys compare whole */
		size = dt_var_slot_size(cx->st, a->type);
		if (size != a->type->size)
			zero_mst(cx, off + size - 8, 8);
		dt_sou_copy_to_mst(cx, off, r, a, (uint32_t)a->type->size);
	} else {
		dt_cg_emit(cx, DT_STORE(BPF_DW, DT_R9, (int16_t)off, r));
	}
	dt_regs_give(cx, r);
	cx->ntemps = ntemps;	/* the value is in the key now */
	return size;
}

/* Build the key of a map-backed variable at key_area(); r2 = its address. */
static void var_key(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys)
{
	dt_cg_key(cx, keys, id->kind == DT_IK_SELF ? DT_KEY_TID : DT_KEY_PLAIN,
		  id->ksize);
	dt_cg_mst_ptr(cx, DT_R2, key_area(cx));
}

/* ---- loads ---- */

/* Whether id lives in a slot of the globals or the mstate, not in a map
 * (where a NULL string is an absent element, never a mark). */
static bool in_slot(const dt_ident_t *id)
{
	return id->kind == DT_IK_THIS ||
	       (id->kind == DT_IK_GLOBAL && id->nkeys < 0);
}

/* reg = the value stored at ptr_reg + off (scalar) or its address, 0 for
 * a slot marked as holding a NULL string.  Uses r1. */
static void load_slot(dt_cg_t *cx, dt_ident_t *id, int reg, int ptr_reg,
		      int16_t off)
{
	if (dt_sou_type(id->type)) {	/* its address */
		dt_cg_emit(cx, DT_MOV64_REG(reg, ptr_reg));
		if (off != 0)
			dt_cg_emit(cx, DT_ALU64_IMM(BPF_ADD, reg, off));
	} else if (dt_check_is_string(id->type)) {
		dt_cg_emit(cx, DT_MOV64_REG(reg, ptr_reg));
		if (off != 0)
			dt_cg_emit(cx, DT_ALU64_IMM(BPF_ADD, reg, off));
		if (!in_slot(id))
			return;
		int done = dt_as_label(cx->as);
		dt_cg_emit(cx, DT_LOAD(BPF_H, DT_R1, reg, 0));
		dt_as_jump(cx->as, BPF_JNE, DT_R1, STR_NULL_MARK, done);
		dt_cg_emit(cx, DT_MOV64_IMM(reg, 0));
		dt_as_place(cx->as, done);
	} else {
		dt_cg_emit(cx, DT_LOAD(BPF_DW, reg, ptr_reg, off));
	}
}

static int globals_fail_label(dt_cg_t *cx)
{
	/* A lookup of key 0 of an ARRAY map cannot fail; the verifier still
	 * wants the NULL check, which ends the clause quietly. */
	return cx->lbl_end;
}

static dtrace_map_t *globals_map(dt_cg_t *cx)
{
	return dt_cg_map(cx->st, "globals", BPF_MAP_TYPE_ARRAY, 4, 0, 1);
}

/* Whether the expressions of list n name a global scalar. */
static bool names_globals(const dt_node_t *n)
{
	for (; n != NULL; n = n->next) {
		if (n->kind == DT_N_IDENT && n->ident != NULL &&
		    n->ident->kind == DT_IK_GLOBAL && n->ident->nkeys < 0)
			return true;
		if (names_globals(n->l) || names_globals(n->r) ||
		    names_globals(n->cond) || names_globals(n->args))
			return true;
	}
	return false;
}

/*
 * A clause keeps the globals' value in its frame (DT_FRAME_GLOBALS): the
 * verifier then follows one NULL branch per clause rather than one per
 * global, each of which would stay pending to the end of the program (it
 * refuses a program with more than 8192: a few thousand assignments to
 * globals).  A clause that names globals looks the value up as it starts
 * and its globals read it from the frame; any other (a global reached
 * through an inline) looks it up at its first global on the path it runs,
 * 0 in the frame until then, at the cost of a test at each.
 */
void dt_cg_globals_start(dt_cg_t *cx, const dt_clause_ast_t *c)
{
	cx->globals_ready = names_globals(c->pred) || names_globals(c->body);
	if (!cx->globals_ready) {
		dt_cg_emit(cx, DT_STORE_IMM(BPF_DW, DT_FP, DT_FRAME_GLOBALS, 0));
		return;
	}
	dt_cg_array_value(cx, globals_map(cx), globals_fail_label(cx));
	dt_cg_emit(cx, DT_STORE(BPF_DW, DT_FP, DT_FRAME_GLOBALS, DT_R0));
}

/* r0 = the globals' value (looked up when the frame has none yet). */
static void globals_value(dt_cg_t *cx)
{
	dt_cg_emit(cx, DT_LOAD(BPF_DW, DT_R0, DT_FP, DT_FRAME_GLOBALS));
	if (cx->globals_ready)
		return;
	int have = dt_as_label(cx->as);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
	dt_cg_array_value(cx, globals_map(cx), globals_fail_label(cx));
	dt_cg_emit(cx, DT_STORE(BPF_DW, DT_FP, DT_FRAME_GLOBALS, DT_R0));
	dt_as_place(cx->as, have);
}

/* r0 = the globals' value, moved on when id's slot lies beyond an
 * instruction's 16-bit offset (tens of thousands of globals); returns the
 * offset of id's slot from r0. */
static int16_t globals_slot(dt_cg_t *cx, dt_ident_t *id)
{
	globals_value(cx);
	if (id->offset <= INT16_MAX)
		return (int16_t)id->offset;
	dt_cg_emit(cx, DT_ALU64_IMM(BPF_ADD, DT_R0, (int32_t)id->offset));
	return 0;
}

int dt_cg_var_load(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys)
{
	if (id->kind == DT_IK_THIS) {
		int reg = dt_regs_take(cx);
		load_slot(cx, id, reg, DT_R9, (int16_t)id->offset);
		return reg;
	}
	if (id->kind == DT_IK_GLOBAL && id->nkeys < 0) {
		int16_t off = globals_slot(cx, id);
		int reg = dt_regs_take(cx);
		load_slot(cx, id, reg, DT_R0, off);
		return reg;
	}
	/* map-backed: look the key up; a missing element reads as 0 / "" */
	var_key(cx, id, keys);
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	int reg = dt_regs_take(cx);
	int found = dt_as_label(cx->as), done = dt_as_label(cx->as);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, found);
	if (dt_sou_type(id->type)) {		/* zeros */
		dt_cg_array_value(cx, dt_sou_zero_map(cx->st, id->vsize),
				  cx->lbl_end);
		dt_cg_emit(cx, DT_MOV64_REG(reg, DT_R0));
	} else {
		dt_cg_emit(cx, DT_MOV64_IMM(reg, 0));	/* 0, or NULL */
	}
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, found);
	load_slot(cx, id, reg, DT_R0, 0);
	dt_as_place(cx->as, done);
	return reg;
}

/* ---- stores ---- */

/* Copy the string in src to the address in dst_reg (one of r1..r5 is fine:
 * it is consumed before the call). */
static void copy_str_to(dt_cg_t *cx, int dst_reg, int src)
{
	if (dst_reg != DT_R1)
		dt_cg_emit(cx, DT_MOV64_REG(DT_R1, dst_reg));
	dt_cg_emit(cx, DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
	dt_cg_emit(cx, DT_MOV64_REG(DT_R3, src));
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
}

static void store_slot(dt_cg_t *cx, dt_ident_t *id, int ptr_reg, int16_t off,
		       int reg)
{
	if (dt_check_is_string(id->type)) {
		int null = dt_as_label(cx->as), done = dt_as_label(cx->as);

		dt_cg_emit(cx, DT_MOV64_REG(DT_R1, ptr_reg));
		if (off != 0)
			dt_cg_emit(cx, DT_ALU64_IMM(BPF_ADD, DT_R1, off));
		dt_as_jump(cx->as, BPF_JEQ, reg, 0, null);
		dt_cg_emit(cx, DT_STORE_IMM(BPF_H, DT_R1, 0, 0));
		copy_str_to(cx, DT_R1, reg);
		dt_as_jump(cx->as, BPF_JA, 0, 0, done);
		dt_as_place(cx->as, null);
		dt_cg_emit(cx, DT_STORE_IMM(BPF_H, DT_R1, 0, STR_NULL_MARK));
		dt_as_place(cx->as, done);
	} else {
		dt_cg_emit(cx, DT_STORE(BPF_DW, ptr_reg, off, reg));
	}
}

static void store_map(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys, int reg)
{
	int del = dt_as_label(cx->as), done = dt_as_label(cx->as);

	var_key(cx, id, keys);
	if (var_no_room(cx, id)) {	/* storing 0 deletes: nothing to do */
		dt_as_jump(cx->as, BPF_JEQ, reg, 0, done);
		dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, dyn_drops));
		dt_as_place(cx->as, del);
		dt_as_place(cx->as, done);
		return;
	}
	dt_as_jump(cx->as, BPF_JEQ, reg, 0, del);	/* 0 or a NULL string */
	dt_as_load_map(cx->as, DT_R1, id->map);
	if (dt_check_is_string(id->type)) {
		dt_cg_emit(cx, DT_MOV64_REG(DT_R3, reg));
	} else {
		/* stage the value in the scratch area */
		dt_cg_emit(cx, DT_STORE(BPF_DW, DT_R9,
					(int16_t)(cx->st->off_scratch + 8), reg));
		dt_cg_mst_ptr(cx, DT_R3, cx->st->off_scratch + 8);
	}
	dt_cg_emit(cx, DT_MOV64_IMM(DT_R4, BPF_ANY));
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_map_update_elem));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, done);
	dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, dyn_drops));
	/* assigning 0 deletes the element */
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, del);
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_map_delete_elem));
	dt_as_place(cx->as, done);
}

void dt_cg_var_delete(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys)
{
	var_key(cx, id, keys);
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_emit(cx, DT_CALL_HELPER(BPF_FUNC_map_delete_elem));
}

void dt_cg_var_store(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys, int reg,
		     dt_type_t *vt)
{
	dt_regs_check(cx, reg);
	if (!dt_check_is_string(id->type))
		dt_cg_convert(cx, reg, vt, id->type);
	if (id->kind == DT_IK_THIS) {
		store_slot(cx, id, DT_R9, (int16_t)id->offset, reg);
	} else if (id->kind == DT_IK_GLOBAL && id->nkeys < 0) {
		store_slot(cx, id, DT_R0, globals_slot(cx, id), reg);
	} else {
		store_map(cx, id, keys, reg);
	}
}
