/* SPDX-License-Identifier: MIT */
/*
 * dt_check.h: the type checker, and what it gives the code generator.
 *
 * The checker runs over a clause (or a program's declarations) before any
 * code is emitted.  It reads the AST, the types, the session's identifier
 * table and the program description (the aggregations earlier clauses
 * made, the formats); it never reads the code generator's state.  What it
 * produces is the checked AST (types, identifiers and folded constants on
 * the nodes), the identifiers it declared (dt_idtab_t, without storage:
 * the code generator places them) and its findings about the clause
 * (dt_check_t below), which the code generator consumes.
 */
#ifndef DT_CHECK_H
#define DT_CHECK_H

#include "dt_impl.h"
#include "dt_ast.h"
#include "dt_ident.h"

typedef struct dt_check {
	/* given by the caller (dt_check_init()) */
	dt_pcb_t *pcb;		/* the compile: errors, its arena */
	dtrace_hdl_t *dtp;	/* types, options, the program description */
	dt_idtab_t *idents;	/* the session's variables, aggregations */
	dtrace_probe_t **probes;	/* the clause's probes, their args */
	int nprobes;
	/* Resolves the C types of a probe's arguments, asked for where
	 * args[] is used: the probe table's dt_probe_ctypes(), which the
	 * checker does not reach itself (NULL: the types are as they are) */
	void (*probe_ctypes)(dtrace_hdl_t *dtp, dtrace_probe_t *p);
	bool in_clause;		/* false: declarations (an inline's
				   definition has no clause to run in) */
	uint32_t strsize;	/* -x strsize: the characters a string holds,
				   its NUL aside */
	uint32_t rec_max;	/* data bytes a record holds */
	/* what the check of a clause found */
	bool records;		/* has a data-recording action */
	bool actmask;		/* the record starts with the mask of the
				   actions that ran (conditional actions,
				   a second exit()) */
	bool destructive;
	bool has_aggs;
	bool speculates;	/* speculate( ) seen */
	/* the checker's own progress */
	bool commits, drecs;	/* commit( ), data recording outside a
				   speculation, seen */
	int nexits;		/* exit( ) calls seen */
	int depth_if;		/* nesting of if statements */
	dt_node_t *action_value;	/* the first action or aggregating
				   function used as a value: typed void, and
				   refused (D_CG_EXPR) once the clause passed
				   its other checks, as DTrace's code
				   generator refuses it after its checks */
} dt_check_t;

/* A context to check clauses or declarations of pcb's program with. */
void dt_check_init(dt_check_t *ck, dt_pcb_t *pcb, dt_idtab_t *idents,
		   uint32_t strsize, uint32_t rec_max);
/* Check clause c (ck->probes set); errors go through dt_pcb_error(). */
void dt_check_clause(dt_check_t *ck, const dt_clause_ast_t *c);
/* Check and declare the inlines, variables and translators of prog. */
void dt_check_declare(dt_check_t *ck, const dt_program_ast_t *prog);

/* ---- checked nodes and types, as the code generator reads them ---- */

bool dt_check_is_string(const dt_type_t *t);
/* Whether the value of node from may be stored in an object of type to. */
bool dt_check_assignable(const dt_type_t *to, const dt_node_t *from);
/* Whether t may be a key of an associative array or an aggregation: an
 * integer, a pointer, a string, or a struct, union or array (compared by
 * its bytes). */
bool dt_check_key_type(const dt_type_t *t);
/* Whether a key of type t fits the key type proto that the array's first
 * use fixed: integers and pointers alike, strings alike, the same struct,
 * union or array. */
bool dt_check_key_compatible(const dt_type_t *proto, const dt_type_t *t);
/* Whether checked node n is the integer constant 0. */
bool dt_check_is_zero(const dt_node_t *n);
/* stack(), ustack(), ufunc(), usym(), umod() and uaddr(): the calls whose
 * record the consumer formats (actions and aggregation keys). */
bool dt_check_is_stack_call(const dt_node_t *n);
/* The frames a stack() or ustack() call keeps: its argument (a checked
 * constant) or -x stackframes or ustackframes, cut to -x maxframes as
 * DTrace cuts them. */
uint32_t dt_stack_frames(const dtrace_hdl_t *dtp, const dt_node_t *call);
/* The dt_usym_t of a ufunc/usym/umod/uaddr call, or -1. */
int dt_check_usym_call(const dt_node_t *n);
/* Whether n is the built-in ustackdepth, or a list (keys, args) holds it:
 * its value is known once the consumer has unwound the stack, so it is
 * only recorded (traced, printed, an aggregation's key or value). */
bool dt_check_is_udepth(const dt_node_t *n);
bool dt_check_has_udepth(const dt_node_t *list);
/* A struct, union or array: stored by value in a variable (dt_cg_sou.c). */
bool dt_sou_type(const dt_type_t *t);
/* Whether checked node n is a bit-field member (n->member). */
bool dt_node_is_bitfield(const dt_node_t *n);
/* Whether lvalue n is such a variable or a member or element of one. */
bool dt_sou_rooted(const dt_node_t *n);
/* Whether checked node n names a variable (and not a part of one). */
bool dt_sou_is_var(const dt_node_t *n);

/* ---- the checker's parts (dt_check.c, dt_check_agg.c,
 * dt_check_xlate.c) ---- */

dt_type_t *dt_check_expr(dt_check_t *ck, dt_node_t *n);
dt_type_t *dt_check_int_type(dt_check_t *ck);	/* "int" */
/* The constant arguments of stack() and ustack(), also as keys. */
void dt_check_stack_args(dt_check_t *ck, dt_node_t *n);
/* Declare a variable of that kind in the session's table. */
dt_ident_t *dt_check_declare_var(dt_check_t *ck, dt_identkind_t kind,
				 const char *name, dt_type_t *type, int nkeys,
				 dt_type_t **keys, int line);
/* @a[keys] = func(args): declares @a at its first use, which fixes its
 * function, parameters and key types for every other use. */
void dt_check_agg_assign(dt_check_t *ck, dt_node_t *n);

/* A variable declared again must be declared the same way as before
 * (type, kind and keys): DTrace's D_DECL_IDRED otherwise.  The parser
 * asks it of the declarations of one program, the checker of a
 * declaration against the session's variable. */
void dt_decl_redeclared(dt_pcb_t *pcb, const dt_vardecl_t *now,
			const dt_type_t *type, int nkeys,
			dt_type_t *const *keys);

/* Translators (`translator`) and the xlate operator (dt_check_xlate.c). */
void dt_xlate_declare(dt_check_t *ck, const dt_program_ast_t *prog);
/* The xlate node of operand n: n itself, or the definition of the inline
 * n names; NULL when n is neither. */
dt_node_t *dt_xlate_operand(dt_check_t *ck, const dt_node_t *n);
/* n is x.m or x->m, x an xlate <T> (e): rewrite n into the translator's
 * expression for m, checked; its type. */
dt_type_t *dt_xlate_member(dt_check_t *ck, dt_node_t *n, dt_node_t *x);
/* n uses xlate x as a value (x is n, or an inline's definition): the
 * struct, or a pointer to it, built where the expression runs (in a
 * hidden this-> variable, x->ident, members in x->args); in an inline's
 * definition, only its type. */
dt_type_t *dt_xlate_value(dt_check_t *ck, dt_node_t *n, dt_node_t *x);

#endif /* DT_CHECK_H */
