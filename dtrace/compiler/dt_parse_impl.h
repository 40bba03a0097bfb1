/* SPDX-License-Identifier: MIT */
/*
 * dt_parse_impl.h: what the parser's files share (dt_parse.c: expressions,
 * statements, clauses and the program; dt_parse_decl.c: declarations and
 * the types they name): the token helpers, the nesting limits, and the
 * entry points each file calls in the other.  Private to the parser: the
 * rest of the compiler sees dt_parse() and the tree (dt_ast.h).
 */
#ifndef DT_PARSE_IMPL_H
#define DT_PARSE_IMPL_H

#include "dt_lex.h"

/* ---- tokens ---- */

static inline const dt_token_t *peek(dt_pcb_t *pcb)
{
	return dt_lex_peek(pcb, 0);
}

static inline bool peek_is(dt_pcb_t *pcb, dt_tokkind_t kind)
{
	return dt_lex_peek(pcb, 0)->kind == kind;
}

static inline _Noreturn void syntax_error(dt_pcb_t *pcb, const dt_token_t *t)
{
	if (t->kind == T_EOF)
		dt_pcb_error(pcb, D_SYNTAX, t->line,
			     "syntax error near end of input");
	dt_pcb_error(pcb, D_SYNTAX, t->line, "syntax error near \"%s\"",
		     t->text);
}

static inline bool accept(dt_pcb_t *pcb, dt_tokkind_t kind)
{
	if (!peek_is(pcb, kind))
		return false;
	dt_lex_next(pcb);
	return true;
}

static inline dt_token_t expect(dt_pcb_t *pcb, dt_tokkind_t kind)
{
	if (!peek_is(pcb, kind))
		syntax_error(pcb, peek(pcb));
	return dt_lex_next(pcb);
}

static inline const char *expect_ident(dt_pcb_t *pcb)
{
	return expect(pcb, T_IDENT).name;
}

static inline dt_typetab_t *TT(dt_pcb_t *pcb)
{
	return pcb->dtp->types;
}

/*
 * Nesting limits: the parser recurses for every parenthesis, unary
 * operator, assignment, block and struct body, and later passes recurse
 * over the tree, so a hostile input must not be able to exhaust the
 * stack.  Long chains of left-associative operators are iterative here
 * but make deep trees too, so they are bounded as well.
 */
#define MAX_NESTING	1000
#define MAX_CHAIN	2000

static inline void nest(dt_pcb_t *pcb)
{
	int *depth = dt_lex_nesting(pcb);

	if (++*depth > MAX_NESTING)
		dt_pcb_error(pcb, D_SYNTAX, peek(pcb)->line,
			     "program is nested too deeply (more than %d "
			     "levels)", MAX_NESTING);
}

static inline void unnest(dt_pcb_t *pcb)
{
	--*dt_lex_nesting(pcb);
}

/* The parser's own entry points across its files: hidden from plugins,
 * which would otherwise meet these short names in the dtrace executable
 * (it is linked -rdynamic). */
#pragma GCC visibility push(hidden)

/* ---- dt_parse.c: expressions ---- */

dt_node_t *parse_expr(dt_pcb_t *pcb);
dt_node_t *parse_assign(dt_pcb_t *pcb);
dt_node_t *parse_cond(dt_pcb_t *pcb);

/* ---- dt_parse_decl.c: types and declarations ---- */

/* Whether token t starts a type name (a cast, sizeof, an array's keys). */
bool is_type_start(dt_pcb_t *pcb, const dt_token_t *t);
/* A type name: specifiers and an abstract declarator ("char *", "int[4]"). */
dt_type_t *parse_type_name(dt_pcb_t *pcb);
/* A top-level declaration, up to its ';' (or a C function's body). */
void parse_declaration(dt_pcb_t *pcb);

#pragma GCC visibility pop

#endif /* DT_PARSE_IMPL_H */
