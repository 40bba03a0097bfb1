/* SPDX-License-Identifier: MIT */
/*
 * dt_parse_decl.c: the parser's declarations (dt_parse.c is the rest of
 * the parser: expressions, statements, clauses), and the types they name.
 *
 * Types: declaration specifiers (keywords in any order, as C allows, a
 * typedef name, struct/union/enum with or without a body, a type of the
 * $target's module by its DWARF), pointers, array dimensions (integer
 * constant expressions, folded here), C's declarators of system headers
 * (-C).  They go straight into the session's type table, since the type
 * table outlives the compile.
 *
 * Declarations: variables (global, self, this, associative arrays with
 * their keys), typedef, extern, inline, provider with its probes'
 * prototypes, translator.  Variables, inlines, providers and translators
 * go into the tree for the checker; a variable or provider declared again
 * must be declared the same way (DTrace's tags and messages).
 *
 * Errors go through dt_pcb_error() and never return; everything is in
 * the pcb arena.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "dt_parse_impl.h"
#include "dt_dwarf.h"
#include "dt_btf.h"
#include "dt_check.h"

static dt_type_t *parse_specifiers(dt_pcb_t *pcb);
static dt_type_t *parse_pointers(dt_pcb_t *pcb, dt_type_t *t);
static dt_type_t *parse_array_dims(dt_pcb_t *pcb, dt_type_t *t);
static dt_type_t *parse_c_declarator(dt_pcb_t *pcb, dt_type_t *t,
				     const char **name, bool *is_func);

/* ---- types ---- */

bool is_type_start(dt_pcb_t *pcb, const dt_token_t *t)
{
	switch (t->kind) {
	case T_CHAR: case T_SHORT: case T_INT_KW: case T_LONG:
	case T_SIGNED: case T_UNSIGNED: case T_VOID: case T_FLOAT:
	case T_DOUBLE: case T_STRUCT: case T_UNION: case T_ENUM:
	case T_STRING_KW: case T_CONST: case T_VOLATILE: case T_RESTRICT:
	case T_USERLAND:
		return true;
	case T_IDENT:
		return dt_lex_is_typedef_name(pcb, t->name);
	default:
		return false;
	}
}

/*
 * A constant integer expression, as array dimensions, bit-field widths and
 * enumerators need them.  enumvals: the enumerators of the enum being
 * defined, which may be referred to before the enum is complete.
 */
static bool fold(dt_pcb_t *pcb, const dt_node_t *n, int64_t *v,
		 const dt_enumval_t *enumvals)
{
	int64_t a, b;

	switch (n->kind) {
	case DT_N_INT:
		*v = (int64_t)n->ival;
		return true;
	case DT_N_IDENT:
		for (; enumvals != NULL; enumvals = enumvals->next)
			if (strcmp(enumvals->name, n->name) == 0) {
				*v = enumvals->value;
				return true;
			}
		return dt_type_enum_const(TT(pcb), n->name, v, NULL);
	case DT_N_SIZEOF_TYPE:
		*v = (int64_t)n->ctype->size;
		return true;
	case DT_N_CAST:		/* (int)sizeof (x), in C's headers */
		if (!dt_type_is_integer(n->ctype) || n->ctype->size > 8 ||
		    !fold(pcb, n->l, &a, enumvals))
			return false;
		*v = n->ctype->size == 8 ? a : n->ctype->is_signed ?
		     (a << (64 - 8 * n->ctype->size)) >> (64 - 8 * n->ctype->size) :
		     (int64_t)((uint64_t)a & ((1ull << (8 * n->ctype->size)) - 1));
		return true;
	case DT_N_TERNARY:
		if (!fold(pcb, n->cond, &a, enumvals))
			return false;
		return fold(pcb, a ? n->l : n->r, v, enumvals);
	case DT_N_UNARY:
		if (!fold(pcb, n->l, &a, enumvals))
			return false;
		switch (n->op) {
		case DT_OP_NEG:	   *v = (int64_t)(0 - (uint64_t)a); return true;
		case DT_OP_PLUS:   *v = a; return true;
		case DT_OP_BITNOT: *v = ~a; return true;
		case DT_OP_LNOT:   *v = !a; return true;
		default:	   return false;
		}
	case DT_N_BINARY:
		if (!fold(pcb, n->l, &a, enumvals) ||
		    !fold(pcb, n->r, &b, enumvals))
			return false;
		switch (n->op) {
		case DT_OP_ADD: *v = (int64_t)((uint64_t)a + (uint64_t)b); break;
		case DT_OP_SUB: *v = (int64_t)((uint64_t)a - (uint64_t)b); break;
		case DT_OP_MUL: *v = (int64_t)((uint64_t)a * (uint64_t)b); break;
		case DT_OP_DIV:
		case DT_OP_MOD:
			if (b == 0)
				dt_pcb_error(pcb, D_DIV_ZERO, n->line,
					     "expression contains division by "
					     "zero");
			if (b == -1)
				*v = n->op == DT_OP_DIV ?
				     (int64_t)(0 - (uint64_t)a) : 0;
			else
				*v = n->op == DT_OP_DIV ? a / b : a % b;
			break;
		case DT_OP_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); break;
		case DT_OP_SHR: *v = a >> (b & 63); break;
		case DT_OP_BAND: *v = a & b; break;
		case DT_OP_BOR: *v = a | b; break;
		case DT_OP_BXOR: *v = a ^ b; break;
		case DT_OP_LAND: *v = a && b; break;
		case DT_OP_LOR: *v = a || b; break;
		case DT_OP_LXOR: *v = !a != !b; break;
		case DT_OP_EQ: *v = a == b; break;
		case DT_OP_NE: *v = a != b; break;
		case DT_OP_LT: *v = a < b; break;
		case DT_OP_LE: *v = a <= b; break;
		case DT_OP_GT: *v = a > b; break;
		case DT_OP_GE: *v = a >= b; break;
		default: return false;
		}
		return true;
	default:
		return false;
	}
}

/* An integer constant expression, else the error tag with DTrace's
 * message what. */
static int64_t const_expr(dt_pcb_t *pcb, const dt_enumval_t *enumvals,
			  dt_errtag_t tag, const char *what)
{
	int line = peek(pcb)->line;
	dt_node_t *e = parse_cond(pcb);
	int64_t v;

	if (!fold(pcb, e, &v, enumvals))
		dt_pcb_error(pcb, tag, line, "%s", what);
	return v;
}

/* DTrace's message for an enumerator whose value is not a constant. */
static const char *enconst_msg(dt_pcb_t *pcb, const char *name)
{
	static const char fmt[] = "enumerator '%s' must be assigned to an "
				  "integral constant expression";
	size_t len = sizeof(fmt) + strlen(name);
	char *msg = dt_pcb_alloc(pcb, len);

	snprintf(msg, len, fmt, name);
	return msg;
}

static const char array_subscript[] = "positive integral constant "
	"expression or tuple signature expected as array declaration "
	"subscript";

/* The most bytes a variable may take: a BPF map value holds at most
 * INT_MAX bytes. */
#define DT_VAR_SIZE_MAX	((uint64_t)INT32_MAX)

/* An array of n elements of type t: a dimension over UINT_MAX is DTrace's
 * D_DECL_ARRBIG, and so is a size that 64 bits cannot count. */
static dt_type_t *array_of(dt_pcb_t *pcb, dt_type_t *t, int64_t n, int line)
{
	if (n < 0)
		dt_pcb_error(pcb, D_DECL_ARRSUB, line, "%s", array_subscript);
	if ((uint64_t)n > UINT32_MAX ||
	    (n > 0 && t->size > UINT64_MAX / (uint64_t)n))
		dt_pcb_error(pcb, D_DECL_ARRBIG, line,
			     "array dimension too big");
	return dt_type_array(TT(pcb), t, (uint64_t)n);
}

/* A member's type: complete, and not void (DTrace's messages). */
static void check_member_type(dt_pcb_t *pcb, const dt_type_t *t,
			      const char *name, int line)
{
	if (t->kind == DT_TK_VOID)
		dt_pcb_error(pcb, D_DECL_VOIDOBJ, line,
			     "cannot have void member: %s", name ? name : "");
	if (!t->complete && t->kind != DT_TK_ENUM)
		dt_pcb_error(pcb, D_DECL_INCOMPLETE, line,
			     "incomplete struct/union/enum %s: %s", t->name,
			     name ? name : "");
}

/*
 * The width of a bit-field of type t after its ':', as DTrace checks it: a
 * positive constant (0 only for an unnamed one, C's `: 0`), of an integer
 * type (not an enum), no wider than the type.
 */
static uint8_t bitfield_width(dt_pcb_t *pcb, const dt_type_t *t,
			      const char *name, int line)
{
	static const char positive[] = "positive integral constant "
				       "expression expected as bit-field size";
	int64_t w = const_expr(pcb, NULL, D_DECL_BFCONST, positive);

	if (w < 0 || (w == 0 && name != NULL))
		dt_pcb_error(pcb, D_DECL_BFCONST, line, "%s", positive);
	if (t->kind != DT_TK_INT)
		dt_pcb_error(pcb, D_DECL_BFTYPE, line, "invalid type for "
			     "bit-field: %s", name != NULL ? name : "(anon)");
	if ((uint64_t)w > t->size * 8)
		dt_pcb_error(pcb, D_DECL_BFSIZE, line, "bit-field too big "
			     "for type: %s", name != NULL ? name : "(anon)");
	return (uint8_t)w;
}

/* Members of a struct or union body, after its '{'. */
static dt_member_t *parse_members(dt_pcb_t *pcb)
{
	dt_member_t *head = NULL, **tail = &head;

	while (!accept(pcb, T_RBRACE)) {
		int line = peek(pcb)->line;
		dt_type_t *base = parse_specifiers(pcb);

		do {
			dt_member_t *m = dt_pcb_alloc(pcb, sizeof(*m)), *o;
			dt_type_t *t = base;
			bool is_func, zero_width = false;

			t = parse_pointers(pcb, t);
			if (peek_is(pcb, T_IDENT) || peek_is(pcb, T_LPAREN))
				t = parse_c_declarator(pcb, t, &m->name,
						       &is_func);
			while (accept(pcb, T_LBRACK)) {
				int64_t n = 0;	/* [] a flexible array */

				if (!accept(pcb, T_RBRACK)) {
					n = const_expr(pcb, NULL,
						       D_DECL_ARRSUB,
						       array_subscript);
					expect(pcb, T_RBRACK);
				}
				t = array_of(pcb, t, n, line);
			}
			if (accept(pcb, T_COLON)) {
				m->bit_size = bitfield_width(pcb, t, m->name,
							     line);
				zero_width = m->bit_size == 0;
			}
			/* an anonymous struct or union member (C11) takes
			 * its room; its members are not reached by name */
			if (m->name == NULL && m->bit_size == 0 &&
			    t->kind != DT_TK_STRUCT && t->kind != DT_TK_UNION &&
			    !zero_width)
				syntax_error(pcb, peek(pcb));
			check_member_type(pcb, t, m->name, line);
			for (o = head; o != NULL && m->name; o = o->next)
				if (o->name && strcmp(o->name, m->name) == 0)
					dt_pcb_error(pcb, D_UNKNOWN, line,
						     "failed to define member "
						     "'%s': Duplicate member or "
						     "variable name", m->name);
			m->type = t;
			*tail = m;
			tail = &m->next;
		} while (accept(pcb, T_COMMA));
		expect(pcb, T_SEMI);
	}
	return head;
}

static dt_enumval_t *parse_enumerators(dt_pcb_t *pcb)
{
	dt_enumval_t *head = NULL, **tail = &head;
	dt_strmap_t seen = { .pcb = pcb };	/* the names of head's */
	int64_t next = 0;

	while (!accept(pcb, T_RBRACE)) {
		dt_token_t t = expect(pcb, T_IDENT);
		dt_enumval_t *v = dt_pcb_alloc(pcb, sizeof(*v));

		if (dt_strmap_get(&seen, 0, t.name) != NULL ||
		    dt_type_enum_const(TT(pcb), t.name, NULL, NULL))
			dt_pcb_error(pcb, D_DECL_IDRED, t.line,
				     "identifier redeclared: %s", t.name);
		v->name = t.name;
		if (accept(pcb, T_ASSIGN))
			next = const_expr(pcb, head, D_DECL_ENCONST,
					  enconst_msg(pcb, t.name));
		if (next < INT32_MIN || next > INT32_MAX)
			dt_pcb_error(pcb, D_DECL_ENOFLOW, t.line,
				     "enumerator '%s' value overflows "
				     "INT_MAX (%d)", t.name, INT32_MAX);
		v->value = next++;
		dt_strmap_put(&seen, 0, v->name, v);
		*tail = v;
		tail = &v->next;
		if (!accept(pcb, T_COMMA)) {
			expect(pcb, T_RBRACE);
			break;
		}
	}
	return head;
}

/* struct vmlinux`tag: the kernel's type of that tag, from its BTF. */
static dt_type_t *kernel_type(dt_pcb_t *pcb, const char *kw, const char *tag,
			      int line)
{
	char name[300];
	dt_type_t *t;

	snprintf(name, sizeof(name), "%s %s", kw, tag);
	t = dt_btf_type(pcb->dtp, name);
	if (t != NULL)
		dt_btf_complete(pcb->dtp, t);
	if (t == NULL)
		dt_pcb_error(pcb, D_UNKNOWN, line, "failed to resolve type "
			     "%s vmlinux`%s: %s", kw, tag,
			     dt_btf_kernel(pcb->dtp) != NULL ?
			     "no such type in the kernel's BTF" :
			     "the kernel has no BTF");
	return t;
}

/* struct a.out`point: a type of the $target's module (the executable,
 * "a.out", or a library by its name), from its DWARF; struct
 * vmlinux`task_struct: the kernel's, from its BTF.  tag is the first
 * word; the rest of a dotted module name follows as tokens. */
static dt_type_t *module_type(dt_pcb_t *pcb, dt_typekind_t kind,
			      const char *tag, int line)
{
	char name[512];
	const char *q;
	dt_type_t *t;

	snprintf(name, sizeof(name), "%s", tag);
	while (strchr(name, '`') == NULL && accept(pcb, T_DOT)) {
		const dt_token_t *w = peek(pcb);

		if (w->kind != T_IDENT && w->kind != T_INT)
			syntax_error(pcb, w);
		strncat(name, ".", sizeof(name) - strlen(name) - 1);
		strncat(name, dt_lex_next(pcb).text, sizeof(name) - strlen(name) - 1);
	}
	if ((q = strchr(name, '`')) == NULL || q[1] == '\0')
		syntax_error(pcb, peek(pcb));
	name[q - name] = '\0';
	const char *kw = kind == DT_TK_STRUCT ? "struct" :
			 kind == DT_TK_UNION ? "union" : "enum";
	if (strcmp(name, "vmlinux") == 0)
		return kernel_type(pcb, kw, q + 1, line);
	t = dt_dwarf_module_type(pcb->dtp, name, kind, q + 1);
	if (t == NULL)
		dt_pcb_error(pcb, D_UNKNOWN, line, "failed to resolve type "
			     "%s %s`%s: %s", kw, name, q + 1,
			     pcb->dtp->target > 0 ? "no such type in its "
			     "debugging information" : "no target process");
	return t;
}

/* struct/union/enum [tag] [{ body }] */
static dt_type_t *parse_tagged_nested(dt_pcb_t *pcb)
{
	dt_token_t kw = dt_lex_next(pcb);
	dt_typekind_t kind = kw.kind == T_STRUCT ? DT_TK_STRUCT :
			     kw.kind == T_UNION ? DT_TK_UNION : DT_TK_ENUM;
	const char *tag = NULL;
	dt_type_t *t;
	int rc;

	if (peek_is(pcb, T_IDENT))
		tag = expect_ident(pcb);
	else if (!peek_is(pcb, T_LBRACE))
		syntax_error(pcb, peek(pcb));
	if (tag != NULL && (strchr(tag, '`') != NULL || peek_is(pcb, T_DOT)))
		return module_type(pcb, kind, tag, kw.line);
	t = dt_type_tag(TT(pcb), kind, tag);
	if (!accept(pcb, T_LBRACE))
		return t;
	if (t->complete && !t->builtin)
		dt_pcb_error(pcb, D_DECL_TYPERED, kw.line, "type redeclared: "
			     "%s", t->name);
	t->complete = t->builtin = false;	/* a built-in body replaced */
	if (kind == DT_TK_ENUM)
		rc = dt_type_complete_enum(TT(pcb), t,
					   parse_enumerators(pcb));
	else
		rc = dt_type_complete_d_sou(TT(pcb), t, parse_members(pcb),
					    pcb->dtp->opt.strsize ?
					    (uint32_t)pcb->dtp->opt.strsize :
					    256);
	if (rc != 0)
		dt_pcb_error(pcb, D_UNKNOWN, kw.line, "failed to define %s: %s",
			     t->name, strerror(errno));
	return t;
}

static dt_type_t *parse_tagged(dt_pcb_t *pcb)
{
	dt_type_t *r;

	nest(pcb);
	r = parse_tagged_nested(pcb);
	unnest(pcb);
	return r;
}

/*
 * Declaration specifiers: the type named by keywords (in any order, as C
 * allows), a typedef name, or a struct/union/enum.  const, volatile,
 * restrict and userland are accepted and ignored; float, double and long
 * double are D's floating-point types.
 */
/* The keywords of a type's specifiers, counted. */
typedef struct spec_words {
	int nchar, nint, nvoid, nshort, nlong, nsigned, nunsigned;
	int nfloat;		/* float and double */
} spec_words_t;

static bool count_word(spec_words_t *w, dt_tokkind_t kind)
{
	switch (kind) {
	case T_CHAR: w->nchar++; return true;
	case T_INT_KW: w->nint++; return true;
	case T_VOID: w->nvoid++; return true;
	case T_SHORT: w->nshort++; return true;
	case T_LONG: w->nlong++; return true;
	case T_SIGNED: w->nsigned++; return true;
	case T_UNSIGNED: w->nunsigned++; return true;
	default: return false;
	}
}

/*
 * The checks DTrace makes of specifiers, with its tags: one base type
 * (D_DECL_COMBO), short and long not with char, nothing with void, signed
 * and unsigned only with integers, long only with integers and floating
 * point.  named is a typedef, struct, union or enum; fsize a float/double.
 */
static void check_words(dt_pcb_t *pcb, const spec_words_t *w,
			const dt_type_t *named, int fsize, int line)
{
	bool sign = w->nsigned || w->nunsigned;

	if (w->nchar + w->nint + w->nvoid + (named != NULL) + w->nfloat > 1)
		dt_pcb_error(pcb, D_DECL_COMBO, line,
			     "invalid type combination");
	if (w->nchar && (w->nshort || w->nlong))
		dt_pcb_error(pcb, D_DECL_CHARATTR, line, "invalid type "
			     "declaration: short and long may not be used "
			     "with char type");
	if (w->nvoid && (w->nshort || w->nlong || sign))
		dt_pcb_error(pcb, D_DECL_VOIDATTR, line, "invalid type "
			     "declaration: attributes may not be used with "
			     "void type");
	if ((named != NULL || fsize > 0) && sign)
		dt_pcb_error(pcb, D_DECL_SIGNINT, line, "invalid type "
			     "declaration: signed and unsigned may only be "
			     "used with integer type");
	if (named != NULL && w->nlong)
		dt_pcb_error(pcb, D_DECL_LONGINT, line, "invalid type "
			     "declaration: long and long long may only be "
			     "used with integer or floating-point type");
}

/* The integer type the words name, or DTrace's failure to resolve the
 * name it makes of them ("short long ", "signed unsigned int"). */
static dt_type_t *words_type(dt_pcb_t *pcb, const spec_words_t *w,
			     const char *base, int line)
{
	char dname[64], cname[64];
	const char *len = w->nlong > 1 ? "long long " : w->nlong ? "long " :
			  w->nshort ? "short " : "";
	dt_type_t *t = NULL;

	/* DTrace's name: "int" is left out after short and long */
	snprintf(dname, sizeof(dname), "%s%s%s%s%s",
		 w->nsigned ? "signed " : "", w->nunsigned ? "unsigned " : "",
		 w->nshort ? "short " : "", w->nlong == 1 ? "long " :
		 w->nlong == 2 ? "long long " : w->nlong > 2 ?
		 "long long long " : "",
		 base == NULL && (w->nshort || w->nlong || w->nsigned ||
				  w->nunsigned) ? "" :
		 base == NULL ? "int" : (w->nshort || w->nlong) &&
		 strcmp(base, "int") == 0 ? "" : base);
	if (!(w->nsigned && w->nunsigned) && !(w->nshort && w->nlong) &&
	    w->nlong <= 2) {
		snprintf(cname, sizeof(cname), "%s%s%s",
			 w->nunsigned ? "unsigned " : w->nsigned &&
			 base != NULL && strcmp(base, "char") == 0 ?
			 "signed " : "", len, base != NULL ? base : "int");
		t = dt_type_lookup(TT(pcb), cname);
	}
	if (t == NULL)
		dt_pcb_error(pcb, D_UNKNOWN, line, "failed to resolve type "
			     "%s: Unknown type name", dname);
	return t;
}

static dt_type_t *parse_specifiers(dt_pcb_t *pcb)
{
	spec_words_t w = { 0 };
	dt_type_t *named = NULL;
	int line = peek(pcb)->line, fsize = 0;

	for (;;) {
		const dt_token_t *t = peek(pcb);

		if (count_word(&w, t->kind)) {
			dt_lex_next(pcb);
			continue;
		}
		switch (t->kind) {
		case T_CONST: case T_VOLATILE: case T_RESTRICT:
		case T_USERLAND:
			dt_lex_next(pcb);
			continue;
		case T_FLOAT: case T_DOUBLE:
			fsize = t->kind == T_FLOAT ? 4 : 8;
			w.nfloat++;
			dt_lex_next(pcb);
			continue;
		case T_STRING_KW:
		case T_STRUCT: case T_UNION: case T_ENUM:
		case T_IDENT:
			/* after a base type, a name is the declarator's */
			if (named != NULL || w.nchar + w.nint + w.nvoid > 0 ||
			    (t->kind == T_IDENT &&
			     !dt_lex_is_typedef_name(pcb, t->name)))
				break;
			/* t points into the lookahead: done with it first */
			if (t->kind == T_STRUCT || t->kind == T_UNION ||
			    t->kind == T_ENUM) {
				named = parse_tagged(pcb);
			} else {
				named = dt_btf_scoped_typedef(pcb->dtp, t->name);
				if (named == NULL)
					named = dt_type_lookup(TT(pcb), t->text);
				dt_lex_next(pcb);
			}
			continue;
		default:
			break;
		}
		break;
	}
	check_words(pcb, &w, named, fsize, line);
	if (fsize > 0 && (w.nshort || w.nlong > 1 || (w.nlong && fsize == 4)))
		dt_pcb_error(pcb, D_UNKNOWN, line, "failed to resolve type "
			     "%s%s: Unknown type name", w.nshort ? "short " :
			     w.nlong > 1 ? "long long " : "long ",
			     fsize == 4 ? "float" : "double");
	if (fsize > 0)		/* long double: 16 bytes */
		return dt_type_float(TT(pcb), w.nlong ? 16 : (unsigned)fsize);
	if (named != NULL)
		return named;
	if (w.nchar + w.nint + w.nvoid + w.nshort + w.nlong + w.nsigned +
	    w.nunsigned == 0)	/* an identifier that names no type, where
				   one must be: DTrace's grammar refuses it */
		syntax_error(pcb, peek(pcb));
	return words_type(pcb, &w, w.nchar ? "char" : w.nvoid ? "void" :
			  w.nint ? "int" : NULL, line);
}

/* Skip tokens after an opening open up to its matching close. */
static void skip_balanced(dt_pcb_t *pcb, dt_tokkind_t open, dt_tokkind_t close)
{
	int depth = 1;

	while (depth > 0) {
		const dt_token_t *t = peek(pcb);

		if (t->kind == T_EOF)
			syntax_error(pcb, t);
		if (t->kind == open)
			depth++;
		else if (t->kind == close)
			depth--;
		dt_lex_next(pcb);
	}
}

/* A storage class other than register, which a parameter may not take. */
static bool param_class(dt_tokkind_t k)
{
	return k == T_STATIC || k == T_EXTERN || k == T_AUTO ||
	       k == T_TYPEDEF || k == T_SELF || k == T_THIS;
}

/*
 * The parameters of a function declarator, after its '(', skipped up to
 * the matching ')' (D calls no C function) but checked as DTrace checks a
 * prototype: no storage class but register on a parameter, and a void
 * parameter only as the sole one.
 */
static void skip_params(dt_pcb_t *pcb)
{
	int depth = 1, nparams = 0, ntokens = 0, line = peek(pcb)->line;
	bool void_param = false, only_void = false;

	while (depth > 0) {
		const dt_token_t *t = peek(pcb);

		if (t->kind == T_EOF)
			syntax_error(pcb, t);
		if (depth == 1 && param_class(t->kind))
			dt_pcb_error(pcb, D_DECL_PARMCLASS, t->line,
				     "inappropriate storage class for "
				     "function or associative array "
				     "parameter");
		if (t->kind == T_LPAREN)
			depth++;
		else if (t->kind == T_RPAREN)
			depth--;
		if (depth == 0 || (depth == 1 && t->kind == T_COMMA)) {
			nparams += ntokens > 0;
			void_param |= only_void && ntokens == 1;
			ntokens = 0;
		} else if (ntokens++ == 0) {
			only_void = t->kind == T_VOID;
		}
		dt_lex_next(pcb);
	}
	if (void_param && nparams > 1)
		dt_pcb_error(pcb, D_DECL_PROTO_VOID, line,
			     "void must be sole parameter");
}

/*
 * The declarators of C's system headers that D has no use for, so that
 * -C takes <signal.h> and the like: a parenthesized declarator, "(*name)"
 * followed by parameters (a pointer to a function, typed here as a
 * pointer to void), and the parameters of a function after its name
 * (skipped: D calls no C function).  Returns the type; *is_func is set
 * for a function (a prototype or, with a body, a definition).
 */
static dt_type_t *parse_c_declarator(dt_pcb_t *pcb, dt_type_t *t,
				     const char **name, bool *is_func)
{
	*is_func = false;
	if (accept(pcb, T_LPAREN)) {
		bool fptr = false;

		while (accept(pcb, T_STAR))
			fptr = true;
		*name = expect_ident(pcb);
		t = parse_array_dims(pcb, t);
		expect(pcb, T_RPAREN);
		if (accept(pcb, T_LPAREN)) {
			skip_params(pcb);
			*is_func = !fptr;
			fptr = true;
		}
		return fptr ? dt_type_ptr(TT(pcb), dt_type_void(TT(pcb))) : t;
	}
	*name = expect_ident(pcb);
	if (accept(pcb, T_LPAREN)) {
		skip_params(pcb);
		*is_func = true;
	}
	return t;
}

static dt_type_t *parse_pointers(dt_pcb_t *pcb, dt_type_t *t)
{
	for (;;) {
		if (accept(pcb, T_STAR))
			t = dt_type_ptr(TT(pcb), t);
		else if (!accept(pcb, T_CONST) && !accept(pcb, T_VOLATILE) &&
			 !accept(pcb, T_RESTRICT))
			return t;
	}
}

/* The dimensions from the next '[' on, of elements of type t: int a[2][3]
 * is an array of 2 arrays of 3 ints, so the innermost is built first. */
static dt_type_t *array_dims_from(dt_pcb_t *pcb, dt_type_t *t, int line)
{
	int64_t d;

	if (!accept(pcb, T_LBRACK))
		return t;
	if (t->kind == DT_TK_VOID)
		dt_pcb_error(pcb, D_DECL_VOIDOBJ, line,
			     "cannot declare array of void");
	d = const_expr(pcb, NULL, D_DECL_ARRSUB, array_subscript);
	expect(pcb, T_RBRACK);
	return array_of(pcb, array_dims_from(pcb, t, line), d, line);
}

static dt_type_t *parse_array_dims(dt_pcb_t *pcb, dt_type_t *t)
{
	return array_dims_from(pcb, t, peek(pcb)->line);
}

/* A type name: specifiers and an abstract declarator ("char *", "int[4]"). */
dt_type_t *parse_type_name(dt_pcb_t *pcb)
{
	dt_type_t *t = parse_pointers(pcb, parse_specifiers(pcb));

	return parse_array_dims(pcb, t);
}

/* ---- declarations ---- */

/* A variable declared again the same way is the same variable. */
static void add_var(dt_pcb_t *pcb, dt_vardecl_t *v)
{
	dt_program_ast_t *prog = pcb->prog;
	const dt_vardecl_t *o;

	prog->var_names.pcb = pcb;
	if ((o = dt_strmap_get(&prog->var_names, v->vclass, v->name)) != NULL) {
		dt_decl_redeclared(pcb, v, o->type, o->nkeys, o->keys);
		return;
	}
	dt_strmap_put(&prog->var_names, v->vclass, v->name, v);
	if (prog->vars_tail == NULL)
		prog->vars_tail = &prog->vars;
	*prog->vars_tail = v;
	prog->vars_tail = &v->next;
}

/* The keys of an associative array declaration, after its '['. */
static void parse_keys(dt_pcb_t *pcb, dt_vardecl_t *v)
{
	dt_type_t *keys[64];
	const char *names[64];
	int n = 0, i;

	do {
		dt_type_t *k = parse_type_name(pcb);

		if (n == 64)	/* more than the key area holds anyway */
			dt_pcb_error(pcb, D_ARR_KEYS, v->line, "the keys of "
				     "%s: more than 64", v->name);
		names[n] = peek_is(pcb, T_IDENT) ? expect_ident(pcb) : NULL;
		keys[n++] = k;
	} while (accept(pcb, T_COMMA));
	expect(pcb, T_RBRACK);
	for (i = 0; i < n; i++)
		if (keys[i]->kind == DT_TK_VOID)
			dt_pcb_error(pcb, D_DECL_PROTO_TYPE, v->line,
				     "array prototype may not use parameter "
				     "of type void: %s, parameter #%d",
				     names[i] ? names[i] : "(anonymous)",
				     i + 1);
	v->keys = dt_pcb_alloc(pcb, (size_t)n * sizeof(*v->keys));
	memcpy(v->keys, keys, (size_t)n * sizeof(*v->keys));
	v->nkeys = n;
}

static _Noreturn void bad_class(dt_pcb_t *pcb, int line)
{
	dt_pcb_error(pcb, D_DECL_BADCLASS, line, "specified storage class "
		     "not appropriate in D");
}

typedef struct decl_spec {
	bool is_typedef, is_extern;
	bool c_class;		/* auto, register or static: C's, which D
				   takes for functions (of -C's headers) only */
	dt_varclass_t vclass;
	dt_type_t *base;
} decl_spec_t;

/*
 * One declarator of a declaration: "*name", "name[4]", "a[string, int]",
 * or one of C's (parse_c_declarator()).  Returns true after a function's
 * body, which ends the declaration.
 */
static bool parse_declarator(dt_pcb_t *pcb, const decl_spec_t *ds)
{
	dt_type_t *t = parse_pointers(pcb, ds->base);
	int line = peek(pcb)->line;
	dt_vardecl_t *v = dt_pcb_alloc(pcb, sizeof(*v));
	const char *name;
	bool is_func;

	t = parse_c_declarator(pcb, t, &name, &is_func);
	if (is_func && !ds->is_typedef) {
		/* a C function: nothing for D; a body (static inline) skipped */
		if (accept(pcb, T_LBRACE)) {
			skip_balanced(pcb, T_LBRACE, T_RBRACE);
			return true;
		}
		return false;
	}
	v->vclass = ds->vclass;
	v->name = name;
	v->line = line;
	v->nkeys = -1;
	if (peek_is(pcb, T_LBRACK) && !ds->is_typedef &&
	    is_type_start(pcb, dt_lex_peek(pcb, 1))) {
		dt_lex_next(pcb);
		parse_keys(pcb, v);
	} else {
		t = parse_array_dims(pcb, t);
	}
	v->type = t;
	if (ds->is_typedef) {
		if (is_func)	/* a function type: only pointers to it */
			t = dt_type_void(TT(pcb));
		if (dt_type_typedef(TT(pcb), v->name, t) != 0)
			dt_pcb_error(pcb, D_DECL_IDRED, v->line,
				     "typedef redeclared: %s", v->name);
		return false;
	}
	if (t->kind == DT_TK_VOID)
		dt_pcb_error(pcb, D_DECL_VOIDOBJ, v->line,
			     "cannot have void object: %s", v->name);
	if ((t->kind == DT_TK_STRUCT || t->kind == DT_TK_UNION ||
	     t->kind == DT_TK_ENUM) && !t->complete && !ds->is_extern)
		dt_pcb_error(pcb, D_DECL_INCOMPLETE, v->line, "incomplete "
			     "struct/union/enum %s: %s", t->name, v->name);
	if (ds->is_extern)
		return false;	/* a symbol of the traced program */
	if (ds->c_class)
		bad_class(pcb, v->line);
	if (t->size > DT_VAR_SIZE_MAX)	/* DTrace refuses it when enabling */
		dt_pcb_error(pcb, D_DECL_ARRBIG, v->line, "%s is too big: "
			     "%llu bytes, a variable holds at most %llu",
			     v->name, (unsigned long long)t->size,
			     (unsigned long long)DT_VAR_SIZE_MAX);
	add_var(pcb, v);
	return false;
}

static void parse_inline(dt_pcb_t *pcb)
{
	dt_inline_t *in = dt_pcb_alloc(pcb, sizeof(*in)), **ip;
	dt_token_t name;

	in->type = parse_pointers(pcb, parse_specifiers(pcb));
	name = expect(pcb, T_IDENT);
	in->name = name.name;
	in->line = name.line;
	in->type = parse_array_dims(pcb, in->type);
	expect(pcb, T_ASSIGN);
	in->expr = parse_assign(pcb);
	expect(pcb, T_SEMI);
	for (ip = &pcb->prog->inlines; *ip != NULL; ip = &(*ip)->next)
		if (strcmp((*ip)->name, in->name) == 0)
			dt_pcb_error(pcb, D_DECL_IDRED, in->line,
				     "identifier redeclared: %s", in->name);
	*ip = in;
}

/* The void parameters of a probe's prototype: only alone and unnamed, as
 * DTrace's prototypes take it ("(void)" itself is no parameter). */
static void check_void_params(dt_pcb_t *pcb, dt_type_t **t,
			      const char **names, int n, int line)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (t[i]->kind != DT_TK_VOID)
			continue;
		any = true;
		if (names[i] != NULL)
			dt_pcb_error(pcb, D_DECL_PROTO_NAME, line, "void "
				     "parameter may not have a name: %s",
				     names[i]);
	}
	if (any)
		dt_pcb_error(pcb, D_DECL_PROTO_VOID, line,
			     "void must be sole parameter");
}

/* A parameter list of a probe declaration, after its '('. */
static int parse_params(dt_pcb_t *pcb, dt_type_t ***types,
			const char ***names)
{
	dt_type_t *t[DTRACE_ARGS_MAX];
	const char *nm[DTRACE_ARGS_MAX];
	int n = 0, line = peek(pcb)->line;

	if (peek_is(pcb, T_VOID) && dt_lex_peek(pcb, 1)->kind == T_RPAREN)
		dt_lex_next(pcb);
	if (!accept(pcb, T_RPAREN)) {
		do {
			int pline = peek(pcb)->line;
			dt_type_t *ty = parse_pointers(pcb,
						       parse_specifiers(pcb));
			const char *name = NULL;

			if (peek_is(pcb, T_IDENT))
				name = expect_ident(pcb);
			ty = parse_array_dims(pcb, ty);
			if (n == DTRACE_ARGS_MAX)
				dt_pcb_error(pcb, D_PROV_INCOMPAT, pline,
					     "too many probe arguments "
					     "(at most %d)", DTRACE_ARGS_MAX);
			t[n] = ty;
			nm[n++] = name;
		} while (accept(pcb, T_COMMA));
		expect(pcb, T_RPAREN);
		check_void_params(pcb, t, nm, n, line);
	}
	*types = dt_pcb_alloc(pcb, (size_t)(n + 1) * sizeof(**types));
	*names = dt_pcb_alloc(pcb, (size_t)(n + 1) * sizeof(**names));
	memcpy(*types, t, (size_t)n * sizeof(**types));
	memcpy(*names, nm, (size_t)n * sizeof(**names));
	return n;
}

/* The index of name in names[0 .. n - 1], or -1. */
static int name_index(const char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* The native arguments' names are their own: each at most once. */
static void check_native_names(dt_pcb_t *pcb, const dt_probedecl_t *pr)
{
	for (int i = 0; i < pr->nargs; i++)
		if (pr->argnames[i] != NULL &&
		    name_index(pr->argnames, i, pr->argnames[i]) >= 0)
			dt_pcb_error(pcb, D_DECL_PROTO_FORM, pr->line,
				     "parameter is already declared in probe "
				     "input prototype: %s, parameter #%d",
				     pr->argnames[i], i + 1);
}

/*
 * Map the translated arguments (after ':') to native ones, by name: as in
 * DTrace, each translated argument is named, by the name of the native
 * argument it is translated from.
 */
static void map_args(dt_pcb_t *pcb, dt_probedecl_t *pr,
		     const char **xnames)
{
	pr->mapping = dt_pcb_alloc(pcb, (size_t)(pr->nxargs + 1) *
				   sizeof(int));
	for (int i = 0; i < pr->nxargs; i++) {
		if (xnames[i] == NULL)
			dt_pcb_error(pcb, D_DECL_PROTO_NAME, pr->line,
				     "parameter declaration requires a name: "
				     "parameter #%d", i + 1);
		int j = name_index(pr->argnames, pr->nargs, xnames[i]);
		if (j < 0)
			dt_pcb_error(pcb, D_DECL_PROTO_FORM, pr->line,
				     "parameter is not declared in probe "
				     "output prototype: %s, parameter #%d",
				     xnames[i], i + 1);
		pr->mapping[i] = j;
	}
}

static dt_probedecl_t *parse_probe_decl(dt_pcb_t *pcb)
{
	dt_probedecl_t *pr = dt_pcb_alloc(pcb, sizeof(*pr));
	dt_token_t name;
	const char **xnames;
	int i;

	expect(pcb, T_PROBE);
	name = expect(pcb, T_IDENT);
	pr->name = name.name;
	pr->line = name.line;
	expect(pcb, T_LPAREN);
	pr->nargs = parse_params(pcb, &pr->args, &pr->argnames);
	check_native_names(pcb, pr);
	if (accept(pcb, T_COLON)) {
		expect(pcb, T_LPAREN);
		pr->nxargs = parse_params(pcb, &pr->xargs, &xnames);
		map_args(pcb, pr, xnames);
	} else {
		pr->nxargs = pr->nargs;
		pr->xargs = pr->args;
		pr->mapping = dt_pcb_alloc(pcb, (size_t)(pr->nargs + 1) *
					   sizeof(int));
		for (i = 0; i < pr->nargs; i++)
			pr->mapping[i] = i;
	}
	expect(pcb, T_SEMI);
	return pr;
}

/* One prototype ("input" or "output") of a probe declared again: the
 * same number and types of arguments as before (DTrace's messages). */
static void prototype_same(dt_pcb_t *pcb, const char *prv,
			   const dt_probedecl_t *now, const char *kind,
			   dt_type_t **old, int nold, dt_type_t **new, int nnew)
{
	int i;

	if (nold != nnew)
		dt_pcb_error(pcb, D_PROV_INCOMPAT, now->line, "probe %s:%s %s "
			     "prototype mismatch:\n\t current: %d arg%s\n"
			     "\tprevious: %d arg%s", prv, now->name, kind,
			     nnew, nnew != 1 ? "s" : "", nold,
			     nold != 1 ? "s" : "");
	for (i = 0; i < nold; i++)
		if (old[i] != new[i] && strcmp(old[i]->name, new[i]->name) != 0)
			dt_pcb_error(pcb, D_PROV_INCOMPAT, now->line, "probe "
				     "%s:%s %s prototype argument #%d "
				     "mismatch:\n\t current: %s\n\tprevious: "
				     "%s", prv, now->name, kind, i + 1,
				     new[i]->name, old[i]->name);
}

/* A provider declared again: each probe it declares must have been
 * declared before with the same prototypes. */
static void provider_same(dt_pcb_t *pcb, const dt_providerdecl_t *old,
			  const dt_providerdecl_t *pv)
{
	const dt_probedecl_t *pr, *o;

	for (pr = pv->probes; pr != NULL; pr = pr->next) {
		for (o = old->probes; o != NULL; o = o->next)
			if (strcmp(o->name, pr->name) == 0)
				break;
		if (o == NULL)
			dt_pcb_error(pcb, D_PROV_INCOMPAT, pr->line, "provider "
				     "interface mismatch: %s\n\t current: "
				     "probe %s:%s defined\n\tprevious: probe "
				     "%s:%s not defined", pv->name, pv->name,
				     pr->name, pv->name, pr->name);
		prototype_same(pcb, pv->name, pr, "output", o->xargs,
			       o->nxargs, pr->xargs, pr->nxargs);
		if (o->xargs != o->args && pr->xargs != pr->args)
			prototype_same(pcb, pv->name, pr, "input", o->args,
				       o->nargs, pr->args, pr->nargs);
	}
}

static void parse_provider(dt_pcb_t *pcb)
{
	dt_providerdecl_t *pv = dt_pcb_alloc(pcb, sizeof(*pv)), **pp;
	dt_probedecl_t **tail = &pv->probes, *pr;
	dt_strmap_t seen = { .pcb = pcb };	/* the probes' names */
	dt_token_t name;

	expect(pcb, T_PROVIDER);
	name = expect(pcb, T_IDENT);
	pv->name = name.name;
	pv->line = name.line;
	expect(pcb, T_LBRACE);
	while (!accept(pcb, T_RBRACE)) {
		pr = parse_probe_decl(pcb);
		if (dt_strmap_get(&seen, 0, pr->name) != NULL)
			dt_pcb_error(pcb, D_PROV_PRDUP, pr->line,
				     "probe redeclared: %s:%s",
				     pv->name, pr->name);
		dt_strmap_put(&seen, 0, pr->name, pr);
		*tail = pr;
		tail = &pr->next;
	}
	expect(pcb, T_SEMI);
	for (pp = &pcb->prog->providers; *pp != NULL; pp = &(*pp)->next)
		if (strcmp((*pp)->name, pv->name) == 0) {
			/* a provider may be declared again, the same way */
			provider_same(pcb, *pp, pv);
			return;
		}
	*pp = pv;
}

/* One "member = expr;" of a translator's body. */
static dt_xlmember_t *parse_xlator_member(dt_pcb_t *pcb, dt_type_t *out)
{
	dt_xlmember_t *m = dt_pcb_alloc(pcb, sizeof(*m));
	dt_token_t name = dt_lex_next(pcb);

	if (name.kind != T_IDENT && name.kind < T_KW_FIRST)
		syntax_error(pcb, &name);
	m->name = name.name;
	m->line = name.line;
	if (dt_type_member(out, m->name) == NULL)
		dt_pcb_error(pcb, D_XLATE_MEMB, m->line, "translator member "
			     "%s is not a member of %s", m->name, out->name);
	expect(pcb, T_ASSIGN);
	m->expr = parse_assign(pcb);
	expect(pcb, T_SEMI);
	return m;
}

/*
 * translator OUT < IN PARAM > { member = expr; ... };  OUT must be a
 * complete struct or union, each member one of its members.  The
 * expressions are checked when the program's declarations are
 * (dt_xlate_declare()).
 */
static void parse_translator(dt_pcb_t *pcb)
{
	dt_xlator_t *xl = dt_pcb_alloc(pcb, sizeof(*xl)), **xp;
	dt_xlmember_t **mp = &xl->members;

	xl->line = expect(pcb, T_TRANSLATOR).line;
	xl->out = parse_type_name(pcb);
	expect(pcb, T_LT);
	xl->in = parse_pointers(pcb, parse_specifiers(pcb));
	xl->param = expect_ident(pcb);
	expect(pcb, T_GT);
	if (xl->out->kind != DT_TK_STRUCT && xl->out->kind != DT_TK_UNION)
		dt_pcb_error(pcb, D_XLATE_SOU, xl->line, "translator output "
			     "type must be a struct or union");
	if (!xl->out->complete)
		dt_pcb_error(pcb, D_XLATE_SOU, xl->line, "incomplete "
			     "struct/union/enum %s", xl->out->name);
	expect(pcb, T_LBRACE);
	while (!accept(pcb, T_RBRACE)) {
		*mp = parse_xlator_member(pcb, xl->out);
		mp = &(*mp)->next;
	}
	expect(pcb, T_SEMI);
	for (xp = &pcb->prog->xlators; *xp != NULL; xp = &(*xp)->next)
		;
	*xp = xl;
}

/* DTrace's storage classes: a declaration takes one at most. */
static bool is_storage_class(dt_tokkind_t k)
{
	return k == T_REGISTER || param_class(k);
}

void parse_declaration(dt_pcb_t *pcb)
{
	decl_spec_t ds = { .vclass = DT_VC_GLOBAL };
	const dt_token_t *t = peek(pcb);

	if (t->kind == T_PROVIDER) {
		parse_provider(pcb);
		return;
	}
	if (accept(pcb, T_INLINE)) {
		parse_inline(pcb);
		return;
	}
	if (t->kind == T_TRANSLATOR) {
		parse_translator(pcb);
		return;
	}
	for (int nclass = 0;; t = peek(pcb)) {
		if (is_storage_class(t->kind) && nclass++ > 0)
			dt_pcb_error(pcb, D_DECL_CLASS, t->line, "only one "
				     "storage class allowed in a declaration");
		if (t->kind == T_TYPEDEF)
			ds.is_typedef = true;
		else if (t->kind == T_EXTERN)
			ds.is_extern = true;
		else if (t->kind == T_SELF)
			ds.vclass = DT_VC_SELF;
		else if (t->kind == T_THIS)
			ds.vclass = DT_VC_THIS;
		else if (t->kind == T_STATIC || t->kind == T_REGISTER ||
			 t->kind == T_AUTO)
			ds.c_class = true;
		else
			break;
		dt_lex_next(pcb);
	}
	/* "register x;": a class and a name, which DTrace refuses for the
	 * class before it looks for a type */
	if (ds.c_class && t->kind == T_IDENT &&
	    !dt_lex_is_typedef_name(pcb, t->name))
		bad_class(pcb, t->line);
	ds.base = parse_specifiers(pcb);
	if (accept(pcb, T_SEMI))
		return;		/* struct foo { ... }; or a bare tag */
	do {
		if (parse_declarator(pcb, &ds))
			return;		/* a function's body */
	} while (accept(pcb, T_COMMA));
	expect(pcb, T_SEMI);
}
