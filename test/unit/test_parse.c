/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c: the D lexer and parser (dt_lex.c, dt_parse.c, dt_pcb.c).
 *
 * Each case parses a program and compares either the tree printed by
 * dt_ast_dump() or the exact error (tag and message) with the expected
 * text.  A bounded fuzz loop at the end feeds random and mutated programs
 * to the parser, which must only ever succeed or fail with a message.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dt_impl.h"

static dtrace_hdl_t hdl;
static int nfail, npass;

typedef struct pcase {
	const char *srcname;	/* NULL: command line */
	int ctx;
} pcase_t;

/* Parse src; the dump, or "ERR D_TAG: message". malloc'ed. */
static char *parse_as(const char *src, const char *srcname, bool cmdline,
		      int ctx)
{
	dt_pcb_t pcb;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	hdl.errmsg[0] = '\0';
	dt_pcb_init(&pcb, &hdl, src, strlen(src), srcname, cmdline);
	pcb.default_ctx = ctx;
	if (setjmp(pcb.jb) != 0) {
		fprintf(f, "ERR %s: %s", dt_errtag_name(hdl.errtag),
			hdl.errmsg);
	} else {
		dt_parse(&pcb);
		dt_ast_dump(f, pcb.prog);
	}
	dt_pcb_fini(&pcb);
	fclose(f);
	return buf;
}

static void check(const char *what, char *got, const char *want, int line)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "test_parse.c:%d: %s\n  got:  %s\n  want: %s\n",
			line, what, got, want);
		nfail++;
	} else {
		npass++;
	}
	free(got);
}

/* A script x.d */
#define S(src, want) check(src, parse_as(src, "x.d", false, 0), want, __LINE__)
/* A -n specifier */
#define N(src, want) check(src, parse_as(src, NULL, true, 0), want, __LINE__)
#define CTX(src, ctx, want) check(src, parse_as(src, NULL, true, ctx), want, \
				  __LINE__)

/* The expression of "BEGIN { EXPR; }" */
static void expr_case(const char *e, const char *want, int line)
{
	char src[1024], exp[1024];

	snprintf(src, sizeof(src), "BEGIN { %s; }", e);
	snprintf(exp, sizeof(exp),
		 "(clause (pdesc \"BEGIN \" :::BEGIN) (body %s))\n", want);
	check(e, parse_as(src, "x.d", false, 0), exp, line);
}
#define E(e, want) expr_case(e, want, __LINE__)

static void test_precedence(void)
{
	E("1 + 2 * 3", "(+ 1 (* 2 3))");
	E("1 * 2 + 3", "(+ (* 1 2) 3)");
	E("a - b - c", "(- (- a b) c)");
	E("a = b = c", "(= a (= b c))");
	E("a += b -= 1", "(+= a (-= b 1))");
	E("a || b ^^ c && d", "(|| a (^^ b (&& c d)))");
	E("a | b ^ c & d", "(| a (^ b (& c d)))");
	E("a == b < c", "(== a (< b c))");
	E("a << 1 + 2", "(<< a (+ 1 2))");
	E("a ? b : c ? d : e", "(? a b (? c d e))");
	E("x = a ? b : c", "(= x (? a b c))");
	E("-a * !b", "(* (- a) (! b))");
	E("*p++", "(* (post++ p))");
	E("++*p", "(pre++ (* p))");
	E("&a.b->c[1]", "(& ([] (-> (. a b) c) 1))");
	E("a, b = c", "(, a (= b c))");
	E("f(a, b = 2)", "(call f a (= b 2))");
	E("f()", "(call f)");
	E("(a + b) * c", "(* (+ a b) c)");
	E("~a % b / c", "(/ (% (~ a) b) c)");
	E("a >= b != c <= d", "(!= (>= a b) (<= c d))");
	E("a >> 2 > 1", "(> (>> a 2) 1)");
	E("x <<= 1, y >>= 2, z &= 3, w |= 4, v ^= 5, u %= 6, t *= 7, s /= 8",
	  "(, (, (, (, (, (, (, (<<= x 1) (>>= y 2)) (&= z 3)) (|= w 4)) "
	  "(^= v 5)) (%= u 6)) (*= t 7)) (/= s 8))");
	E("(char *)p + 1", "(+ (cast \"char *\" p) 1)");
	E("(unsigned long long int)x", "(cast \"unsigned long\" x)");
	E("(struct foo *)x", "(cast \"struct foo *\" x)");
	E("(uint64_t)x", "(cast \"unsigned long\" x)");
	E("(const char **)x", "(cast \"char **\" x)");
	E("(int)-x", "(cast \"int\" (- x))");
	E("sizeof(int)", "(sizeof \"int\")");
	E("sizeof x + 1", "(+ (sizeof x) 1)");
	E("sizeof(x)", "(sizeof x)");
	E("sizeof (char [8])", "(sizeof \"char [8]\")");
	E("stringof(x)", "(stringof x)");
	E("stringof x", "(stringof x)");
	E("offsetof(struct foo, b)", "(offsetof \"struct foo\" b)");
	E("self->x = this->y", "(= (-> self x) (-> this y))");
	E("self->a[1, \"s\"]++", "(post++ ([] (-> self a) 1 \"s\"))");
	E("@ = count()", "(= @ (call count))");
	E("@c[probefunc, 1] = sum(arg0)",
	  "(= ([] @c probefunc 1) (call sum arg0))");
	E("args[0]->string", "(-> ([] args 0) string)");
	E("x--, --x", "(, (post-- x) (pre-- x))");
	E("+x", "(+ x)");
	E("`max_ncpus", "`max_ncpus");
	E("a^^b", "(^^ a b)");
}

static void test_constants(void)
{
	E("0", "0");
	E("42", "42");
	E("0x1F", "31");
	E("017", "15");
	E("10u", "10");
	E("4294967296", "4294967296");
	E("0xffffffffffffffff", "18446744073709551615");
	E("18446744073709551615", "18446744073709551615");
	E("'a'", "97");
	E("'\\n'", "10");
	E("'\\377'", "-1");
	E("'\\x41'", "65");
	E("'ab'", "24930");
	E("\"a\\tb\\n\\\\\\\"\\0\\x41\\101\"", "\"a\\tb\\n\\\\\\\"\\000AA\"");
	E("\"\"", "\"\"");
	S("BEGIN { x = 0x12345678123456781; }",
	  "ERR D_INT_OFLOW: failed to compile script x.d: line 1: integer "
	  "constant 0x12345678123456781 cannot be represented in any "
	  "built-in integral type");
	S("BEGIN { x = 09; }",
	  "ERR D_INT_DIGIT: failed to compile script x.d: line 1: '9' is "
	  "not a valid digit in octal constant 09");
	S("BEGIN { x = 12abc; }",
	  "ERR D_INT_DIGIT: failed to compile script x.d: line 1: invalid "
	  "suffix \"abc\" on integer constant");
	S("BEGIN { x = ''; }",
	  "ERR D_CHR_NULL: failed to compile script x.d: line 1: empty "
	  "character constant");
	S("BEGIN { x = 'abcde'; }",
	  "ERR D_CHR_OFLOW: failed to compile script x.d: line 1: "
	  "character constant is too long");
	S("BEGIN {\n x = \"abc\n\"; }",
	  "ERR D_STR_NL: failed to compile script x.d: line 2: newline "
	  "encountered in string literal");
	S("BEGIN {\n x = 'a\n'; }",
	  "ERR D_CHR_NL: failed to compile script x.d: line 2: newline "
	  "encountered in character constant");
	S("BEGIN { x = \"abc",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: "
	  "syntax error near \"\"\"");
	S("BEGIN {\n\n /* never closed\n }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 3: "
	  "end-of-file encountered before matching */");
}

/* The type of the constant expression src, or "?" after an error. */
static char *const_type(const char *src)
{
	char buf[128];
	dt_pcb_t pcb;
	char *volatile got = NULL;

	snprintf(buf, sizeof(buf), "BEGIN { %s }", src);
	dt_pcb_init(&pcb, &hdl, buf, strlen(buf), "x.d", false);
	if (setjmp(pcb.jb) == 0) {
		dt_parse(&pcb);
		got = strdup(pcb.prog->clauses->body->l->type->name);
	}
	dt_pcb_fini(&pcb);
	return got != NULL ? got : strdup("?");
}

/* Types of constants by C's rules. */
static void test_int_types(void)
{
	static const struct { const char *src, *type; } cases[] = {
		{ "1", "int" }, { "2147483647", "int" },
		{ "2147483648", "long" }, { "0x80000000", "unsigned int" },
		{ "0xffffffff", "unsigned int" }, { "0x100000000", "long" },
		{ "1u", "unsigned int" }, { "1l", "long" }, { "1ul", "unsigned long" },
		{ "1LL", "long" }, { "1ULL", "unsigned long" },
		{ "0x8000000000000000", "unsigned long" },
		{ "9223372036854775808", "unsigned long" },
		{ "4294967296u", "unsigned long" }, { "'a'", "int" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(cases[i].src, const_type(cases[i].src), cases[i].type,
		      __LINE__);
}

static void test_statements(void)
{
	S("BEGIN { }", "(clause (pdesc \"BEGIN \" :::BEGIN) (body))\n");
	S("BEGIN {}", "(clause (pdesc \"BEGIN \" :::BEGIN) (body))\n");
	S("BEGIN{x=1}", "(clause (pdesc \"BEGIN\" :::BEGIN) (body (= x 1)))\n");
	S("BEGIN { a = 1; b = 2 }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body (= a 1) (= b 2)))\n");
	S("BEGIN { ;; a; ; }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body a))\n");
	S("BEGIN { if (x) y = 1; else { y = 2; z = 3; } w; }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body (if x (then (= y 1)) "
	  "(else (= y 2) (= z 3))) w))\n");
	S("BEGIN { if (x) { a } else if (y) b; else c }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body (if x (then a) "
	  "(else (if y (then b) (else c))))))\n");
	S("BEGIN { if (x) { } }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body (if x (then))))\n");
	S("BEGIN { { a; { b } } c }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body (block a (block b)) c))\n");
	S("BEGIN /x > 1/ { y }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (pred (> x 1)) (body y))\n");
	S("BEGIN /a / b > 1/ { y }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (pred (> (/ a b) 1)) (body y))\n");
	S("BEGIN /(a / b) > 1/{ y }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (pred (> (/ a b) 1)) (body y))\n");
	S("BEGIN\n/x/\n{\n}\n",
	  "(clause (pdesc \"BEGIN\\n\" :::BEGIN) (pred x) (body))\n");
	S("syscall::read:entry /pid == 1/\nsyscall::write:entry { }",
	  "(clause (pdesc \"syscall::read:entry \" syscall::read:entry) "
	  "(pred (== pid 1)) (body))\n"
	  "(clause (pdesc \"syscall::write:entry \" syscall::write:entry) "
	  "(body))\n");
	S("BEGIN /* a comment */ { x }",
	  "(clause (pdesc \"BEGIN /* a comment */ \" :::BEGIN) (body x))\n");
	S("// only a comment\nBEGIN { x } // trailing\n",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body x))\n");
	S("#!/usr/sbin/dtrace -s\nBEGIN { x }",
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body x))\n");
}

static void test_pdescs(void)
{
	S("syscall::open*:entry, tick-1s, python*:::function-entry,\n"
	  "pid123:a.out:foo:1c, ::main:entry, prov*:mod?:[a-c]*:name,"
	  "a:b:c:d, :::, fun:name { }",
	  "(clause (pdesc \"syscall::open*:entry\" syscall::open*:entry) "
	  "(pdesc \"tick-1s\" :::tick-1s) "
	  "(pdesc \"python*:::function-entry\" python*:::function-entry) "
	  "(pdesc \"pid123:a.out:foo:1c\" pid123:a.out:foo:1c) "
	  "(pdesc \"::main:entry\" ::main:entry) "
	  "(pdesc \"prov*:mod?:[a-c]*:name\" prov*:mod?:[a-c]*:name) "
	  "(pdesc \"a:b:c:d\" a:b:c:d) (pdesc \":::\" :::) "
	  "(pdesc \"fun:name \" ::fun:name) (body))\n");
	N("BEGIN { x }", "(clause (pdesc \"BEGIN \" :::BEGIN) (body x))\n");
	N("BEGIN", "(clause (pdesc \"BEGIN\" :::BEGIN) (body))\n");
	N("BEGIN /x/", "(clause (pdesc \"BEGIN \" :::BEGIN) (pred x) (body))\n");
	CTX("syscall", DT_CTX_PROVIDER,
	    "(clause (pdesc \"syscall\" syscall:::) (body))\n");
	CTX("libc.so.6", DT_CTX_MODULE,
	    "(clause (pdesc \"libc.so.6\" :libc.so.6::) (body))\n");
	CTX("malloc", DT_CTX_FUNCTION,
	    "(clause (pdesc \"malloc\" ::malloc:) (body))\n");
	CTX("dtrace:BEGIN", DT_CTX_MODULE,
	    "(clause (pdesc \"dtrace:BEGIN\" dtrace:BEGIN::) (body))\n");
	CTX("pid1:libc:malloc", DT_CTX_FUNCTION,
	    "(clause (pdesc \"pid1:libc:malloc\" pid1:libc:malloc:) (body))\n");
	CTX("pid1:libc:malloc:entry", DT_CTX_FUNCTION,
	    "(clause (pdesc \"pid1:libc:malloc:entry\" pid1:libc:malloc:entry)"
	    " (body))\n");
	S("a:b:c:d:e { }",
	  "ERR D_PDESC_INVAL: failed to compile script x.d: line 1: invalid "
	  "probe description \"a:b:c:d:e \": too many fields");
	S("\nBEGIN",
	  "ERR D_SYNTAX: failed to compile script x.d: line 2: expected "
	  "predicate and/or actions following probe description");
	S("BEGIN END { }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near \"END\"");
	S("{ x }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near \"{\"");
}

static void test_macros(void)
{
	char *argv[] = { (char *)"x.d", (char *)"42", (char *)"foo",
			 (char *)"-3", (char *)"libc.so.6" };

	hdl.macro_argc = 5;
	hdl.macro_argv = argv;
	hdl.target = 1234;
	/* the last argument must be used: argc is set to fit each case */
	hdl.macro_argc = 2;
	E("$1 + $$1", "(+ 42 \"42\")");
	hdl.macro_argc = 3;
	E("$2", "foo");
	hdl.macro_argc = 1;
	E("$$0", "\"x.d\"");
	E("$target", "1234");
	hdl.macro_argc = 4;
	E("$3", "(- 3)");
	hdl.macro_argc = 5;
	S("pid$target:$4:malloc:entry { }",
	  "(clause (pdesc \"pid$target:$4:malloc:entry \" "
	  "pid1234:libc.so.6:malloc:entry) (body))\n");
	S("BEGIN {\n x = $5; }",
	  "ERR D_MACRO_UNDEF: failed to compile script x.d: line 2: macro "
	  "argument $5 is not defined");
	S("BEGIN { x = $nosuch; }",
	  "ERR D_MACRO_UNDEF: failed to compile script x.d: line 1: macro "
	  "variable $nosuch is not defined");
	hdl.macro_argc = 3;
	S("BEGIN { $1 }\n",
	  "ERR D_MACRO_UNUSED: failed to compile script x.d: line 2: "
	  "extraneous argument 'foo' ($2 is not referenced)");
	S("BEGIN { $$2 }", "(clause (pdesc \"BEGIN \" :::BEGIN) (body \"foo\"))\n");
	hdl.target = 0;
	hdl.macro_argc = 1;
	S("BEGIN { $target }", "(clause (pdesc \"BEGIN \" :::BEGIN) (body 0))\n");
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "(clause (pdesc \"BEGIN \" :::BEGIN) (body %d))\n",
			 (int)getpid());
		hdl.macro_argc = 1;
		S("BEGIN { $pid }", want);
	}
	hdl.macro_argc = 0;
	hdl.macro_argv = NULL;
	S("BEGIN { $1 }",
	  "ERR D_MACRO_UNDEF: failed to compile script x.d: line 1: macro "
	  "argument $1 is not defined");
}

static void test_declarations(void)
{
	S("int x; string s; self int y; this char *p; int a[string, int];\n"
	  "uint64_t u[int]; BEGIN { }",
	  "(var global x \"int\")\n(var global s \"string\")\n"
	  "(var self y \"int\")\n(var this p \"char *\")\n"
	  "(var global a \"int\" [\"string\"] [\"int\"])\n"
	  "(var global u \"unsigned long\" [\"int\"])\n"
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body))\n");
	S("int x, *y, z[4];",
	  "(var global x \"int\")\n(var global y \"int *\")\n"
	  "(var global z \"int [4]\")\n");
	S("typedef unsigned long long myt; myt v; typedef struct pt { int x;"
	  " long y; } pt_t; pt_t q; struct pt *pp;",
	  "(var global v \"unsigned long\")\n(var global q \"struct pt\")\n"
	  "(var global pp \"struct pt *\")\n");
	S("inline int TWO = 1 + 1; inline string NAME = \"n\";",
	  "(inline TWO \"int\" (+ 1 1))\n(inline NAME \"string\" \"n\")\n");
	S("enum col { RED, GREEN = 5, BLUE }; enum col c; extern int kx;",
	  "(var global c \"enum col\")\n");
	S("int x; int x;", "(var global x \"int\")\n");	/* the same again */
	S("int x; char x;",
	  "ERR D_DECL_IDRED: failed to compile script x.d: line 1: "
	  "identifier redeclared: x\n\t current: scalar char\n\tprevious: "
	  "scalar int");
	/* D's floating-point types, which values may have but no
	 * arithmetic takes */
	S("float f; double d; long double ld; double long dl;",
	  "(var global f \"float\")\n(var global d \"double\")\n"
	  "(var global ld \"long double\")\n(var global dl \"long double\")\n");
	S("struct sx { int a; int a; };",
	  "ERR D_UNKNOWN: failed to compile script x.d: line 1: failed to "
	  "define member 'a': Duplicate member or variable name");
	S("struct sy { struct nope b; };",
	  "ERR D_DECL_INCOMPLETE: failed to compile script x.d: line 1: "
	  "incomplete struct/union/enum struct nope: b");
	S("BEGIN { x = (foo_t)1; }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near \"1\"");
	S("int a[x];",
	  "ERR D_DECL_ARRSUB: failed to compile script x.d: line 1: "
	  "positive integral constant expression or tuple signature "
	  "expected as array declaration subscript");
}

static void test_providers(void)
{
	S("provider myapp {\n"
	  "  probe query__start(char *q, int id) : (int id, char *q);\n"
	  "  probe done();\n"
	  "  probe pos(int a, long b) : (long b, int a);\n"
	  "  probe same(const char *s, uint64_t n);\n"
	  "};\n"
	  "#pragma D attributes Evolving/Evolving/Common provider myapp "
	  "provider\n"
	  "#pragma D attributes Private/Private/Unknown provider myapp args\n",
	  "(provider myapp (attr 0 Evolving/Evolving/Common) "
	  "(attr 4 Private/Private/Unknown) "
	  "(probe query__start (args \"char *\":q \"int\":id) "
	  "(xargs \"int\" \"char *\") (map 1 0)) "
	  "(probe done (args)) "
	  "(probe pos (args \"int\":a \"long\":b) (xargs \"long\" \"int\") "
	  "(map 1 0)) "
	  "(probe same (args \"char *\":s \"unsigned long\":n)))\n");
	S("provider p { probe a(int x) : (int y); };",
	  "ERR D_DECL_PROTO_FORM: failed to compile script x.d: line 1: "
	  "parameter is not declared in probe output prototype: y, "
	  "parameter #1");
	S("provider p { probe a(int, long) : (long, int); };",
	  "ERR D_DECL_PROTO_NAME: failed to compile script x.d: line 1: "
	  "parameter declaration requires a name: parameter #1");
	S("provider p { probe a(int x, long x); };",
	  "ERR D_DECL_PROTO_FORM: failed to compile script x.d: line 1: "
	  "parameter is already declared in probe input prototype: x, "
	  "parameter #2");
	S("provider p {\n probe a();\n probe a(int);\n};",
	  "ERR D_PROV_PRDUP: failed to compile script x.d: line 3: probe "
	  "redeclared: p:a");
	S("provider p { probe a(void); probe b(struct unknown *u); };",
	  "(provider p (probe a (args)) (probe b (args \"struct unknown *\":u"
	  ")))\n");
}

static void test_pragmas(void)
{
	S("#pragma D option quiet\n#pragma D option bufsize=16m\n"
	  "#pragma D depends_on module vmlinux\n#pragma ident \"x\"\n"
	  "BEGIN { }",
	  "(option quiet)\n(option bufsize 16m)\n"
	  "(clause (pdesc \"BEGIN \" :::BEGIN) (body))\n");
	S("BEGIN {\n#pragma D option flowindent\n x }",
	  "(option flowindent)\n(clause (pdesc \"BEGIN \" :::BEGIN) (body x))\n");
	S("\n#pragma D nonsense\n",
	  "ERR D_PRAGMA_INVAL: failed to compile script x.d: line 2: "
	  "invalid D pragma: nonsense");
	S("#include <stdio.h>\n",
	  "ERR D_PRAGCTL_INVAL: failed to compile script x.d: line 1: "
	  "invalid control directive: #include");
	S("#pragma D attributes Bogus/Evolving/Common provider p provider\n",
	  "ERR D_PRAGMA_INVAL: failed to compile script x.d: line 1: "
	  "invalid attributes specified by #pragma attributes");
	S("#pragma D depends_on library x.d\n",
	  "ERR D_PRAGMA_DEPEND: failed to compile script x.d: line 1: "
	  "main program may not explicitly depend on a library");
	/* cpp line markers */
	S("# 1 \"<stdin>\"\n# 10 \"x.d\"\nBEGIN { x = ; }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 10: syntax error "
	  "near \";\"");
}

static void test_errors(void)
{
	S("",
	  "ERR D_EMPTY: failed to compile script x.d: line 1: empty D "
	  "program translation unit");
	S("/* nothing */\n#pragma D option quiet\n",
	  "ERR D_EMPTY: failed to compile script x.d: line 3: empty D "
	  "program translation unit");
	S("BEGIN\n{\n  x = 1 +;\n}",
	  "ERR D_SYNTAX: failed to compile script x.d: line 3: syntax error "
	  "near \";\"");
	S("BEGIN { x = 1",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near end of input");
	S("BEGIN { x = 1 y }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near \"y\"");
	S("BEGIN { for (;;) x; }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: syntax error "
	  "near \"for\"");
	N("BEGIN { x = }",
	  "ERR D_SYNTAX: invalid probe specifier BEGIN { x = }: syntax error "
	  "near \"}\"");
	hdl.opt.errtags = true;
	N("BEGIN { x = }",
	  "ERR D_SYNTAX: invalid probe specifier BEGIN { x = }: [D_SYNTAX] "
	  "syntax error near \"}\"");
	S("BEGIN {\n x = }",
	  "ERR D_SYNTAX: failed to compile script x.d: [D_SYNTAX] line 2: "
	  "syntax error near \"}\"");
	hdl.opt.errtags = false;
	S("BEGIN { x = 1 \x01 }",
	  "ERR D_SYNTAX: failed to compile script x.d: line 1: invalid "
	  "character 0x01 in program");
}

/* Hostile shapes: deep nesting and long chains fail cleanly. */
static void test_limits(void)
{
	static const struct { const char *open, *mid, *close; int n; } shapes[] = {
		{ "(", "x", ")", 100000 }, { "-", "x", "", 100000 },
		{ "x=", "x", "", 100000 }, { "{", "", "}", 100000 },
		{ "x+", "x", "", 100000 }, { "struct s{", "int x;", "} y;", 50000 },
		{ "x?x:", "x", "", 100000 }, { "if(x)", "x", "", 100000 },
	};
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		size_t lo = strlen(shapes[i].open), lc = strlen(shapes[i].close);
		size_t cap = (lo + lc) * (size_t)shapes[i].n + 64, len = 0;
		char *src = malloc(cap), *got;
		int k;

		bool top = strncmp(shapes[i].open, "struct", 6) == 0;

		len += (size_t)sprintf(src, "%s", top ? "" : "BEGIN{");
		for (k = 0; k < shapes[i].n; k++) {
			memcpy(src + len, shapes[i].open, lo);
			len += lo;
		}
		len += (size_t)sprintf(src + len, "%s", shapes[i].mid);
		for (k = 0; k < shapes[i].n; k++) {
			memcpy(src + len, shapes[i].close, lc);
			len += lc;
		}
		strcpy(src + len, top ? "" : ";}");
		got = parse_as(src, "x.d", false, 0);
		if (strncmp(got, "ERR D_SYNTAX: ", 14) != 0 ||
		    (!strstr(got, "too deeply") && !strstr(got, "too long"))) {
			fprintf(stderr, "limits %zu: %.200s\n", i, got);
			nfail++;
		} else {
			npass++;
		}
		free(got);
		free(src);
	}
}

/* ---- fuzz ---- */

static const char *const seeds[] = {
	"syscall::open*:entry /pid == $target && self->x[1,\"a\"]/ "
	"{ @c[probefunc] = count(); self->t = timestamp; }",
	"provider p { probe a(int x, char *s) : (char *s, int x); };",
	"typedef struct s { int a : 3; char b[4]; } s_t; inline int X = "
	"sizeof(s_t); BEGIN { printf(\"%d\\n\", X); exit(0); }",
	"#pragma D option quiet\nBEGIN, END /a ^^ b/ { if (x) { y = (char *)"
	"z; } else w = offsetof(struct s, b); }",
	"enum e { A = 1 << 2, B }; this int y; BEGIN { this->y = A ? B : "
	"-1; trace(stringof(arg0)); }",
};

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fuzz_one(const char *src, size_t len)
{
	dt_pcb_t pcb;
	bool cmdline = rnd() & 1;

	dt_pcb_init(&pcb, &hdl, src, len, "f.d", cmdline);
	pcb.default_ctx = (int)(rnd() % 4);
	if (setjmp(pcb.jb) == 0)
		dt_parse(&pcb);
	else if (hdl.errmsg[0] == '\0')
		nfail++, fprintf(stderr, "fuzz: error without message\n");
	dt_pcb_fini(&pcb);
}

static void mutate(char *buf, size_t *len, size_t cap)
{
	static const char alphabet[] = "{}()[];,/*+-:$@\"'\\#\n abc019xX_`.?!^&|<>=~%";
	int i, n = 1 + (int)(rnd() % 4);

	for (i = 0; i < n && *len > 0; i++) {
		size_t pos = rnd() % *len;

		switch (rnd() % 3) {
		case 0:
			buf[pos] = alphabet[rnd() % (sizeof(alphabet) - 1)];
			break;
		case 1:
			memmove(buf + pos, buf + pos + 1, *len - pos - 1);
			(*len)--;
			break;
		default:
			if (*len + 1 < cap) {
				memmove(buf + pos + 1, buf + pos, *len - pos);
				buf[pos] = alphabet[rnd() %
						    (sizeof(alphabet) - 1)];
				(*len)++;
			}
		}
	}
}

/* A soup of D tokens: reaches deeper into the grammar than bytes do. */
static size_t token_soup(char *buf, size_t cap)
{
	static const char *const toks[] = {
		"BEGIN", "syscall::read:entry", "{", "}", "(", ")", "[", "]",
		";", ",", "/", "=", "+", "-", "*", "&", "->", ".", "?", ":",
		"^^", "&&", "||", "++", "sizeof", "stringof", "offsetof",
		"int", "char", "unsigned", "long", "string", "struct", "union",
		"enum", "typedef", "inline", "self", "this", "provider",
		"probe", "if", "else", "x", "y", "@a", "@", "1", "0x1f", "'c'",
		"\"s\"", "$1", "$$2", "$target", "#pragma D option quiet\n",
		"\n", "...", "xlate", "extern", "void", "uint64_t", "foo_t",
		"/*c*/", "//c\n",
	};
	size_t len = 0, n = 1 + rnd() % 40;

	while (n-- > 0) {
		const char *t = toks[rnd() % (sizeof(toks) / sizeof(toks[0]))];
		size_t tl = strlen(t);

		if (len + tl + 2 >= cap)
			break;
		memcpy(buf + len, t, tl);
		len += tl;
		buf[len++] = ' ';
	}
	return len;
}

static void test_fuzz(double seconds)
{
	char *argv[] = { (char *)"f.d", (char *)"7", (char *)"name" };
	struct timespec t0, t;
	char buf[1024];
	long iters = 0;

	hdl.macro_argc = 3;
	hdl.macro_argv = argv;
	hdl.target = 99;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		size_t len;

		if (rnd() % 4 == 0) {
			len = token_soup(buf, sizeof(buf));
		} else if (rnd() % 8 == 0) {
			/* random bytes, the printable ones mostly */
			len = rnd() % 200;
			for (size_t i = 0; i < len; i++)
				buf[i] = (char)(rnd() % 16 ? 32 + rnd() % 95 :
						rnd() % 256);
		} else {
			const char *s = seeds[rnd() % (sizeof(seeds) /
						       sizeof(seeds[0]))];

			len = strlen(s);
			memcpy(buf, s, len);
			mutate(buf, &len, sizeof(buf));
		}
		fuzz_one(buf, len);
		iters++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) +
		 (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	hdl.macro_argc = 0;
	hdl.macro_argv = NULL;
	printf("fuzz: %ld inputs\n", iters);
}

int main(int argc, char **argv)
{
	double fuzz_secs = argc > 1 ? atof(argv[1]) : 1.0;

	hdl.types = dt_typetab_create();
	test_precedence();
	test_constants();
	test_int_types();
	test_statements();
	test_pdescs();
	test_macros();
	test_declarations();
	test_providers();
	test_pragmas();
	test_errors();
	test_limits();
	test_fuzz(fuzz_secs);
	dt_typetab_destroy(hdl.types);
	printf("test_parse: %d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
