/* SPDX-License-Identifier: MIT */
/*
 * dt_ast.h: the parse tree of a D program.
 *
 * The parser (dt_parse.c) builds it; the checker (dt_check.c) decorates
 * expression nodes with their type and resolved identifier; the code
 * generator (dt_cg.c) walks it.  Every node is allocated from the compile's
 * arena (dt_pcb_alloc) and freed with it in one place, after success or
 * error alike, so no pass frees nodes one by one.
 */
#ifndef DT_AST_H
#define DT_AST_H

#include <stdbool.h>
#include <stdint.h>
#include "dt_type.h"
#include "dt_strmap.h"

typedef enum dt_nodekind {
	/* expressions */
	DT_N_INT,	/* integer constant: ival, type from its suffix (C rules) */
	DT_N_STRING,	/* string literal: str (escapes decoded), slen */
	DT_N_IDENT,	/* identifier: name ($1 and friends already expanded) */
	DT_N_AGG,	/* @name (name "" for the anonymous @) */
	DT_N_UNARY,	/* op l: see dt_op_t */
	DT_N_BINARY,	/* l op r, assignments and the comma operator included */
	DT_N_TERNARY,	/* cond ? l : r */
	DT_N_CAST,	/* (ctype) l */
	DT_N_SIZEOF_TYPE, /* sizeof (ctype) */
	DT_N_CALL,	/* name(args): actions, subroutines, aggregating funcs */
	DT_N_INDEX,	/* l[args]: arrays, pointers, associative arrays,
			   args[], uregs[], @agg[keys], self->a[keys] */
	DT_N_MEMBER,	/* l.name or l->name (arrow); self->x and this->x are
			   MEMBER nodes whose l is IDENT "self" / "this" */
	DT_N_OFFSETOF,	/* offsetof(ctype, name) */
	DT_N_XLATE,	/* xlate <ctype> (l): l through a translator; only
			   its members are read (dt_cg_xlate.c) */

	/* statements */
	DT_N_EXPR_STMT,	/* l; */
	DT_N_IF,	/* if (cond) l else r: l and r are statement lists */
	DT_N_BLOCK,	/* { list } */
} dt_nodekind_t;

typedef enum dt_op {
	DT_OP_NONE,
	/* unary */
	DT_OP_NEG, DT_OP_PLUS, DT_OP_BITNOT, DT_OP_LNOT, DT_OP_DEREF,
	DT_OP_ADDROF, DT_OP_PREINC, DT_OP_PREDEC, DT_OP_POSTINC,
	DT_OP_POSTDEC, DT_OP_SIZEOF, DT_OP_STRINGOF,
	/* binary */
	DT_OP_ADD, DT_OP_SUB, DT_OP_MUL, DT_OP_DIV, DT_OP_MOD,
	DT_OP_SHL, DT_OP_SHR, DT_OP_BAND, DT_OP_BOR, DT_OP_BXOR,
	DT_OP_LAND, DT_OP_LOR, DT_OP_LXOR,
	DT_OP_EQ, DT_OP_NE, DT_OP_LT, DT_OP_LE, DT_OP_GT, DT_OP_GE,
	DT_OP_ASSIGN, DT_OP_ADD_ASSIGN, DT_OP_SUB_ASSIGN, DT_OP_MUL_ASSIGN,
	DT_OP_DIV_ASSIGN, DT_OP_MOD_ASSIGN, DT_OP_SHL_ASSIGN,
	DT_OP_SHR_ASSIGN, DT_OP_AND_ASSIGN, DT_OP_OR_ASSIGN,
	DT_OP_XOR_ASSIGN,
	DT_OP_COMMA,
} dt_op_t;

typedef struct dt_ident dt_ident_t;	/* resolved by the checker, dt_cg.h */

typedef struct dt_node {
	dt_nodekind_t kind;
	int line;		/* source line, for error messages */
	dt_op_t op;
	struct dt_node *l, *r, *cond;
	struct dt_node *args;	/* CALL, INDEX: argument list via next */
	struct dt_node *next;	/* next in a list (arguments, statements) */
	const char *name;	/* IDENT, AGG, CALL, MEMBER, OFFSETOF */
	bool arrow;		/* MEMBER: -> rather than . */
	uint64_t ival;		/* INT */
	const char *str;	/* STRING */
	size_t slen;		/* STRING, without the NUL */
	dt_type_t *ctype;	/* CAST, SIZEOF_TYPE, OFFSETOF: the type named */

	/* set by the checker */
	dt_type_t *type;	/* the expression's type */
	dt_ident_t *ident;	/* IDENT, AGG, self->x, this->x, CALL */
	const dt_member_t *member; /* MEMBER of a struct or union */
	bool lvalue;
	bool is_const;		/* folded: value in ival */
} dt_node_t;

/* A probe description as written: the text up to the clause's '{' or '/',
 * trimmed, and its four fields (an omitted field is ""). */
typedef struct dt_pdesc {
	const char *text;
	const char *prv, *mod, *fun, *prb;
	int line;
	struct dt_pdesc *next;
} dt_pdesc_t;

typedef struct dt_clause_ast {
	dt_pdesc_t *pdescs;	/* at least one */
	dt_node_t *pred;	/* NULL: none */
	dt_node_t *body;	/* statement list via next; NULL when empty */
	int line;
	struct dt_clause_ast *next;
} dt_clause_ast_t;

/* Storage class of a declared variable. */
typedef enum dt_varclass {
	DT_VC_GLOBAL, DT_VC_SELF, DT_VC_THIS,
} dt_varclass_t;

typedef struct dt_vardecl {
	dt_varclass_t vclass;
	const char *name;
	dt_type_t *type;	/* for an associative array: the value type */
	dt_type_t **keys;	/* declared key types (int a[int, string]) */
	int nkeys;		/* -1 if not an associative array */
	int line;
	struct dt_vardecl *next;
} dt_vardecl_t;

typedef struct dt_inline {
	const char *name;
	dt_type_t *type;
	dt_node_t *expr;
	int line;
	struct dt_inline *next;
} dt_inline_t;

/* provider foo { probe bar(int a, char *b) : (char *b, int a); }; */
typedef struct dt_probedecl {
	const char *name;	/* as written: "query__start" */
	int nargs;		/* native (what the site passes) */
	dt_type_t **args;
	const char **argnames;	/* may hold NULLs */
	int nxargs;		/* translated (after ':'); equals nargs and
				   xargs == args when no ':' part */
	dt_type_t **xargs;
	int *mapping;		/* xarg i is native arg mapping[i] */
	int line;
	struct dt_probedecl *next;
} dt_probedecl_t;

typedef struct dt_providerdecl {
	const char *name;
	dt_probedecl_t *probes;
	/* #pragma D attributes Name/Data/Class for provider, module,
	 * function, name, args: stability name strings, or NULL */
	const char *attrs[5];
	int line;
	struct dt_providerdecl *next;
} dt_providerdecl_t;

/* translator out < in param > { member = expr; ... };  The member
 * expressions are kept unchecked: each use checks a copy of one with the
 * parameter replaced by the translated expression (dt_cg_xlate.c). */
typedef struct dt_xlmember {
	const char *name;
	dt_node_t *expr;
	int line;
	struct dt_xlmember *next;
} dt_xlmember_t;

typedef struct dt_xlator {
	dt_type_t *out;		/* a complete struct or union */
	dt_type_t *in;
	const char *param;
	dt_xlmember_t *members;	/* in declaration order */
	int line;
	struct dt_xlator *next;
} dt_xlator_t;

/* #pragma D option name[=value] */
typedef struct dt_pragma_opt {
	const char *name, *value;	/* value NULL when absent */
	int line;
	struct dt_pragma_opt *next;
} dt_pragma_opt_t;

typedef struct dt_program_ast {
	dt_clause_ast_t *clauses;	/* in program order */
	dt_vardecl_t *vars;
	dt_vardecl_t **vars_tail;	/* where the next one goes (NULL: &vars) */
	dt_strmap_t var_names;	/* (vclass, name) of vars: redeclarations */
	dt_inline_t *inlines;
	dt_providerdecl_t *providers;
	dt_pragma_opt_t *options;
	dt_xlator_t *xlators;	/* in program order */
} dt_program_ast_t;

#include <stdio.h>
/* dt_parse.c: print the tree as S-expressions (for tests and debugging). */
void dt_ast_dump(FILE *out, const dt_program_ast_t *prog);

/* The length of a list of nodes (arguments, keys), and its i-th (from 0),
 * NULL past the end. */
static inline int dt_node_count(const dt_node_t *n)
{
	int k = 0;
	for (; n != NULL; n = n->next)
		k++;
	return k;
}

static inline dt_node_t *dt_node_nth(dt_node_t *n, int i)
{
	while (i-- > 0 && n != NULL)
		n = n->next;
	return n;
}

#endif /* DT_AST_H */
