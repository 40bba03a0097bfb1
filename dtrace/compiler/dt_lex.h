/* SPDX-License-Identifier: MIT */
/*
 * dt_lex.h: the D lexer's interface to the parser (private to dt_lex.c and
 * dt_parse.c).
 *
 * The lexer works on demand: the parser peeks up to DT_LEX_LOOKAHEAD tokens
 * and takes them one by one.  Probe descriptions are not tokens of the
 * normal state: at the top level the parser asks dt_lex_at_decl() whether
 * a declaration or a clause starts, and reads descriptions with
 * dt_lex_pdesc(), both only while no token is buffered.
 */
#ifndef DT_LEX_H
#define DT_LEX_H

#include "dt_impl.h"

#define DT_LEX_LOOKAHEAD 3

typedef enum dt_tokkind {
	T_EOF,
	T_INT,		/* ival, itype */
	T_STRING,	/* str, slen (decoded) */
	T_IDENT,	/* name */
	T_AGG,		/* @name: name ("" for @) */
	T_EPRED,	/* the '/' that closes a predicate */

	/* punctuation and operators */
	T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
	T_SEMI, T_COMMA, T_DOT, T_ARROW, T_ELLIPSIS, T_QUESTION, T_COLON,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
	T_INC, T_DEC, T_AMP, T_BAR, T_CARET, T_TILDE, T_BANG,
	T_LAND, T_LOR, T_LXOR, T_SHL, T_SHR,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_ASSIGN, T_ADD_ASSIGN, T_SUB_ASSIGN, T_MUL_ASSIGN, T_DIV_ASSIGN,
	T_MOD_ASSIGN, T_SHL_ASSIGN, T_SHR_ASSIGN, T_AND_ASSIGN, T_OR_ASSIGN,
	T_XOR_ASSIGN,

	/* keywords */
	T_KW_FIRST,
	T_AUTO = T_KW_FIRST, T_BREAK, T_CASE, T_CHAR, T_CONST, T_CONTINUE,
	T_DEFAULT, T_DO, T_DOUBLE, T_ELSE, T_ENUM, T_EXTERN, T_FLOAT, T_FOR,
	T_GOTO, T_IF, T_IMPORT, T_INLINE, T_INT_KW, T_LONG, T_OFFSETOF,
	T_PROBE, T_PROVIDER, T_REGISTER, T_RESTRICT, T_RETURN, T_SELF,
	T_SHORT, T_SIGNED, T_SIZEOF, T_STATIC, T_STRING_KW, T_STRINGOF,
	T_STRUCT, T_SWITCH, T_THIS, T_TRANSLATOR, T_TYPEDEF, T_UNION,
	T_UNSIGNED, T_USERLAND, T_VOID, T_VOLATILE, T_WHILE, T_XLATE,
	T_KW_LAST = T_XLATE,
} dt_tokkind_t;

typedef struct dt_token {
	dt_tokkind_t kind;
	int line;
	const char *text;	/* as written, for "syntax error near" */
	uint64_t ival;		/* T_INT */
	dt_type_t *itype;	/* T_INT: its type by C's rules */
	const char *str;	/* T_STRING (decoded, NUL-terminated) */
	size_t slen;
	const char *name;	/* T_IDENT, T_AGG; keywords: their spelling */
} dt_token_t;

void dt_lex_init(dt_pcb_t *pcb);
/* The n-th token ahead (0: the next one). */
const dt_token_t *dt_lex_peek(dt_pcb_t *pcb, int n);
/* Take the next token. */
dt_token_t dt_lex_next(dt_pcb_t *pcb);
/* The current line (of the next unread character). */
int dt_lex_line(dt_pcb_t *pcb);
/* Skip blanks, comments and control lines; the next character, or -1 at the
 * end.  Only with no token buffered. */
int dt_lex_peek_char(dt_pcb_t *pcb);
/* Consume the single character dt_lex_peek_char() returned. */
void dt_lex_skip_char(dt_pcb_t *pcb);
/* At the top level: does a declaration (rather than a clause) start? */
bool dt_lex_at_decl(dt_pcb_t *pcb);
/* Whether name names a type: a typedef, or a kernel's by its module's
 * name (vmlinux`pid_t). */
bool dt_lex_is_typedef_name(dt_pcb_t *pcb, const char *name);
/* Read one probe description (macros expanded in its fields). */
dt_pdesc_t *dt_lex_pdesc(dt_pcb_t *pcb);
/* Inside a predicate a '/' at parenthesis depth 0 that ends it is T_EPRED. */
void dt_lex_set_predicate(dt_pcb_t *pcb, bool on);
/* #pragma D attributes collected; applied by the parser at the end. */
void dt_lex_apply_attributes(dt_pcb_t *pcb);
/* D_MACRO_UNUSED unless the last macro argument was referenced. */
void dt_lex_check_argref(dt_pcb_t *pcb);
/* The parser's recursion depth, kept with the compile's other state. */
int *dt_lex_nesting(dt_pcb_t *pcb);
/* The printable text of a token for messages. */
const char *dt_tok_name(dt_tokkind_t kind);

#endif /* DT_LEX_H */
