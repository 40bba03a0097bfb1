/* SPDX-License-Identifier: MIT */
/*
 * dt_parse.c: the D parser, by recursive descent, from tokens (dt_lex.c)
 * to the program tree of dt_ast.h.
 *
 * A program is a sequence of top-level items, each either
 *  - a declaration: variables (`int x;`, `self int x;`, `int a[string];`),
 *    `typedef`, struct/union/enum definitions, `inline`, `extern`,
 *    `provider NAME { probe ...; };`, or
 *  - a clause: descriptions separated by ',', an optional `/ predicate /`
 *    and an optional `{ statements }`.
 * Which one starts is decided from the raw text (dt_lex_at_decl()) because
 * descriptions are not C tokens; for that the parser never peeks past the
 * `;` or `}` that ends a top-level item.
 *
 * Expressions follow C's grammar and precedence, with D's `^^` (logical
 * xor) between `||` and `&&`, `stringof`, `offsetof`, and aggregations
 * (`@name[keys]`).  Types named in declarations go straight into the
 * session's type table (typedefs, tags, struct layouts), since the type
 * table outlives the compile; variables, inlines and providers go into the
 * tree for the checker.  Every node carries its source line.
 *
 * Errors go through dt_pcb_error() and never return; the parser frees
 * nothing itself (everything is in the pcb arena).
 *
 * The parser is three files: this one (expressions, statements, clauses
 * and the program), dt_parse_decl.c (declarations and the types they
 * name, which expressions also read in casts, sizeof and offsetof) and
 * dt_ast_dump.c (the tree printed, for the parser's unit tests); they
 * share dt_parse_impl.h.
 */
#include <inttypes.h>
#include <string.h>

#include "dt_parse_impl.h"

/* ---- nodes ---- */

static dt_node_t *node_new(dt_pcb_t *pcb, dt_nodekind_t kind, int line)
{
	dt_node_t *n = dt_pcb_alloc(pcb, sizeof(*n));

	n->kind = kind;
	n->line = line;
	return n;
}

static dt_node_t *node_unary(dt_pcb_t *pcb, dt_op_t op, dt_node_t *l,
			     int line)
{
	dt_node_t *n = node_new(pcb, DT_N_UNARY, line);

	n->op = op;
	n->l = l;
	return n;
}

static dt_node_t *node_binary(dt_pcb_t *pcb, dt_op_t op, dt_node_t *l,
			      dt_node_t *r, int line)
{
	dt_node_t *n = node_new(pcb, DT_N_BINARY, line);

	n->op = op;
	n->l = l;
	n->r = r;
	return n;
}


static dt_node_t *parse_cast(dt_pcb_t *pcb);
static dt_node_t *parse_unary(dt_pcb_t *pcb);

/* ---- expressions ---- */

static dt_node_t *parse_args(dt_pcb_t *pcb, dt_tokkind_t close)
{
	dt_node_t *head = NULL, **tail = &head;

	if (accept(pcb, close))
		return NULL;
	do {
		*tail = parse_assign(pcb);
		tail = &(*tail)->next;
	} while (accept(pcb, T_COMMA));
	expect(pcb, close);
	return head;
}

static dt_node_t *parse_offsetof(dt_pcb_t *pcb, int line)
{
	dt_node_t *n = node_new(pcb, DT_N_OFFSETOF, line);
	dt_token_t m;

	expect(pcb, T_LPAREN);
	n->ctype = parse_type_name(pcb);
	expect(pcb, T_COMMA);
	m = dt_lex_next(pcb);
	if (m.kind != T_IDENT && m.kind < T_KW_FIRST)
		syntax_error(pcb, &m);
	n->name = m.name;
	expect(pcb, T_RPAREN);
	return n;
}

/* xlate <type> (expr), after the keyword. */
static dt_node_t *parse_xlate(dt_pcb_t *pcb, int line)
{
	dt_node_t *n = node_new(pcb, DT_N_XLATE, line);

	expect(pcb, T_LT);
	n->ctype = parse_type_name(pcb);
	expect(pcb, T_GT);
	expect(pcb, T_LPAREN);
	n->l = parse_expr(pcb);
	expect(pcb, T_RPAREN);
	return n;
}

static dt_node_t *parse_primary(dt_pcb_t *pcb)
{
	dt_token_t t = dt_lex_next(pcb);
	dt_node_t *n;

	switch (t.kind) {
	case T_INT:
		n = node_new(pcb, DT_N_INT, t.line);
		n->ival = t.ival;
		n->type = t.itype;
		return n;
	case T_STRING:
		n = node_new(pcb, DT_N_STRING, t.line);
		n->str = t.str;
		n->slen = t.slen;
		return n;
	case T_IDENT:
		if (peek_is(pcb, T_LPAREN)) {
			dt_lex_next(pcb);
			n = node_new(pcb, DT_N_CALL, t.line);
			n->name = t.name;
			n->args = parse_args(pcb, T_RPAREN);
			return n;
		}
		/* FALLTHROUGH */
	case T_SELF:
	case T_THIS:
		n = node_new(pcb, DT_N_IDENT, t.line);
		n->name = t.name;
		return n;
	case T_AGG:
		n = node_new(pcb, DT_N_AGG, t.line);
		n->name = t.name;
		return n;
	case T_LPAREN:
		n = parse_expr(pcb);
		expect(pcb, T_RPAREN);
		return n;
	case T_OFFSETOF:
		return parse_offsetof(pcb, t.line);
	case T_XLATE:
		return parse_xlate(pcb, t.line);
	default:
		syntax_error(pcb, &t);
	}
}

static dt_node_t *parse_postfix(dt_pcb_t *pcb)
{
	dt_node_t *n = parse_primary(pcb), *p;

	for (;;) {
		const dt_token_t *t = peek(pcb);
		int line = t->line;

		switch (t->kind) {
		case T_LBRACK:
			dt_lex_next(pcb);
			p = node_new(pcb, DT_N_INDEX, line);
			p->l = n;
			p->args = parse_args(pcb, T_RBRACK);
			if (p->args == NULL)
				syntax_error(pcb, peek(pcb));
			n = p;
			break;
		case T_DOT:
		case T_ARROW: {
			dt_token_t m;

			p = node_new(pcb, DT_N_MEMBER, line);
			p->arrow = dt_lex_next(pcb).kind == T_ARROW;
			m = dt_lex_next(pcb);
			if (m.kind != T_IDENT && m.kind < T_KW_FIRST)
				syntax_error(pcb, &m);
			p->l = n;
			p->name = m.name;
			n = p;
			break;
		}
		case T_INC:
		case T_DEC:
			n = node_unary(pcb, dt_lex_next(pcb).kind == T_INC ?
				       DT_OP_POSTINC : DT_OP_POSTDEC, n, line);
			break;
		case T_LPAREN:
			/* a call needs a name: f(x), not (f)(x) or a[0](x) */
			syntax_error(pcb, t);
		default:
			return n;
		}
	}
}

static dt_node_t *parse_sizeof(dt_pcb_t *pcb, int line)
{
	if (peek_is(pcb, T_LPAREN) && is_type_start(pcb, dt_lex_peek(pcb, 1))) {
		dt_node_t *n = node_new(pcb, DT_N_SIZEOF_TYPE, line);

		dt_lex_next(pcb);
		n->ctype = parse_type_name(pcb);
		expect(pcb, T_RPAREN);
		return n;
	}
	return node_unary(pcb, DT_OP_SIZEOF, parse_unary(pcb), line);
}

static dt_node_t *parse_unary_nested(dt_pcb_t *pcb)
{
	const dt_token_t *t = peek(pcb);
	int line = t->line;
	dt_op_t op;

	switch (t->kind) {
	case T_INC:	op = DT_OP_PREINC; break;
	case T_DEC:	op = DT_OP_PREDEC; break;
	case T_MINUS:	op = DT_OP_NEG; break;
	case T_PLUS:	op = DT_OP_PLUS; break;
	case T_TILDE:	op = DT_OP_BITNOT; break;
	case T_BANG:	op = DT_OP_LNOT; break;
	case T_STAR:	op = DT_OP_DEREF; break;
	case T_AMP:	op = DT_OP_ADDROF; break;
	case T_SIZEOF:
		dt_lex_next(pcb);
		return parse_sizeof(pcb, line);
	case T_STRINGOF:
		dt_lex_next(pcb);
		return node_unary(pcb, DT_OP_STRINGOF, parse_unary(pcb), line);
	default:
		return parse_postfix(pcb);
	}
	dt_lex_next(pcb);
	if (op == DT_OP_PREINC || op == DT_OP_PREDEC)
		return node_unary(pcb, op, parse_unary(pcb), line);
	return node_unary(pcb, op, parse_cast(pcb), line);
}

static dt_node_t *parse_unary(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_unary_nested(pcb);
	unnest(pcb);
	return r;
}

static dt_node_t *parse_cast_nested(dt_pcb_t *pcb)
{
	if (peek_is(pcb, T_LPAREN) && is_type_start(pcb, dt_lex_peek(pcb, 1))) {
		int line = dt_lex_next(pcb).line;
		dt_node_t *n = node_new(pcb, DT_N_CAST, line);

		n->ctype = parse_type_name(pcb);
		expect(pcb, T_RPAREN);
		n->l = parse_cast(pcb);
		return n;
	}
	return parse_unary(pcb);
}

static dt_node_t *parse_cast(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_cast_nested(pcb);
	unnest(pcb);
	return r;
}

/* Binary operators from the loosest (||) to the tightest (*). */
typedef struct binop {
	dt_tokkind_t tok;
	dt_op_t op;
	int prec;
} binop_t;

static const binop_t binops[] = {
	{ T_LOR, DT_OP_LOR, 1 }, { T_LXOR, DT_OP_LXOR, 2 },
	{ T_LAND, DT_OP_LAND, 3 }, { T_BAR, DT_OP_BOR, 4 },
	{ T_CARET, DT_OP_BXOR, 5 }, { T_AMP, DT_OP_BAND, 6 },
	{ T_EQ, DT_OP_EQ, 7 }, { T_NE, DT_OP_NE, 7 },
	{ T_LT, DT_OP_LT, 8 }, { T_LE, DT_OP_LE, 8 }, { T_GT, DT_OP_GT, 8 },
	{ T_GE, DT_OP_GE, 8 }, { T_SHL, DT_OP_SHL, 9 },
	{ T_SHR, DT_OP_SHR, 9 }, { T_PLUS, DT_OP_ADD, 10 },
	{ T_MINUS, DT_OP_SUB, 10 }, { T_STAR, DT_OP_MUL, 11 },
	{ T_SLASH, DT_OP_DIV, 11 }, { T_PERCENT, DT_OP_MOD, 11 },
};

static const binop_t *binop_of(dt_tokkind_t kind)
{
	size_t i;

	for (i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (binops[i].tok == kind)
			return &binops[i];
	return NULL;
}

/* Precedence climbing over the left-associative binary operators. */
static dt_node_t *parse_binary(dt_pcb_t *pcb, int min_prec)
{
	dt_node_t *l = parse_cast(pcb);
	const binop_t *b;

	int chain = 0;

	while ((b = binop_of(peek(pcb)->kind)) != NULL && b->prec >= min_prec) {
		int line = dt_lex_next(pcb).line;
		dt_node_t *r;

		if (++chain > MAX_CHAIN)
			dt_pcb_error(pcb, D_SYNTAX, line, "expression is too "
				     "long (more than %d operators)", MAX_CHAIN);
		r = parse_binary(pcb, b->prec + 1);

		l = node_binary(pcb, b->op, l, r, line);
	}
	return l;
}

static dt_node_t *parse_cond_nested(dt_pcb_t *pcb)
{
	dt_node_t *c = parse_binary(pcb, 1), *n;

	if (!peek_is(pcb, T_QUESTION))
		return c;
	n = node_new(pcb, DT_N_TERNARY, dt_lex_next(pcb).line);
	n->cond = c;
	n->l = parse_expr(pcb);
	expect(pcb, T_COLON);
	n->r = parse_cond(pcb);
	return n;
}

dt_node_t *parse_cond(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_cond_nested(pcb);
	unnest(pcb);
	return r;
}

static dt_op_t assign_op(dt_tokkind_t kind)
{
	switch (kind) {
	case T_ASSIGN:		return DT_OP_ASSIGN;
	case T_ADD_ASSIGN:	return DT_OP_ADD_ASSIGN;
	case T_SUB_ASSIGN:	return DT_OP_SUB_ASSIGN;
	case T_MUL_ASSIGN:	return DT_OP_MUL_ASSIGN;
	case T_DIV_ASSIGN:	return DT_OP_DIV_ASSIGN;
	case T_MOD_ASSIGN:	return DT_OP_MOD_ASSIGN;
	case T_SHL_ASSIGN:	return DT_OP_SHL_ASSIGN;
	case T_SHR_ASSIGN:	return DT_OP_SHR_ASSIGN;
	case T_AND_ASSIGN:	return DT_OP_AND_ASSIGN;
	case T_OR_ASSIGN:	return DT_OP_OR_ASSIGN;
	case T_XOR_ASSIGN:	return DT_OP_XOR_ASSIGN;
	default:		return DT_OP_NONE;
	}
}

static dt_node_t *parse_assign_nested(dt_pcb_t *pcb)
{
	dt_node_t *l = parse_cond(pcb);
	dt_op_t op = assign_op(peek(pcb)->kind);
	int line;

	if (op == DT_OP_NONE)
		return l;
	line = dt_lex_next(pcb).line;
	return node_binary(pcb, op, l, parse_assign(pcb), line);
}

dt_node_t *parse_assign(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_assign_nested(pcb);
	unnest(pcb);
	return r;
}

dt_node_t *parse_expr(dt_pcb_t *pcb)
{
	dt_node_t *l = parse_assign(pcb);
	int chain = 0;

	while (peek_is(pcb, T_COMMA)) {
		int line = dt_lex_next(pcb).line;

		if (++chain > MAX_CHAIN)
			dt_pcb_error(pcb, D_SYNTAX, line, "expression is too "
				     "long (more than %d operators)", MAX_CHAIN);

		l = node_binary(pcb, DT_OP_COMMA, l, parse_assign(pcb), line);
	}
	return l;
}

/* ---- statements ---- */

static dt_node_t *parse_stmt_list(dt_pcb_t *pcb);
static dt_node_t *parse_if(dt_pcb_t *pcb);

/* expr followed by ';', or by the '}' that ends the list (not consumed). */
static dt_node_t *parse_expr_stmt(dt_pcb_t *pcb)
{
	int line = peek(pcb)->line;
	dt_node_t *n = node_new(pcb, DT_N_EXPR_STMT, line);

	n->l = parse_expr(pcb);
	if (!accept(pcb, T_SEMI) && !peek_is(pcb, T_RBRACE))
		syntax_error(pcb, peek(pcb));
	return n;
}

/* The branch of an if: a block's statements or one statement. */
static dt_node_t *parse_branch(dt_pcb_t *pcb)
{
	if (accept(pcb, T_LBRACE))
		return parse_stmt_list(pcb);
	if (peek_is(pcb, T_IF))
		return parse_if(pcb);
	if (accept(pcb, T_SEMI))
		return NULL;
	return parse_expr_stmt(pcb);
}

static dt_node_t *parse_if_nested(dt_pcb_t *pcb)
{
	dt_node_t *n = node_new(pcb, DT_N_IF, expect(pcb, T_IF).line);

	expect(pcb, T_LPAREN);
	n->cond = parse_expr(pcb);
	expect(pcb, T_RPAREN);
	n->l = parse_branch(pcb);
	if (accept(pcb, T_ELSE))
		n->r = parse_branch(pcb);
	return n;
}

static dt_node_t *parse_if(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_if_nested(pcb);
	unnest(pcb);
	return r;
}

/* Statements up to and including the closing '}'. */
static dt_node_t *parse_stmt_list_nested(dt_pcb_t *pcb)
{
	dt_node_t *head = NULL, **tail = &head, *s;

	for (;;) {
		const dt_token_t *t = peek(pcb);

		if (t->kind == T_RBRACE) {
			dt_lex_next(pcb);
			return head;
		}
		if (t->kind == T_SEMI) {
			dt_lex_next(pcb);
			continue;
		}
		if (t->kind == T_LBRACE) {
			s = node_new(pcb, DT_N_BLOCK, dt_lex_next(pcb).line);
			s->l = parse_stmt_list(pcb);
		} else if (t->kind == T_IF) {
			s = parse_if(pcb);
		} else if (t->kind == T_EOF) {
			syntax_error(pcb, t);
		} else {
			s = parse_expr_stmt(pcb);
		}
		*tail = s;
		tail = &s->next;
	}
}

static dt_node_t *parse_stmt_list(dt_pcb_t *pcb)
{
	dt_node_t *r;

	nest(pcb);
	r = parse_stmt_list_nested(pcb);
	unnest(pcb);
	return r;
}

/* ---- clauses ---- */

static dt_clause_ast_t *parse_clause(dt_pcb_t *pcb)
{
	dt_clause_ast_t *c = dt_pcb_alloc(pcb, sizeof(*c));
	dt_pdesc_t **pdtail = &c->pdescs;
	bool has_pred = false;
	int ch;

	for (;;) {
		*pdtail = dt_lex_pdesc(pcb);
		pdtail = &(*pdtail)->next;
		if (dt_lex_peek_char(pcb) != ',')
			break;
		dt_lex_skip_char(pcb);
	}
	c->line = c->pdescs->line;
	if (dt_lex_peek_char(pcb) == '/') {
		dt_lex_skip_char(pcb);
		dt_lex_set_predicate(pcb, true);
		c->pred = parse_expr(pcb);
		expect(pcb, T_EPRED);
		dt_lex_set_predicate(pcb, false);
		has_pred = true;
	}
	ch = dt_lex_peek_char(pcb);
	if (ch == '{') {
		dt_lex_skip_char(pcb);
		c->body = parse_stmt_list(pcb);
	} else if (!has_pred && !pcb->from_cmdline) {
		dt_pcb_error(pcb, D_SYNTAX, dt_lex_line(pcb),
			     "expected predicate and/or actions following "
			     "probe description");
	}
	return c;
}

void dt_parse(dt_pcb_t *pcb)
{
	dt_clause_ast_t **ctail;
	int ndecls = 0;

	if (pcb->prog == NULL)
		pcb->prog = dt_pcb_alloc(pcb, sizeof(*pcb->prog));
	for (ctail = &pcb->prog->clauses; *ctail != NULL;
	     ctail = &(*ctail)->next)
		;
	dt_lex_init(pcb);
	while (dt_lex_peek_char(pcb) != -1) {
		if (dt_lex_at_decl(pcb)) {
			parse_declaration(pcb);
			ndecls++;
		} else {
			*ctail = parse_clause(pcb);
			ctail = &(*ctail)->next;
		}
	}
	dt_lex_apply_attributes(pcb);
	if (pcb->library)
		return;		/* may be empty; $N are the program's */
	if (pcb->prog->clauses == NULL && ndecls == 0 && !pcb->dtp->opt.empty)
		dt_pcb_error(pcb, D_EMPTY, dt_lex_line(pcb),
			     "empty D program translation unit");
	dt_lex_check_argref(pcb);
}
