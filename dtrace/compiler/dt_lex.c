/* SPDX-License-Identifier: MIT */
/*
 * dt_lex.c: the D lexer.
 *
 * A hand-written scanner over the pcb's NUL-terminated copy of the source.
 * It has three modes, chosen by the parser:
 *  - normal tokens (C's, plus D's `^^`, `@agg`, `$macro`, keywords);
 *  - probe descriptions (dt_lex_pdesc), a run of glob-like characters read
 *    as one unit, because `syscall::open*:entry` or `tick-1s` are not C
 *    tokens;
 *  - predicates, where a '/' at parenthesis depth 0 followed by `{`, a line
 *    end or the end of input closes the predicate instead of dividing.
 * Control lines (`#pragma D ...`, cpp's `# N "file"` markers) are consumed
 * whenever blanks are skipped at the start of a line, so they never reach
 * the parser; `#pragma D option` lands in pcb->prog->options at once.
 *
 * Invariants: tokens live in a small ring (DT_LEX_LOOKAHEAD); every string
 * a token carries is in the pcb arena; every error goes through
 * dt_pcb_error() with the line of the offending text.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_lex.h"
#include "dt_btf.h"

#define LEX_NBUF (DT_LEX_LOOKAHEAD + 2)

/* #pragma D attributes, applied to provider declarations at the end. */
typedef struct lex_attr {
	const char *prov, *attr;
	int which;		/* index in dt_providerdecl_t.attrs */
	struct lex_attr *next;
} lex_attr_t;

typedef struct dt_lexer {
	const char *p, *end;
	int line;
	bool at_bol;		/* only blanks since the start of the line */
	dt_token_t buf[LEX_NBUF];
	int nbuf;
	bool in_pred;
	int depth;		/* ( and [ nesting inside a predicate */
	lex_attr_t *attrs;
	dt_pragma_opt_t **opt_tail;
	int nesting;		/* the parser's, see dt_lex_nesting() */
	bool *argref;		/* argref[N]: $N was used */
} dt_lexer_t;

static const struct {
	const char *name;
	dt_tokkind_t kind;
} keywords[] = {
	{ "auto", T_AUTO }, { "break", T_BREAK }, { "case", T_CASE },
	{ "char", T_CHAR }, { "const", T_CONST }, { "continue", T_CONTINUE },
	{ "default", T_DEFAULT }, { "do", T_DO }, { "double", T_DOUBLE },
	{ "else", T_ELSE }, { "enum", T_ENUM }, { "extern", T_EXTERN },
	{ "float", T_FLOAT }, { "for", T_FOR }, { "goto", T_GOTO },
	{ "if", T_IF }, { "import", T_IMPORT }, { "inline", T_INLINE },
	{ "int", T_INT_KW }, { "long", T_LONG }, { "offsetof", T_OFFSETOF },
	{ "probe", T_PROBE }, { "provider", T_PROVIDER },
	{ "register", T_REGISTER }, { "restrict", T_RESTRICT },
	{ "return", T_RETURN }, { "self", T_SELF }, { "short", T_SHORT },
	{ "signed", T_SIGNED }, { "sizeof", T_SIZEOF }, { "static", T_STATIC },
	{ "string", T_STRING_KW }, { "stringof", T_STRINGOF },
	{ "struct", T_STRUCT }, { "switch", T_SWITCH }, { "this", T_THIS },
	{ "translator", T_TRANSLATOR }, { "typedef", T_TYPEDEF },
	{ "union", T_UNION }, { "unsigned", T_UNSIGNED },
	{ "userland", T_USERLAND }, { "void", T_VOID },
	{ "volatile", T_VOLATILE }, { "while", T_WHILE }, { "xlate", T_XLATE },
};

/* Operators, longest first so that the first match is the longest one. */
static const struct {
	const char *text;
	dt_tokkind_t kind;
} operators[] = {
	{ "...", T_ELLIPSIS }, { "<<=", T_SHL_ASSIGN }, { ">>=", T_SHR_ASSIGN },
	{ "->", T_ARROW }, { "++", T_INC }, { "--", T_DEC },
	{ "&&", T_LAND }, { "||", T_LOR }, { "^^", T_LXOR },
	{ "<<", T_SHL }, { ">>", T_SHR }, { "==", T_EQ }, { "!=", T_NE },
	{ "<=", T_LE }, { ">=", T_GE }, { "+=", T_ADD_ASSIGN },
	{ "-=", T_SUB_ASSIGN }, { "*=", T_MUL_ASSIGN }, { "/=", T_DIV_ASSIGN },
	{ "%=", T_MOD_ASSIGN }, { "&=", T_AND_ASSIGN }, { "|=", T_OR_ASSIGN },
	{ "^=", T_XOR_ASSIGN },
	{ "(", T_LPAREN }, { ")", T_RPAREN }, { "[", T_LBRACK },
	{ "]", T_RBRACK }, { "{", T_LBRACE }, { "}", T_RBRACE },
	{ ";", T_SEMI }, { ",", T_COMMA }, { ".", T_DOT }, { "?", T_QUESTION },
	{ ":", T_COLON }, { "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
	{ "/", T_SLASH }, { "%", T_PERCENT }, { "&", T_AMP }, { "|", T_BAR },
	{ "^", T_CARET }, { "~", T_TILDE }, { "!", T_BANG }, { "<", T_LT },
	{ ">", T_GT }, { "=", T_ASSIGN },
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

const char *dt_tok_name(dt_tokkind_t kind)
{
	size_t i;

	for (i = 0; i < NELEMS(operators); i++)
		if (operators[i].kind == kind)
			return operators[i].text;
	for (i = 0; i < NELEMS(keywords); i++)
		if (keywords[i].kind == kind)
			return keywords[i].name;
	switch (kind) {
	case T_EOF:	return "end of input";
	case T_INT:	return "integer constant";
	case T_STRING:	return "string literal";
	case T_IDENT:	return "identifier";
	case T_AGG:	return "aggregation";
	case T_EPRED:	return "/";
	default:	return "token";
	}
}

static dt_lexer_t *LX(dt_pcb_t *pcb)
{
	return pcb->lex;
}

void dt_lex_init(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = dt_pcb_alloc(pcb, sizeof(*lx));

	lx->p = pcb->src;
	lx->end = pcb->src + pcb->srclen;
	lx->line = 1;
	lx->at_bol = true;
	lx->opt_tail = &pcb->prog->options;
	if (pcb->dtp->macro_argc > 0)
		lx->argref = dt_pcb_alloc(pcb, (size_t)pcb->dtp->macro_argc);
	while (lx->opt_tail && *lx->opt_tail)
		lx->opt_tail = &(*lx->opt_tail)->next;
	/* An interpreter line ("#!/usr/sbin/dtrace -s") is not D. */
	if (lx->end - lx->p >= 2 && lx->p[0] == '#' && lx->p[1] == '!')
		while (lx->p < lx->end && *lx->p != '\n')
			lx->p++;
	pcb->lex = lx;
}

int *dt_lex_nesting(dt_pcb_t *pcb)
{
	return &LX(pcb)->nesting;
}

int dt_lex_line(dt_pcb_t *pcb)
{
	return LX(pcb)->line;
}

/* The character at p, or 0 at the end (also for a NUL inside the text). */
static int ch(const dt_lexer_t *lx, const char *p)
{
	return p < lx->end ? (unsigned char)*p : 0;
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '`';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '`';
}

/* ---- control lines ---- */

/* The words of a control line, split on blanks, in the arena. */
typedef struct ctl_words {
	const char *w[64];
	int n;
} ctl_words_t;

static void ctl_split(dt_pcb_t *pcb, const char *s, size_t len,
		      ctl_words_t *cw)
{
	size_t i = 0;

	cw->n = 0;
	while (i < len) {
		size_t st;

		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i >= len)
			break;
		if (cw->n == (int)NELEMS(cw->w))
			dt_pcb_error(pcb, D_PRAGMA_MALFORM, LX(pcb)->line,
				     "control line has too many words");
		st = i;
		while (i < len && !isspace((unsigned char)s[i]))
			i++;
		cw->w[cw->n++] = dt_pcb_strndup(pcb, s + st, i - st);
	}
}

static void pragma_option(dt_pcb_t *pcb, const ctl_words_t *cw, int line)
{
	dt_lexer_t *lx = LX(pcb);
	int i;

	if (cw->n < 4 || cw->w[3][0] == '=')
		dt_pcb_error(pcb, D_PRAGMA_MALFORM, line,
			     "malformed #pragma option <option>=<val>");
	if (cw->n > 4)
		dt_pcb_error(pcb, D_PRAGMA_MALFORM, line,
			     "superfluous arguments specified for #pragma "
			     "option");
	for (i = 3; i < cw->n; i++) {
		dt_pragma_opt_t *o = dt_pcb_alloc(pcb, sizeof(*o));
		const char *eq = strchr(cw->w[i], '=');

		o->name = eq ? dt_pcb_strndup(pcb, cw->w[i], eq - cw->w[i]) :
			  cw->w[i];
		o->value = eq ? eq + 1 : NULL;
		o->line = line;
		*lx->opt_tail = o;
		lx->opt_tail = &o->next;
	}
}

static bool word_in(const char *w, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(w, *set) == 0)
			return true;
	return false;
}

/* "Name/Name/Class" with DTrace's stability and class names. */
static bool attr_valid(const char *a)
{
	static const char *const stab[] = { "Internal", "Private", "Obsolete",
		"External", "Unstable", "Evolving", "Stable", "Standard",
		NULL };
	static const char *const cls[] = { "Unknown", "CPU", "Platform",
		"Group", "ISA", "Common", NULL };
	char buf[128], *s1, *s2;

	if (strlen(a) >= sizeof(buf))
		return false;
	strcpy(buf, a);
	if ((s1 = strchr(buf, '/')) == NULL ||
	    (s2 = strchr(s1 + 1, '/')) == NULL || strchr(s2 + 1, '/'))
		return false;
	*s1++ = '\0';
	*s2++ = '\0';
	return word_in(buf, stab) && word_in(s1, stab) && word_in(s2, cls);
}

static void pragma_attributes(dt_pcb_t *pcb, const ctl_words_t *cw, int line)
{
	static const char *const which[] = { "provider", "module", "function",
		"name", "args", NULL };
	dt_lexer_t *lx = LX(pcb);
	lex_attr_t *a;
	int i;

	if (cw->n < 5)
		dt_pcb_error(pcb, D_PRAGMA_MALFORM, line,
			     "malformed #pragma attributes <attributes> "
			     "<ident>");
	if (!attr_valid(cw->w[3]))
		dt_pcb_error(pcb, D_PRAGMA_INVAL, line, "invalid attributes "
			     "specified by #pragma attributes");
	if (cw->n != 7 || strcmp(cw->w[4], "provider") != 0)
		dt_pcb_error(pcb, D_PRAGMA_UNUSED, line,
			     "unused #pragma attributes");
	for (i = 0; which[i] != NULL; i++)
		if (strcmp(cw->w[6], which[i]) == 0)
			break;
	if (which[i] == NULL)
		dt_pcb_error(pcb, D_PRAGMA_INVAL, line, "invalid component "
			     "\"%s\" in attribute #pragma for provider %s",
			     cw->w[6], cw->w[5]);
	a = dt_pcb_alloc(pcb, sizeof(*a));
	a->prov = cw->w[5];
	a->attr = cw->w[3];
	a->which = i;
	a->next = lx->attrs;
	lx->attrs = a;
}

void dt_lex_apply_attributes(dt_pcb_t *pcb)
{
	lex_attr_t *a;
	dt_providerdecl_t *pd;

	for (a = LX(pcb)->attrs; a != NULL; a = a->next)
		for (pd = pcb->prog->providers; pd != NULL; pd = pd->next)
			if (strcmp(pd->name, a->prov) == 0 &&
			    pd->attrs[a->which] == NULL)
				pd->attrs[a->which] = a->attr;
}

/* Whether the kernel has module name: vmlinux, or one /sys/module
 * lists (loaded, or built in with parameters), as the modules of DTrace
 * on Linux are the kernel's. */
static bool kernel_module_known(const char *name)
{
	char path[PATH_MAX];

	if (strcmp(name, "vmlinux") == 0)
		return true;
	if (strchr(name, '/') != NULL || strcmp(name, "..") == 0 ||
	    strcmp(name, ".") == 0)
		return false;
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/*
 * #pragma D depends_on <class> <name>.  A script given to dtrace is a
 * main program, which may not name a library; a D library may name
 * another, loaded before it (pcb->lib_missing).  Providers are
 * those of the loaded plugins, modules the kernel's.
 */
static void pragma_depends(dt_pcb_t *pcb, const ctl_words_t *cw, int line)
{
	const char *cls = cw->n > 3 ? cw->w[3] : "";

	if (cw->n != 5)
		dt_pcb_error(pcb, D_PRAGMA_MALFORM, line, "malformed #pragma "
			     "depends_on <class> <name>");
	if (strcmp(cls, "library") == 0 && pcb->library) {
		const char *path = pcb->lib_missing(pcb, cw->w[4]);
		if (path != NULL)
			dt_pcb_error(pcb, D_PRAGMA_DEPEND, line, "program "
				     "requires library \"%s\" which failed to "
				     "load", path);
		return;
	}
	if (strcmp(cls, "library") == 0)
		dt_pcb_error(pcb, D_PRAGMA_DEPEND, line, "main program may "
			     "not explicitly depend on a library");
	if (strcmp(cls, "provider") == 0) {
		for (dt_provider_t *pv = pcb->dtp->providers; pv != NULL;
		     pv = pv->next)
			if (strcmp(pv->ops->name, cw->w[4]) == 0)
				return;
		dt_pcb_error(pcb, D_PRAGMA_DEPEND, line, "program requires "
			     "provider %s", cw->w[4]);
	}
	if (strcmp(cls, "module") != 0)
		dt_pcb_error(pcb, D_PRAGMA_INVAL, line, "invalid class %s "
			     "specified by #pragma depends_on", cls);
	if (!kernel_module_known(cw->w[4]))
		dt_pcb_error(pcb, D_PRAGMA_DEPEND, line, "program requires "
			     "module %s", cw->w[4]);
}

/* #error: its words, each followed by a blank, as DTrace prints them. */
_Noreturn static void control_error(dt_pcb_t *pcb, const ctl_words_t *cw,
				    int from, int line)
{
	size_t len = 1;

	for (int i = from; i < cw->n; i++)
		len += strlen(cw->w[i]) + 1;
	char *msg = dt_pcb_alloc(pcb, len);
	for (int i = from; i < cw->n; i++) {
		strcat(msg, cw->w[i]);
		strcat(msg, " ");
	}
	dt_pcb_error(pcb, D_PRAGERR, line, "#error: %s", msg);
}

static void pragma_d(dt_pcb_t *pcb, const ctl_words_t *cw, int line)
{
	const char *what = cw->n > 2 ? cw->w[2] : "";

	if (cw->n < 3)
		return;		/* "#pragma D" alone: nothing to do */
	if (strcmp(what, "option") == 0)
		pragma_option(pcb, cw, line);
	else if (strcmp(what, "attributes") == 0)
		pragma_attributes(pcb, cw, line);
	else if (strcmp(what, "depends_on") == 0)
		pragma_depends(pcb, cw, line);
	else if (strcmp(what, "binding") == 0) {
		if (cw->n != 5 || cw->w[3][0] != '"')
			dt_pcb_error(pcb, D_PRAGMA_MALFORM, line, "malformed "
				     "#pragma binding \"version\" <ident>");
	} else if (strcmp(what, "error") == 0) {
		control_error(pcb, cw, 3, line);
	} else if (strcmp(what, "ident") != 0) {
		dt_pcb_error(pcb, D_PRAGMA_INVAL, line, "invalid D pragma: %s",
			     what);
	}
}


/*
 * One control line, text after the '#' up to the end of the line.  cpp's
 * line markers ("# 12 "x.d" 1") set the number of the next line.
 */
static void control_line(dt_pcb_t *pcb, const char *s, size_t len)
{
	dt_lexer_t *lx = LX(pcb);
	ctl_words_t cw;
	int line = lx->line;

	ctl_split(pcb, s, len, &cw);
	if (cw.n == 0)
		return;		/* the null directive */
	if (isdigit((unsigned char)cw.w[0][0]) ||
	    (strcmp(cw.w[0], "line") == 0 && cw.n > 1 &&
	     isdigit((unsigned char)cw.w[1][0]))) {
		long n = strtol(cw.w[0][0] == 'l' ? cw.w[1] : cw.w[0], NULL,
				10);

		/* the newline that ends this line moves to line n */
		lx->line = (int)(n > 0 && n < INT_MAX ? n - 1 : 0);
		return;
	}
	if (strcmp(cw.w[0], "pragma") == 0) {
		if (cw.n > 1 && strcmp(cw.w[1], "D") == 0)
			pragma_d(pcb, &cw, line);
		else if (cw.n > 1 && strcmp(cw.w[1], "error") == 0)
			control_error(pcb, &cw, 2, line);
		return;		/* other pragmas are not D's: ignored */
	}
	if (strcmp(cw.w[0], "error") == 0)
		control_error(pcb, &cw, 1, line);
	if (strcmp(cw.w[0], "ident") == 0)
		return;
	dt_pcb_error(pcb, D_PRAGCTL_INVAL, line,
		     "invalid control directive: #%s", cw.w[0]);
}

/* ---- blanks and comments ---- */

static void skip_comment(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);
	int line = lx->line;

	lx->p += 2;
	for (;;) {
		if (lx->p >= lx->end)
			dt_pcb_error(pcb, D_SYNTAX, line,
				     "end-of-file encountered before matching "
				     "*/");
		if (lx->p[0] == '*' && ch(lx, lx->p + 1) == '/') {
			lx->p += 2;
			return;
		}
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
}

/* Skip blanks, comments and control lines. */
static void skip_blank(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);

	while (lx->p < lx->end) {
		int c = (unsigned char)*lx->p;

		if (c == '\n') {
			lx->line++;
			lx->at_bol = true;
			lx->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			lx->p++;
		} else if (c == '/' && ch(lx, lx->p + 1) == '*') {
			skip_comment(pcb);
		} else if (c == '/' && ch(lx, lx->p + 1) == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '#' && lx->at_bol) {
			const char *s = ++lx->p;

			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			/* a control line is acted on at its newline: one cut
			 * by the end of the file is refused, as DTrace's lexer
			 * does, before its directive is looked at */
			if (lx->p == lx->end)
				dt_pcb_error(pcb, D_SYNTAX, lx->line,
					     "end-of-file encountered before "
					     "end of control line");
			control_line(pcb, s, lx->p - s);
		} else {
			break;
		}
	}
}

/* ---- macros ---- */

/* The value of a macro variable as text ("$1" -> its argument; one not
 * given is 0, or "" for $$1, with -x defaultargs; $target is 0 when
 * there is no -c or -p). */
static const char *macro_value(dt_pcb_t *pcb, const char *name, bool dollar2,
			       int line)
{
	dtrace_hdl_t *dtp = pcb->dtp;
	char buf[32];
	long v;

	if (isdigit((unsigned char)name[0])) {
		char *end;
		unsigned long n = strtoul(name, &end, 10);
		bool given = *end == '\0' &&
			     n < (unsigned long)dtp->macro_argc &&
			     dtp->macro_argv != NULL &&
			     dtp->macro_argv[n] != NULL;

		if (!given && *end == '\0' && dtp->opt.defaultargs)
			return dollar2 ? "" : "0";
		if (!given)
			dt_pcb_error(pcb, D_MACRO_UNDEF, line,
				     "macro argument $%s is not defined",
				     name);
		LX(pcb)->argref[n] = true;
		return dtp->macro_argv[n];
	}
	if (strcmp(name, "pid") == 0)
		v = getpid();
	else if (strcmp(name, "ppid") == 0)
		v = getppid();
	else if (strcmp(name, "uid") == 0)
		v = getuid();
	else if (strcmp(name, "gid") == 0)
		v = getgid();
	else if (strcmp(name, "euid") == 0)
		v = geteuid();
	else if (strcmp(name, "egid") == 0)
		v = getegid();
	else if (strcmp(name, "pgid") == 0)
		v = getpgid(0);
	else if (strcmp(name, "sid") == 0)
		v = getsid(0);
	else if (strcmp(name, "target") == 0)
		v = dtp->target;	/* 0 without -c or -p, as in DTrace */
	else
		dt_pcb_error(pcb, D_MACRO_UNDEF, line,
			     "macro variable $%s is not defined", name);
	snprintf(buf, sizeof(buf), "%ld", v);
	return dt_pcb_strdup(pcb, buf);
}

/* Read "$name", "$N" or "$$..." at p: the name (arena) and the end. */
static const char *macro_name(dt_pcb_t *pcb, const char *p, bool *dollar2,
			      const char **name)
{
	dt_lexer_t *lx = LX(pcb);
	const char *s;

	p++;
	*dollar2 = ch(lx, p) == '$';
	if (*dollar2)
		p++;
	s = p;
	if (isdigit(ch(lx, p)))
		while (isdigit(ch(lx, p)))
			p++;
	else
		while (isalnum(ch(lx, p)) || ch(lx, p) == '_')
			p++;
	*name = dt_pcb_strndup(pcb, s, p - s);
	return p;
}

/*
 * Like DTrace, a script must use its last argument: a forgotten $N usually
 * means the arguments and the script disagree (-x argref allows it).
 */
void dt_lex_check_argref(dt_pcb_t *pcb)
{
	dtrace_hdl_t *dtp = pcb->dtp;
	int last = dtp->macro_argc - 1;

	if (last >= 1 && dtp->macro_argv != NULL && !dtp->opt.argref &&
	    !LX(pcb)->argref[last])
		dt_pcb_error(pcb, D_MACRO_UNUSED, LX(pcb)->line,
			     "extraneous argument '%s' ($%d is not referenced)",
			     dtp->macro_argv[last] ? dtp->macro_argv[last] : "",
			     last);
}

/* ---- tokens ---- */

static void tok_push(dt_lexer_t *lx, const dt_token_t *t)
{
	lx->buf[lx->nbuf++] = *t;
}

static int escape_value(dt_lexer_t *lx, const char **pp)
{
	const char *p = *pp;	/* just after the backslash */
	int c = ch(lx, p++), v, i;

	switch (c) {
	case 'n': v = '\n'; break;
	case 't': v = '\t'; break;
	case 'r': v = '\r'; break;
	case 'a': v = '\a'; break;
	case 'b': v = '\b'; break;
	case 'f': v = '\f'; break;
	case 'v': v = '\v'; break;
	case 'x':
		for (v = 0, i = 0; i < 2 && isxdigit(ch(lx, p)); i++, p++)
			v = v * 16 + (isdigit(*p) ? *p - '0' :
				      tolower((unsigned char)*p) - 'a' + 10);
		if (i == 0)
			v = 'x';
		break;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (i = 1; i < 3 && ch(lx, p) >= '0' &&
			     ch(lx, p) <= '7'; i++, p++)
				v = v * 8 + (*p - '0');
			v &= 0xff;
		} else {
			v = c;	/* \\ \' \" \? and unknown escapes */
		}
		break;
	}
	*pp = p;
	return v;
}

/* Bytes from p to the end of the string literal (or of the line/text). */
static size_t literal_len(const dt_lexer_t *lx, const char *p)
{
	const char *q = p;

	while (q < lx->end && *q != '"' && *q != '\n')
		q += (*q == '\\' && q + 1 < lx->end) ? 2 : 1;
	return (size_t)(q - p);
}

static void lex_string(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *p = lx->p + 1;
	char *out;
	size_t n = 0;

	/* the decoded text is never longer than the literal as written */
	out = dt_pcb_alloc(pcb, literal_len(lx, p) + 1);
	for (;;) {
		int c = ch(lx, p);

		if (p >= lx->end)
			dt_pcb_error(pcb, D_SYNTAX, t->line,
				     "syntax error near \"\"\"");
		if (c == '\n')
			dt_pcb_error(pcb, D_STR_NL, t->line,
				     "newline encountered in string literal");
		p++;
		if (c == '"')
			break;
		if (c == '\\' && ch(lx, p) == '\n') {
			p++;	/* line continuation */
			lx->line++;
			continue;
		}
		out[n++] = (char)(c == '\\' ? escape_value(lx, &p) : c);
	}
	out[n] = '\0';
	t->kind = T_STRING;
	t->str = out;
	t->slen = n;
	lx->p = p;
}

static void lex_char(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *p = lx->p + 1;
	uint64_t v = 0;
	int n = 0;

	for (;;) {
		int c = ch(lx, p);

		if (p >= lx->end || c == '\n')
			dt_pcb_error(pcb, D_CHR_NL, t->line,
				     "newline encountered in character "
				     "constant");
		p++;
		if (c == '\'')
			break;
		if (c == '\\')
			c = escape_value(lx, &p);
		if (++n > 4)
			dt_pcb_error(pcb, D_CHR_OFLOW, t->line,
				     "character constant is too long");
		v = (v << 8) | (uint8_t)c;
	}
	if (n == 0)
		dt_pcb_error(pcb, D_CHR_NULL, t->line,
			     "empty character constant");
	/* like C with a signed char: '\377' is -1 */
	if (n == 1)
		v = (uint64_t)(int64_t)(int8_t)v;
	else
		v = (uint64_t)(int64_t)(int32_t)v;
	t->kind = T_INT;
	t->ival = v;
	t->itype = dt_type_int(pcb->dtp->types, 4, true);
	lx->p = p;
}

/*
 * The type of an integer constant by C's rules, in the order int,
 * unsigned int (octal and hex only, or with a u suffix), long, unsigned
 * long.  D allows unsigned long for a large decimal too.
 */
static dt_type_t *int_type(dt_pcb_t *pcb, uint64_t v, bool dec, bool u,
			   int nl)
{
	dt_typetab_t *tt = pcb->dtp->types;

	if (nl == 0 && !u && v <= INT_MAX)
		return dt_type_int(tt, 4, true);
	if (nl == 0 && (u || !dec) && v <= UINT_MAX)
		return dt_type_int(tt, 4, false);
	if (!u && v <= LONG_MAX)
		return dt_type_int(tt, 8, true);
	return dt_type_int(tt, 8, false);
}

static void int_oflow(dt_pcb_t *pcb, const char *s, size_t n, int line)
{
	dt_pcb_error(pcb, D_INT_OFLOW, line,
		     "integer constant %.*s cannot be represented in any "
		     "built-in integral type", (int)n, s);
}

static void lex_number(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *s = lx->p, *p = s;
	unsigned base = 10;
	uint64_t v = 0;
	bool u = false, any = false;
	int nl = 0;

	if (p[0] == '0' && (ch(lx, p + 1) == 'x' || ch(lx, p + 1) == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	for (;; p++) {
		int c = ch(lx, p), d;

		if (isdigit(c))
			d = c - '0';
		else if (base == 16 && isxdigit(c))
			d = tolower(c) - 'a' + 10;
		else
			break;
		if ((unsigned)d >= base)
			dt_pcb_error(pcb, D_INT_DIGIT, t->line,
				     "'%c' is not a valid digit in octal "
				     "constant %.*s", c,
				     (int)(strspn(s, "0123456789")), s);
		if (v > (UINT64_MAX - (uint64_t)d) / base) {
			while (isalnum(ch(lx, p)))
				p++;
			int_oflow(pcb, s, p - s, t->line);
		}
		v = v * base + (uint64_t)d;
		any = true;
	}
	if (base == 16 && !any)
		dt_pcb_error(pcb, D_INT_DIGIT, t->line,
			     "hexadecimal constant %.*s has no digits",
			     (int)(p - s), s);
	if (ch(lx, p) == '.' && base != 16)
		dt_pcb_error(pcb, D_SYNTAX, t->line,
			     "floating-point constants are not supported");
	for (;; p++) {
		int c = ch(lx, p);

		if ((c == 'u' || c == 'U') && !u)
			u = true;
		else if ((c == 'l' || c == 'L') && nl < 2 &&
			 (nl == 0 || tolower(p[-1]) == 'l'))
			nl++;
		else
			break;
	}
	if (is_ident_char(ch(lx, p))) {
		const char *e = p;

		while (is_ident_char(ch(lx, e)))
			e++;
		dt_pcb_error(pcb, D_INT_DIGIT, t->line,
			     "invalid suffix \"%.*s\" on integer constant",
			     (int)(e - p), p);
	}
	t->kind = T_INT;
	t->ival = v;
	t->itype = int_type(pcb, v, base == 10, u, nl);
	lx->p = p;
}

static void lex_ident(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *s = lx->p, *p = s;
	size_t i, n;

	while (is_ident_char(ch(lx, p)))
		p++;
	n = p - s;
	t->kind = T_IDENT;	/* its name is its text, set by lex_fill() */
	for (i = 0; i < NELEMS(keywords); i++)
		if (strlen(keywords[i].name) == n &&
		    memcmp(keywords[i].name, s, n) == 0)
			t->kind = keywords[i].kind;
	lx->p = p;
}

/* An argument that reads as an integer ("12", "0x1f", "-3"). */
static bool arg_integer(const char *s, uint64_t *v, bool *neg)
{
	char *end;

	*neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end == '\0';
}

/*
 * "$1" in an expression: an integer constant if the argument reads as one
 * (a sign becomes a unary operator token), else an identifier; "$$1" is
 * always a string.
 */
static void lex_macro(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *name, *val;
	bool dollar2, neg;
	uint64_t v;

	lx->p = macro_name(pcb, lx->p, &dollar2, &name);
	t->text = dt_pcb_strndup(pcb, t->text, lx->p - t->text);
	if (name[0] == '\0')
		dt_pcb_error(pcb, D_SYNTAX, t->line, "syntax error near \"%s\"",
			     t->text);
	val = macro_value(pcb, name, dollar2, t->line);
	if (dollar2) {
		t->kind = T_STRING;
		t->str = val;
		t->slen = strlen(val);
	} else if (arg_integer(val, &v, &neg)) {
		if (errno == ERANGE)
			dt_pcb_error(pcb, D_INT_OFLOW, t->line,
				     "macro argument %s (%s) is too large for "
				     "an integer constant", t->text, val);
		if (neg || val[0] == '+') {
			dt_token_t sign = *t;

			sign.kind = neg ? T_MINUS : T_PLUS;
			tok_push(lx, &sign);
		}
		t->kind = T_INT;
		t->ival = v;
		t->itype = int_type(pcb, v, true, false, 0);
	} else {
		t->kind = T_IDENT;
		t->name = val;
	}
}

/* In a predicate: is the '/' at p its end? */
static bool ends_predicate(dt_lexer_t *lx, const char *p)
{
	p++;
	while (ch(lx, p) == ' ' || ch(lx, p) == '\t' || ch(lx, p) == '\r')
		p++;
	return p >= lx->end || *p == '{' || *p == '\n' ||
	       (*p == '/' && (ch(lx, p + 1) == '/' || ch(lx, p + 1) == '*'));
}

static void lex_operator(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	int c = ch(lx, lx->p);
	size_t i, n;

	if (c == '/' && lx->in_pred && lx->depth == 0 &&
	    ends_predicate(lx, lx->p)) {
		t->kind = T_EPRED;
		lx->p++;
		return;
	}
	for (i = 0; i < NELEMS(operators); i++) {
		n = strlen(operators[i].text);
		if ((size_t)(lx->end - lx->p) >= n &&
		    memcmp(lx->p, operators[i].text, n) == 0) {
			t->kind = operators[i].kind;
			lx->p += n;
			if (lx->in_pred && (t->kind == T_LPAREN ||
			    t->kind == T_LBRACK))
				lx->depth++;
			else if (lx->in_pred && lx->depth > 0 &&
				 (t->kind == T_RPAREN || t->kind == T_RBRACK))
				lx->depth--;
			return;
		}
	}
	if (isprint(c))
		dt_pcb_error(pcb, D_SYNTAX, t->line,
			     "syntax error near \"%c\"", c);
	dt_pcb_error(pcb, D_SYNTAX, t->line,
		     "invalid character 0x%02x in program", c);
}

static void lex_agg(dt_pcb_t *pcb, dt_token_t *t)
{
	dt_lexer_t *lx = LX(pcb);
	const char *s = ++lx->p;

	if (isalpha(ch(lx, s)) || ch(lx, s) == '_')
		while (isalnum(ch(lx, lx->p)) || ch(lx, lx->p) == '_')
			lx->p++;
	t->kind = T_AGG;
	t->name = dt_pcb_strndup(pcb, s, lx->p - s);
}

/* Scan the next token(s) into the buffer. */
static void lex_fill(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);
	dt_token_t t = { 0 };
	int c;

	skip_blank(pcb);
	lx->at_bol = false;
	t.line = lx->line;
	t.text = lx->p;
	c = ch(lx, lx->p);
	if (lx->p >= lx->end)
		t.kind = T_EOF;
	else if (c == '$') {
		lex_macro(pcb, &t);
		tok_push(lx, &t);
		return;
	} else if (is_ident_start(c))
		lex_ident(pcb, &t);
	else if (isdigit(c) || (c == '.' && isdigit(ch(lx, lx->p + 1))))
		lex_number(pcb, &t);
	else if (c == '"')
		lex_string(pcb, &t);
	else if (c == '\'')
		lex_char(pcb, &t);
	else if (c == '@')
		lex_agg(pcb, &t);
	else
		lex_operator(pcb, &t);
	t.text = t.kind == T_EOF ? "" : dt_pcb_strndup(pcb, t.text,
						       lx->p - t.text);
	if (t.kind == T_IDENT || t.kind >= T_KW_FIRST)
		t.name = t.text;
	tok_push(lx, &t);
}

const dt_token_t *dt_lex_peek(dt_pcb_t *pcb, int n)
{
	dt_lexer_t *lx = LX(pcb);

	while (lx->nbuf <= n) {
		if (lx->nbuf > 0 && lx->buf[lx->nbuf - 1].kind == T_EOF)
			return &lx->buf[lx->nbuf - 1];
		lex_fill(pcb);
	}
	return &lx->buf[n];
}

dt_token_t dt_lex_next(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);
	dt_token_t t = *dt_lex_peek(pcb, 0);

	if (t.kind != T_EOF || lx->nbuf > 1) {
		memmove(&lx->buf[0], &lx->buf[1],
			(size_t)(lx->nbuf - 1) * sizeof(lx->buf[0]));
		lx->nbuf--;
	}
	return t;
}

void dt_lex_set_predicate(dt_pcb_t *pcb, bool on)
{
	dt_lexer_t *lx = LX(pcb);

	lx->in_pred = on;
	lx->depth = 0;
}

int dt_lex_peek_char(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);

	if (lx->nbuf > 0)
		return lx->buf[0].kind == T_EOF ? -1 : lx->buf[0].text[0];
	skip_blank(pcb);
	return lx->p < lx->end ? (unsigned char)*lx->p : -1;
}

void dt_lex_skip_char(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);

	if (lx->nbuf > 0) {
		dt_lex_next(pcb);
		return;
	}
	if (lx->p < lx->end)
		lx->p++;
	lx->at_bol = false;
}

/* ---- the top level ---- */

static bool decl_keyword(const char *w, size_t n)
{
	static const char *const words[] = { "auto", "char", "const",
		"double", "enum", "extern", "float", "inline", "int", "long",
		"provider", "register", "restrict", "self", "short", "signed",
		"static", "string", "struct", "this", "translator", "typedef",
		"union", "unsigned", "userland", "void", "volatile", NULL };
	int i;

	for (i = 0; words[i] != NULL; i++)
		if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
			return true;
	return false;
}

bool dt_lex_at_decl(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);
	const char *p;
	char name[128];
	size_t n;

	if (dt_lex_peek_char(pcb) < 0 || !is_ident_start(ch(lx, lx->p)))
		return false;
	for (p = lx->p; is_ident_char(ch(lx, p)); p++)
		;
	n = p - lx->p;
	/* "string-foo:::" or "int:::" would be descriptions */
	if (strchr(":-.?[!$+\\`", ch(lx, p)) && ch(lx, p) != 0)
		return false;
	if (decl_keyword(lx->p, n))
		return true;
	if (n >= sizeof(name))
		return false;
	memcpy(name, lx->p, n);
	name[n] = '\0';
	return dt_lex_is_typedef_name(pcb, name);
}

bool dt_lex_is_typedef_name(dt_pcb_t *pcb, const char *name)
{
	return dt_type_is_typedef_name(pcb->dtp->types, name) ||
	       dt_btf_scoped_typedef(pcb->dtp, name) != NULL;
}

static bool pdesc_char(int c)
{
	return c != 0 && (isalnum(c) || strchr("_-.:*?[]!$+`\\^~", c));
}

/* Whether a '/' after the n characters of buf belongs to the description:
 * a field that starts with '/' is a path (pid$target:/usr/lib/libc.so.6:
 * malloc:entry); any other '/' starts the predicate. */
static bool pdesc_in_path(const char *buf, size_t n)
{
	size_t i = n;

	while (i > 0 && buf[i - 1] != ':')
		i--;
	return i > 0 && (i == n || buf[i] == '/');
}

/* Append a macro's value in a description, advancing *pp past "$name". */
static void pdesc_macro(dt_pcb_t *pcb, const char **pp, char **buf,
			size_t *n, size_t *cap, int line)
{
	const char *name, *val;
	bool dollar2;
	size_t vlen;

	*pp = macro_name(pcb, *pp, &dollar2, &name);
	if (name[0] == '\0')
		dt_pcb_error(pcb, D_PDESC_INVAL, line,
			     "invalid probe description: '$' without a name");
	val = macro_value(pcb, name, dollar2, line);
	vlen = strlen(val);
	if (*n + vlen + 1 > *cap) {
		char *nb;

		*cap = (*n + vlen + 1) * 2;
		nb = dt_pcb_alloc(pcb, *cap);
		memcpy(nb, *buf, *n);
		*buf = nb;
	}
	memcpy(*buf + *n, val, vlen);
	*n += vlen;
}

/* The number of ':' in s. */
static int count_colons(const char *s)
{
	int n = 0;

	while ((s = strchr(s, ':')) != NULL)
		n++, s++;
	return n;
}

/*
 * Split "a:b:c:d" from the right into the description's fields.  On the
 * command line, the last field is the one the option names: -P provider,
 * -m [provider:]module, -f [[provider:]module:]function, -n the name; a
 * whole description of four fields stays one.
 */
static void pdesc_split(dt_pcb_t *pcb, dt_pdesc_t *pd, char *s)
{
	const char *f[4] = { "", "", "", "" };	/* prb, fun, mod, prv */
	int skip = 0, nf;
	char *c;

	if (pcb->from_cmdline && pcb->default_ctx != DT_CTX_NAME &&
	    count_colons(s) < 3)
		skip = 3 - (pcb->default_ctx - DT_CTX_PROVIDER);
	nf = skip;
	while ((c = strrchr(s, ':')) != NULL) {
		if (nf == 3)
			dt_pcb_error(pcb, D_PDESC_INVAL, pd->line,
				     "invalid probe description \"%s\": "
				     "too many fields", pd->text);
		*c = '\0';
		f[nf++] = c + 1;
	}
	f[nf++] = s;
	pd->prb = f[0];
	pd->fun = f[1];
	pd->mod = f[2];
	pd->prv = f[3];
}

static _Noreturn void pdesc_syntax(dt_pcb_t *pcb)
{
	const dt_token_t *t = dt_lex_peek(pcb, 0);

	if (t->kind == T_EOF)
		dt_pcb_error(pcb, D_SYNTAX, t->line,
			     "syntax error near end of input");
	dt_pcb_error(pcb, D_SYNTAX, t->line, "syntax error near \"%s\"",
		     t->text);
}

dt_pdesc_t *dt_lex_pdesc(dt_pcb_t *pcb)
{
	dt_lexer_t *lx = LX(pcb);
	dt_pdesc_t *pd = dt_pcb_alloc(pcb, sizeof(*pd));
	size_t n = 0, cap = 64;
	char *buf = dt_pcb_alloc(pcb, cap);
	const char *start;
	int c;

	dt_lex_peek_char(pcb);
	start = lx->p;
	pd->line = lx->line;
	while (pdesc_char(c = ch(lx, lx->p)) ||
	       (c == '/' && pdesc_in_path(buf, n))) {
		if (c == '$') {
			pdesc_macro(pcb, &lx->p, &buf, &n, &cap, pd->line);
			continue;
		}
		if (n + 2 > cap) {
			char *nb = dt_pcb_alloc(pcb, cap * 2);

			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
		buf[n++] = (char)c;
		lx->p++;
	}
	buf[n] = '\0';
	lx->at_bol = false;
	if (lx->p == start)
		pdesc_syntax(pcb);
	c = dt_lex_peek_char(pcb);
	if (c != -1 && c != '{' && c != '/' && c != ',')
		pdesc_syntax(pcb);
	pd->text = dt_pcb_strndup(pcb, start, lx->p - start);
	pdesc_split(pcb, pd, buf);
	return pd;
}
