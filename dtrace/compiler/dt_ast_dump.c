/* SPDX-License-Identifier: MIT */
/*
 * dt_ast_dump.c: the parse tree printed as S-expressions, one top-level
 * item a line (options, variables, inlines, providers, clauses), as the
 * parser's unit tests (test/unit/test_parse.c) compare it with what they
 * expect.  It reads the tree (dt_ast.h) and nothing else.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_ast.h"

static const char *op_name(dt_op_t op)
{
	static const char *const names[] = {
		[DT_OP_NONE] = "?", [DT_OP_NEG] = "-", [DT_OP_PLUS] = "+",
		[DT_OP_BITNOT] = "~", [DT_OP_LNOT] = "!", [DT_OP_DEREF] = "*",
		[DT_OP_ADDROF] = "&", [DT_OP_PREINC] = "pre++",
		[DT_OP_PREDEC] = "pre--", [DT_OP_POSTINC] = "post++",
		[DT_OP_POSTDEC] = "post--", [DT_OP_SIZEOF] = "sizeof",
		[DT_OP_STRINGOF] = "stringof", [DT_OP_ADD] = "+",
		[DT_OP_SUB] = "-", [DT_OP_MUL] = "*", [DT_OP_DIV] = "/",
		[DT_OP_MOD] = "%", [DT_OP_SHL] = "<<", [DT_OP_SHR] = ">>",
		[DT_OP_BAND] = "&", [DT_OP_BOR] = "|", [DT_OP_BXOR] = "^",
		[DT_OP_LAND] = "&&", [DT_OP_LOR] = "||", [DT_OP_LXOR] = "^^",
		[DT_OP_EQ] = "==", [DT_OP_NE] = "!=", [DT_OP_LT] = "<",
		[DT_OP_LE] = "<=", [DT_OP_GT] = ">", [DT_OP_GE] = ">=",
		[DT_OP_ASSIGN] = "=", [DT_OP_ADD_ASSIGN] = "+=",
		[DT_OP_SUB_ASSIGN] = "-=", [DT_OP_MUL_ASSIGN] = "*=",
		[DT_OP_DIV_ASSIGN] = "/=", [DT_OP_MOD_ASSIGN] = "%=",
		[DT_OP_SHL_ASSIGN] = "<<=", [DT_OP_SHR_ASSIGN] = ">>=",
		[DT_OP_AND_ASSIGN] = "&=", [DT_OP_OR_ASSIGN] = "|=",
		[DT_OP_XOR_ASSIGN] = "^=", [DT_OP_COMMA] = ",",
	};

	if ((unsigned)op >= sizeof(names) / sizeof(names[0]) || !names[op])
		return "?";
	return names[op];
}

static void dump_str(FILE *out, const char *s, size_t n)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 32 || c >= 127)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void dump_node(FILE *out, const dt_node_t *n);

static void dump_list(FILE *out, const dt_node_t *n)
{
	for (; n != NULL; n = n->next) {
		fputc(' ', out);
		dump_node(out, n);
	}
}

static void dump_int(FILE *out, const dt_node_t *n)
{
	if (n->type != NULL && n->type->is_signed)
		fprintf(out, "%" PRId64, (int64_t)n->ival);
	else
		fprintf(out, "%" PRIu64, n->ival);
}

static void dump_node(FILE *out, const dt_node_t *n)
{
	switch (n->kind) {
	case DT_N_INT:	dump_int(out, n); return;
	case DT_N_STRING: dump_str(out, n->str, n->slen); return;
	case DT_N_IDENT: fputs(n->name, out); return;
	case DT_N_AGG:	fprintf(out, "@%s", n->name); return;
	case DT_N_UNARY:
		fprintf(out, "(%s ", op_name(n->op));
		dump_node(out, n->l);
		break;
	case DT_N_BINARY:
		fprintf(out, "(%s ", op_name(n->op));
		dump_node(out, n->l);
		fputc(' ', out);
		dump_node(out, n->r);
		break;
	case DT_N_TERNARY:
		fputs("(? ", out);
		dump_node(out, n->cond);
		fputc(' ', out);
		dump_node(out, n->l);
		fputc(' ', out);
		dump_node(out, n->r);
		break;
	case DT_N_CAST:
		fprintf(out, "(cast \"%s\" ", n->ctype->name);
		dump_node(out, n->l);
		break;
	case DT_N_SIZEOF_TYPE:
		fprintf(out, "(sizeof \"%s\"", n->ctype->name);
		break;
	case DT_N_CALL:
		fprintf(out, "(call %s", n->name);
		dump_list(out, n->args);
		break;
	case DT_N_INDEX:
		fputs("([] ", out);
		dump_node(out, n->l);
		dump_list(out, n->args);
		break;
	case DT_N_MEMBER:
		fprintf(out, "(%s ", n->arrow ? "->" : ".");
		dump_node(out, n->l);
		fprintf(out, " %s", n->name);
		break;
	case DT_N_OFFSETOF:
		fprintf(out, "(offsetof \"%s\" %s", n->ctype->name, n->name);
		break;
	case DT_N_XLATE:
		fprintf(out, "(xlate \"%s\" ", n->ctype->name);
		dump_node(out, n->l);
		break;
	case DT_N_EXPR_STMT:
		dump_node(out, n->l);
		return;
	case DT_N_IF:
		fputs("(if ", out);
		dump_node(out, n->cond);
		fputs(" (then", out);
		dump_list(out, n->l);
		fputc(')', out);
		if (n->r != NULL) {
			fputs(" (else", out);
			dump_list(out, n->r);
			fputc(')', out);
		}
		break;
	case DT_N_BLOCK:
		fputs("(block", out);
		dump_list(out, n->l);
		break;
	}
	fputc(')', out);
}

static void dump_clause(FILE *out, const dt_clause_ast_t *c)
{
	const dt_pdesc_t *pd;

	fputs("(clause", out);
	for (pd = c->pdescs; pd != NULL; pd = pd->next) {
		fputs(" (pdesc ", out);
		dump_str(out, pd->text, strlen(pd->text));
		fprintf(out, " %s:%s:%s:%s)", pd->prv, pd->mod, pd->fun,
			pd->prb);
	}
	if (c->pred != NULL) {
		fputs(" (pred ", out);
		dump_node(out, c->pred);
		fputc(')', out);
	}
	fputs(" (body", out);
	dump_list(out, c->body);
	fputs("))\n", out);
}

static void dump_types(FILE *out, const char *what, dt_type_t **t, int n,
		       const char **names)
{
	int i;

	fprintf(out, " (%s", what);
	for (i = 0; i < n; i++) {
		fprintf(out, " \"%s\"", t[i]->name);
		if (names != NULL && names[i] != NULL)
			fprintf(out, ":%s", names[i]);
	}
	fputc(')', out);
}

static void dump_provider(FILE *out, const dt_providerdecl_t *pv)
{
	const dt_probedecl_t *pr;
	int i;

	fprintf(out, "(provider %s", pv->name);
	for (i = 0; i < 5; i++)
		if (pv->attrs[i] != NULL)
			fprintf(out, " (attr %d %s)", i, pv->attrs[i]);
	for (pr = pv->probes; pr != NULL; pr = pr->next) {
		fprintf(out, " (probe %s", pr->name);
		dump_types(out, "args", pr->args, pr->nargs, pr->argnames);
		if (pr->xargs != pr->args) {
			dump_types(out, "xargs", pr->xargs, pr->nxargs, NULL);
			fputs(" (map", out);
			for (i = 0; i < pr->nxargs; i++)
				fprintf(out, " %d", pr->mapping[i]);
			fputc(')', out);
		}
		fputc(')', out);
	}
	fputs(")\n", out);
}

void dt_ast_dump(FILE *out, const dt_program_ast_t *prog)
{
	static const char *const vclass[] = { "global", "self", "this" };
	const dt_pragma_opt_t *o;
	const dt_vardecl_t *v;
	const dt_inline_t *in;
	const dt_providerdecl_t *pv;
	const dt_clause_ast_t *c;
	int i;

	for (o = prog->options; o != NULL; o = o->next)
		fprintf(out, "(option %s%s%s)\n", o->name,
			o->value ? " " : "", o->value ? o->value : "");
	for (v = prog->vars; v != NULL; v = v->next) {
		fprintf(out, "(var %s %s \"%s\"", vclass[v->vclass], v->name,
			v->type->name);
		for (i = 0; i < v->nkeys; i++)
			fprintf(out, " [\"%s\"]", v->keys[i]->name);
		fputs(")\n", out);
	}
	for (in = prog->inlines; in != NULL; in = in->next) {
		fprintf(out, "(inline %s \"%s\" ", in->name, in->type->name);
		dump_node(out, in->expr);
		fputs(")\n", out);
	}
	for (pv = prog->providers; pv != NULL; pv = pv->next)
		dump_provider(out, pv);
	for (c = prog->clauses; c != NULL; c = c->next)
		dump_clause(out, c);
}
