/* SPDX-License-Identifier: MIT */
/*
 * dt_format.c: the formats of printf-like actions in the program
 * description: parsed and checked against their arguments when a clause
 * compiles (dt_printf_check), parsed again by the consumer's printf engine
 * (dt_printf.c) when its record is formatted.
 *
 * A format is literal text and conversions, `%[flags][width][.prec][len]c`
 * with the flags - + space # 0 ' and @ (the value of the aggregation, in
 * printa()), `*` widths and precisions taken from the next argument, `?` as
 * the width of a pointer (16), and the length modifiers hh h l ll L j z t,
 * which are accepted and otherwise ignored: as in DTrace, the size of a
 * value is the size of its recorded argument, and its sign comes from the
 * conversion (%d/%i follow the argument's type: an unsigned argument
 * prints as %u).  Escapes were decoded by the lexer already.
 *
 * dt_printf_check()'s messages follow DTrace's wording without the
 * leading "printf( ) ": the caller knows which function it checks and
 * prefixes "name( ) ".
 *
 * Invariant: the checker and the runner parse with the same function
 * (pf_parse), so a format the checker accepted never surprises the runner.
 */
#include <ctype.h>
#include <string.h>

#include "dt_progdesc.h"

pf_class_t pf_class(char c)
{
	switch (c) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		return PF_INT;
	case 'c': case 'C':
		return PF_CHAR;
	case 'p': case 'a': case 'A':
		return PF_ADDR;
	case 's': case 'S': case 'I':
		return PF_STR;
	case 'P':
		return PF_PORT;
	case 'Y': case 'T':
		return PF_TIME;
	case 'e': case 'E': case 'f': case 'g': case 'G':
		return PF_FLOAT;
	case '%':
		return PF_PCT;
	case 'k':
		return PF_STACK;
	default:
		return PF_NONE;
	}
}

static const char *pf_proto(pf_class_t cls)
{
	switch (cls) {
	case PF_INT:	return "char, short, int, long, or long long";
	case PF_CHAR:	return "char, short, or int";
	case PF_ADDR:	return "pointer or integer";
	case PF_STR:	return "char [] or string (or use stringof)";
	case PF_TIME:	return "int64_t";
	case PF_PORT:	return "uint16_t";
	case PF_FLOAT:	return "float, double, or long double";
	case PF_STACK:	return "stack";
	default:	return "void";
	}
}

/* Whether DTrace defines the conversion of length modifier len and
 * conversion character conv: h, hh (char) and ll with the integer ones, l
 * with those and c and s, L with the floating-point ones, w with c and s
 * (%wc, %ws, as %lc and %ls). */
static bool pf_len_ok(const char *len, char conv)
{
	static const struct {
		const char *len, *convs;
	} defined[] = {
		{ "", NULL }, { "h", "diouxX" }, { "hh", "diouxX" },
		{ "l", "diouxXcs" }, { "ll", "diouxX" }, { "L", "eEfgG" },
		{ "w", "cs" },
	};

	for (size_t i = 0; i < sizeof(defined) / sizeof(defined[0]); i++)
		if (strcmp(len, defined[i].len) == 0)
			return defined[i].convs == NULL ||
			       strchr(defined[i].convs, conv) != NULL;
	return false;
}

void pf_addflag(pf_spec_t *sp, char f)
{
	size_t n = strlen(sp->flags);

	if (strchr(sp->flags, f) == NULL && n + 1 < sizeof(sp->flags)) {
		sp->flags[n] = f;
		sp->flags[n + 1] = '\0';
	}
}

int pf_parse(const char *p, int convno, pf_spec_t *sp, char *err,
	     size_t errlen)
{
	bool dot = false;
	size_t nlen = 0;

	memset(sp, 0, sizeof(*sp));
	sp->width = sp->prec = -1;
	sp->start = p++;
	for (;; p++) {
		char c = *p;

		if (c == '\0') {
			snprintf(err, errlen, "format conversion #%d name "
				 "expected before end of format string",
				 convno);
			return -1;
		}
		if (c == '0' && !dot && sp->width < 0) {
			pf_addflag(sp, '0');
		} else if (isdigit((unsigned char)c)) {
			int n = 0;

			while (isdigit((unsigned char)*p) && n < 100000)
				n = n * 10 + (*p++ - '0');
			p--;
			if (dot)
				sp->prec = n;
			else
				sp->width = n;
		} else if (c == '-' || c == '+' || c == ' ' || c == '#') {
			pf_addflag(sp, c);
		} else if (c == '\'') {
			/* thousands grouping: accepted, printed plainly */
		} else if (c == '@') {
			sp->agg = true;
		} else if (c == '?') {
			sp->width = 16;
		} else if (c == '*') {
			if (dot ? sp->dynprec : sp->dynwidth) {
				snprintf(err, errlen, "format conversion #%d "
					 "has more than one '*' specified for "
					 "the output %s", convno,
					 dot ? "precision" : "width");
				return -1;
			}
			if (dot)
				sp->dynprec = true;
			else
				sp->dynwidth = true;
		} else if (c == '.') {
			if (dot) {
				snprintf(err, errlen, "format conversion #%d "
					 "has more than one '.' specified",
					 convno);
				return -1;
			}
			dot = true;
			sp->prec = 0;
		} else if (c == '$') {
			snprintf(err, errlen, "format conversion #%d uses "
				 "unsupported positional format (%%n$)",
				 convno);
			return -1;
		} else if (strchr("hlLw", c) != NULL) {
			if (nlen < sizeof(sp->len) - 1)
				sp->len[nlen++] = c;
		} else {
			sp->conv = c;
			sp->end = p + 1;
			break;
		}
	}
	if (sp->conv == '%' && p[-1] != '%') {
		snprintf(err, errlen, "format conversion #%d cannot be "
			 "combined with other format flags: %%%%", convno);
		return -1;
	}
	if (pf_class(sp->conv) == PF_NONE || !pf_len_ok(sp->len, sp->conv)) {
		snprintf(err, errlen, "format conversion #%d is undefined: "
			 "%%%s%c", convno, sp->len, sp->conv);
		return -1;
	}
	return 0;
}

dt_type_t dt_printf_stack_type = { .kind = DT_TK_VOID, .name = "stack" };

/* Does an argument of type t fit conversion class cls? */
static bool pf_fits(pf_class_t cls, const dt_type_t *t)
{
	if (t == NULL)
		return true;	/* unknown: checked at run time */
	switch (cls) {
	case PF_INT:
	case PF_ADDR:
		return dt_type_is_scalar(t);
	case PF_CHAR:
		return dt_type_is_integer(t) && t->size <= 4;
	case PF_STR:
		return t->kind == DT_TK_STRING ||
		       (t->kind == DT_TK_ARRAY && t->base != NULL &&
			t->base->kind == DT_TK_INT && t->base->size == 1);
	case PF_TIME:
		return dt_type_is_integer(t) && t->size == 8;
	case PF_PORT:
		return dt_type_is_integer(t) && t->size == 2;
	case PF_STACK:
		return t == &dt_printf_stack_type;	/* printa() keys */
	case PF_FLOAT:
		return dt_type_is_float(t);
	default:
		return false;
	}
}

static const char *pf_tname(const dt_type_t *t)
{
	return t != NULL && t->name != NULL ? t->name : "unknown";
}

int dt_printf_check(const char *fmt, int nargs, dt_type_t *const *types,
		    char *msg, size_t msglen)
{
	int convno = 0, argi = 0;
	const char *p = fmt;
	pf_spec_t sp;

	if (fmt == NULL || fmt[0] == '\0') {
		snprintf(msg, msglen, "format string is empty");
		return D_PRINTF_FMT_EMPTY;
	}
	while ((p = strchr(p, '%')) != NULL) {
		pf_class_t cls;
		int dyn;

		convno++;
		if (pf_parse(p, convno, &sp, msg, msglen) != 0)
			return D_SYNTAX;	/* DTrace's tag for these */
		p = sp.end;
		cls = pf_class(sp.conv);
		if (cls == PF_PCT)
			continue;
		for (dyn = 0; dyn < (int)sp.dynwidth + (int)sp.dynprec; dyn++) {
			const char *what = (dyn == 0 && sp.dynprec &&
					    !sp.dynwidth) || dyn == 1 ? ".*" : "*";

			if (argi >= nargs) {
				snprintf(msg, msglen, "prototype "
					 "mismatch: conversion #%d (%%%c) is "
					 "missing a corresponding \"%s\" "
					 "argument", convno, sp.conv, what);
				return D_PRINTF_DYN_PROTO;
			}
			if (types[argi] != NULL &&
			    !dt_type_is_integer(types[argi])) {
				snprintf(msg, msglen, "argument #%d "
					 "is incompatible with conversion #%d "
					 "prototype:\n\tconversion: %% %s %c\n"
					 "\t prototype: int\n\t  argument: %s",
					 argi + 2, convno, what, sp.conv,
					 pf_tname(types[argi]));
				return D_PRINTF_DYN_TYPE;
			}
			argi++;
		}
		if (sp.agg) {
			if (cls != PF_INT && cls != PF_CHAR) {
				snprintf(msg, msglen, "aggregating "
					 "action is incompatible with "
					 "conversion #%d prototype:\n"
					 "\tconversion: %%%c\n\t prototype: "
					 "%s\n\t  argument: int64_t", convno,
					 sp.conv, pf_proto(cls));
				return D_PRINTF_ARG_TYPE;
			}
			continue;
		}
		if (argi >= nargs) {
			snprintf(msg, msglen, "prototype mismatch: "
				 "conversion #%d (%%%s%c) is missing a "
				 "corresponding value argument", convno,
				 sp.len, sp.conv);
			return D_PRINTF_ARG_PROTO;
		}
		if (!pf_fits(cls, types[argi])) {
			snprintf(msg, msglen, "argument #%d is "
				 "incompatible with conversion #%d prototype:"
				 "\n\tconversion: %%%s%c\n\t prototype: %s\n"
				 "\t  argument: %s", argi + 2, convno, sp.len,
				 sp.conv, pf_proto(cls),
				 pf_tname(types[argi]));
			return D_PRINTF_ARG_TYPE;
		}
		argi++;
	}
	if (argi < nargs) {
		snprintf(msg, msglen, "prototype mismatch: only %d "
			 "arguments required by this format string", argi);
		return D_PRINTF_ARG_EXTRA;
	}
	return 0;
}

uint64_t dt_printf_addr_args(const char *fmt)
{
	const char *p = fmt;
	uint64_t mask = 0;
	int convno = 0, argi = 0;
	char err[128];
	pf_spec_t sp;

	while (p != NULL && (p = strchr(p, '%')) != NULL) {
		if (pf_parse(p, ++convno, &sp, err, sizeof(err)) != 0)
			break;
		p = sp.end;
		if (sp.conv == '%' || sp.agg)
			continue;
		argi += (int)sp.dynwidth + (int)sp.dynprec;
		if ((sp.conv == 'a' || sp.conv == 'A') && argi < 64)
			mask |= 1ULL << argi;
		argi++;
	}
	return mask;
}
