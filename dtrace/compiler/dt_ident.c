/* SPDX-License-Identifier: MIT */
/*
 * dt_ident.c: the static identifier tables of D: actions, subroutines,
 * aggregating functions, built-in variables and user register names.
 *
 * The tables are read-only; variables and aggregations a program declares
 * live in the session's table (dt_idtab_t, at the end) instead.
 */
#include <string.h>
#include <stdlib.h>

#include "dt_ident.h"

#define ACT(n, f, mn, mx, d, i) { n, f, DT_FC_ACTION, mn, mx, d, i }
#define SUB(n, f, mn, mx, d, i) { n, f, DT_FC_SUBR, mn, mx, d, i }
#define AGG(n, f, mn, mx)	{ n, f, DT_FC_AGGFUNC, mn, mx, false, true }

static const dt_funcinfo_t dt_funcs[] = {
	ACT("trace", DT_F_TRACE, 1, 1, false, true),
	ACT("printf", DT_F_PRINTF, 1, -1, false, true),
	ACT("exit", DT_F_EXIT, 1, 1, false, true),
	ACT("tracemem", DT_F_TRACEMEM, 2, 3, false, true),
	ACT("printa", DT_F_PRINTA, 1, -1, false, true),
	ACT("system", DT_F_SYSTEM, 1, -1, true, true),
	ACT("raise", DT_F_RAISE, 1, 1, true, true),
	ACT("stop", DT_F_STOP, 0, 0, true, true),
	ACT("clear", DT_F_CLEAR, 1, 1, false, true),
	ACT("trunc", DT_F_TRUNC, 1, 2, false, true),
	ACT("normalize", DT_F_NORMALIZE, 2, 2, false, true),
	ACT("denormalize", DT_F_DENORMALIZE, 1, 1, false, true),
	ACT("setopt", DT_F_SETOPT, 1, 2, false, true),
	ACT("stack", DT_F_STACK, 0, 1, false, true),
	ACT("ustack", DT_F_USTACK, 0, 2, false, true),
	ACT("ufunc", DT_F_UFUNC, 1, 1, false, true),
	ACT("usym", DT_F_USYM, 1, 1, false, true),
	ACT("umod", DT_F_UMOD, 1, 1, false, true),
	ACT("uaddr", DT_F_UADDR, 1, 1, false, true),
	ACT("print", DT_F_PRINT, 1, 1, false, true),
	SUB("copyin", DT_F_COPYIN, 2, 2, false, true),
	SUB("copyinstr", DT_F_COPYINSTR, 1, 2, false, true),
	SUB("copyinto", DT_F_COPYINTO, 3, 3, false, true),
	SUB("stringof", DT_F_STRINGOF, 1, 1, false, true),
	SUB("strlen", DT_F_STRLEN, 1, 1, false, true),
	SUB("strjoin", DT_F_STRJOIN, 2, 2, false, true),
	SUB("substr", DT_F_SUBSTR, 2, 3, false, true),
	SUB("index", DT_F_INDEX, 2, 3, false, true),
	SUB("rindex", DT_F_RINDEX, 2, 3, false, true),
	SUB("strstr", DT_F_STRSTR, 2, 2, false, true),
	SUB("strchr", DT_F_STRCHR, 2, 2, false, true),
	SUB("strrchr", DT_F_STRRCHR, 2, 2, false, true),
	SUB("basename", DT_F_BASENAME, 1, 1, false, true),
	SUB("dirname", DT_F_DIRNAME, 1, 1, false, true),
	SUB("lltostr", DT_F_LLTOSTR, 1, 2, false, true),
	SUB("toupper", DT_F_TOUPPER, 1, 1, false, true),
	SUB("tolower", DT_F_TOLOWER, 1, 1, false, true),
	SUB("rand", DT_F_RAND, 0, 0, false, true),
	SUB("progenyof", DT_F_PROGENYOF, 1, 1, false, true),
	SUB("d_execargs", DT_F_EXECARGS, 1, 1, false, true),
	SUB("d_path", DT_F_D_PATH, 1, 1, false, true),
	SUB("htons", DT_F_HTONS, 1, 1, false, true),
	SUB("htonl", DT_F_HTONL, 1, 1, false, true),
	SUB("htonll", DT_F_HTONLL, 1, 1, false, true),
	SUB("ntohs", DT_F_NTOHS, 1, 1, false, true),
	SUB("ntohl", DT_F_NTOHL, 1, 1, false, true),
	SUB("ntohll", DT_F_NTOHLL, 1, 1, false, true),
	SUB("inet_ntoa", DT_F_INET_NTOA, 1, 1, false, true),
	SUB("inet_ntop", DT_F_INET_NTOP, 2, 2, false, true),
	SUB("inet_ntoa6", DT_F_INET_NTOA6, 1, 1, false, true),
	SUB("link_ntop", DT_F_LINK_NTOP, 2, 2, false, true),
	SUB("copyout", DT_F_COPYOUT, 3, 3, true, true),
	SUB("copyoutstr", DT_F_COPYOUTSTR, 3, 3, true, true),
	ACT("freopen", DT_F_FREOPEN, 1, -1, true, true),
	ACT("ftruncate", DT_F_FTRUNCATE, 0, 0, false, true),
	ACT("printm", DT_F_PRINTM, 2, 2, false, true),
	SUB("speculation", DT_F_SPECULATION, 0, 0, false, true),
	SUB("alloca", DT_F_ALLOCA, 1, 1, false, true),
	SUB("bcopy", DT_F_BCOPY, 3, 3, false, true),
	ACT("chill", DT_F_CHILL, 1, 1, true, false),
	ACT("panic", DT_F_PANIC, 0, 0, true, false),
	ACT("breakpoint", DT_F_BREAKPOINT, 0, 0, true, false),
	ACT("jstack", DT_F_JSTACK, 0, 2, false, false),
	SUB("strtok", DT_F_STRTOK, 2, 2, false, true),
	SUB("cleanpath", DT_F_CLEANPATH, 1, 1, false, true),
	ACT("speculate", DT_F_SPECULATE, 1, 1, false, true),
	ACT("commit", DT_F_COMMIT, 1, 1, false, true),
	ACT("discard", DT_F_DISCARD, 1, 1, false, true),
	AGG("count", DT_F_COUNT, 0, 0),
	AGG("sum", DT_F_SUM, 1, 1),
	AGG("avg", DT_F_AVG, 1, 1),
	AGG("min", DT_F_MIN, 1, 1),
	AGG("max", DT_F_MAX, 1, 1),
	AGG("stddev", DT_F_STDDEV, 1, 1),
	AGG("quantize", DT_F_QUANTIZE, 1, 2),
	AGG("lquantize", DT_F_LQUANTIZE, 3, 5),
	AGG("llquantize", DT_F_LLQUANTIZE, 5, 6),
};

const dt_funcinfo_t *dt_func_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(dt_funcs) / sizeof(dt_funcs[0]); i++)
		if (strcmp(dt_funcs[i].name, name) == 0)
			return &dt_funcs[i];
	return NULL;
}

static const struct {
	const char *name;
	dt_bvar_t bv;
} dt_bvars[] = {
	{ "args", DT_BV_ARGS }, { "uregs", DT_BV_UREGS },
	{ "pid", DT_BV_PID }, { "ppid", DT_BV_PPID }, { "tid", DT_BV_TID },
	{ "uid", DT_BV_UID }, { "gid", DT_BV_GID },
	{ "execname", DT_BV_EXECNAME }, { "timestamp", DT_BV_TIMESTAMP },
	{ "vtimestamp", DT_BV_VTIMESTAMP },
	{ "walltimestamp", DT_BV_WALLTIMESTAMP }, { "cpu", DT_BV_CPU },
	{ "id", DT_BV_ID }, { "epid", DT_BV_EPID },
	{ "probeprov", DT_BV_PROBEPROV }, { "probemod", DT_BV_PROBEMOD },
	{ "probefunc", DT_BV_PROBEFUNC }, { "probename", DT_BV_PROBENAME },
	{ "errno", DT_BV_ERRNO }, { "ucaller", DT_BV_UCALLER },
	{ "curthread", DT_BV_CURTHREAD }, { "ustackdepth", DT_BV_USTACKDEPTH },
	{ "caller", DT_BV_CALLER }, { "stackdepth", DT_BV_STACKDEPTH },
};

bool dt_bvar_lookup(const char *name, dt_bvar_t *bv, int *argn)
{
	if (strncmp(name, "arg", 3) == 0 && name[3] >= '0' && name[3] <= '9' &&
	    name[4] == '\0') {
		*bv = DT_BV_ARG;
		*argn = name[3] - '0';
		return true;
	}
	for (size_t i = 0; i < sizeof(dt_bvars) / sizeof(dt_bvars[0]); i++)
		if (strcmp(dt_bvars[i].name, name) == 0) {
			*bv = dt_bvars[i].bv;
			*argn = -1;
			return true;
		}
	return false;
}

/*
 * uregs[] indices follow the order of x86_64 struct pt_regs, as Oracle
 * Linux DTrace's regs.d does, so an index is the pt_regs word number.
 */
static const struct {
	const char *name;
	int index;
} dt_uregs[] = {
	{ "R_R15", DTRACE_PT_R15 }, { "R_R14", DTRACE_PT_R14 },
	{ "R_R13", DTRACE_PT_R13 }, { "R_R12", DTRACE_PT_R12 },
	{ "R_RBP", DTRACE_PT_RBP }, { "R_RBX", DTRACE_PT_RBX },
	{ "R_R11", DTRACE_PT_R11 }, { "R_R10", DTRACE_PT_R10 },
	{ "R_R9", DTRACE_PT_R9 }, { "R_R8", DTRACE_PT_R8 },
	{ "R_RAX", DTRACE_PT_RAX }, { "R_RCX", DTRACE_PT_RCX },
	{ "R_RDX", DTRACE_PT_RDX }, { "R_RSI", DTRACE_PT_RSI },
	{ "R_RDI", DTRACE_PT_RDI }, { "R_ORIG_RAX", DTRACE_PT_ORIG_RAX },
	{ "R_RIP", DTRACE_PT_RIP }, { "R_CS", DTRACE_PT_CS },
	{ "R_RFL", DTRACE_PT_EFLAGS }, { "R_RSP", DTRACE_PT_RSP },
	{ "R_SS", DTRACE_PT_SS },
	{ "R_PC", DTRACE_PT_RIP }, { "R_FP", DTRACE_PT_RBP },
	{ "R_SP", DTRACE_PT_RSP }, { "R_PS", DTRACE_PT_EFLAGS },
	{ "R_R0", DTRACE_PT_RAX }, { "R_R1", DTRACE_PT_RBX },
};

#define DT_UREGS_MAX	DTRACE_PT_NREGS

/* The constants DTrace's own D libraries define (sys/dtrace.h's fault
 * codes, net.d's address families and link_ntop()'s link types,
 * signal.d's signals, with Linux's numbers): every program sees
 * them, a declaration of the program's own hides them. */
static const struct {
	const char *name;
	int64_t value;
} dt_consts[] = {
	{ "DTRACEFLT_UNKNOWN", 0 }, { "DTRACEFLT_BADADDR", 1 },
	{ "DTRACEFLT_BADALIGN", 2 }, { "DTRACEFLT_ILLOP", 3 },
	{ "DTRACEFLT_DIVZERO", 4 }, { "DTRACEFLT_NOSCRATCH", 5 },
	{ "DTRACEFLT_KPRIV", 6 }, { "DTRACEFLT_UPRIV", 7 },
	{ "DTRACEFLT_TUPOFLOW", 8 }, { "DTRACEFLT_BADSTACK", 9 },
	{ "DTRACEFLT_LIBRARY", 1000 },
	{ "AF_INET", 2 }, { "AF_INET6", 10 },		/* net.d's */
	{ "DL_ETHER", 1 }, { "DL_IPOIB", 32 },
	{ "SIGHUP", 1 }, { "SIGINT", 2 }, { "SIGQUIT", 3 }, { "SIGILL", 4 },
	{ "SIGTRAP", 5 }, { "SIGABRT", 6 }, { "SIGIOT", 6 }, { "SIGBUS", 7 },
	{ "SIGFPE", 8 }, { "SIGKILL", 9 }, { "SIGUSR1", 10 },
	{ "SIGSEGV", 11 }, { "SIGUSR2", 12 }, { "SIGPIPE", 13 },
	{ "SIGALRM", 14 }, { "SIGTERM", 15 }, { "SIGSTKFLT", 16 },
	{ "SIGCHLD", 17 }, { "SIGCLD", 17 }, { "SIGCONT", 18 },
	{ "SIGSTOP", 19 }, { "SIGTSTP", 20 }, { "SIGTTIN", 21 },
	{ "SIGTTOU", 22 }, { "SIGURG", 23 }, { "SIGXCPU", 24 },
	{ "SIGXFSZ", 25 }, { "SIGVTALRM", 26 }, { "SIGPROF", 27 },
	{ "SIGWINCH", 28 }, { "SIGPOLL", 29 }, { "SIGIO", 29 },
	{ "SIGPWR", 30 }, { "SIGSYS", 31 },
};

bool dt_const_lookup(const char *name, int64_t *value)
{
	for (size_t i = 0; i < sizeof(dt_consts) / sizeof(dt_consts[0]); i++)
		if (strcmp(dt_consts[i].name, name) == 0) {
			*value = dt_consts[i].value;
			return true;
		}
	return false;
}

bool dt_ureg_lookup(const char *name, int64_t *index)
{
	for (size_t i = 0; i < sizeof(dt_uregs) / sizeof(dt_uregs[0]); i++)
		if (strcmp(dt_uregs[i].name, name) == 0) {
			*index = dt_uregs[i].index;
			return true;
		}
	return false;
}

int dt_ureg_ptregs_offset(int64_t index)
{
	if (index < 0 || index >= DT_UREGS_MAX)
		return -1;
	return (int)index * 8;
}

/* ---- the session's table ---- */

dt_ident_t *dt_idtab_lookup(const dt_idtab_t *tab, dt_identkind_t kind,
			    const char *name)
{
	dt_ident_t *id = dt_strmap_get(&tab->index, kind, name);

	if (id == NULL && kind == DT_IK_INLINE)
		id = dt_strmap_get(&tab->index, DT_IK_CONST, name);
	return id;
}

void dt_idtab_add(dt_idtab_t *tab, dt_ident_t *id)
{
	id->next = tab->list;
	tab->list = id;
	dt_strmap_put(&tab->index, id->kind, id->name, id);
}

void dt_idtab_fini(dt_idtab_t *tab)
{
	dt_strmap_fini(&tab->index);
	while (tab->list != NULL) {
		dt_ident_t *id = tab->list;
		tab->list = id->next;
		free((char *)id->name);
		free(id->keys);
		free(id->kshapes);
		free(id);
	}
}

/* ---- stability attributes (dtrace -v) ---- */

const dt_attr_t dt_attr_max = {
	DTRACE_STABILITY_STABLE, DTRACE_STABILITY_STABLE, DT_CLASS_COMMON,
};

dt_attr_t dt_attr_min(dt_attr_t a, dt_attr_t b)
{
	return (dt_attr_t){ a.name < b.name ? a.name : b.name,
			    a.data < b.data ? a.data : b.data,
			    a.dclass < b.dclass ? a.dclass : b.dclass };
}

/* The identifiers whose attributes DTrace gives below Stable/Stable/Common;
 * every other built-in is Stable/Stable/Common. */
static const struct {
	const char *name;
	dt_attr_t attr;
} attr_exceptions[] = {
#define EVOLCMN { DTRACE_STABILITY_EVOLVING, DTRACE_STABILITY_EVOLVING, \
		  DT_CLASS_COMMON }
	{ "curthread", { DTRACE_STABILITY_STABLE, DTRACE_STABILITY_PRIVATE,
			 DT_CLASS_COMMON } },
	{ "uregs", { DTRACE_STABILITY_STABLE, DTRACE_STABILITY_PRIVATE,
		     DT_CLASS_ISA } },
	{ "d_path", EVOLCMN }, { "ddi_pathname", EVOLCMN },
	{ "getmajor", EVOLCMN }, { "getminor", EVOLCMN },
	{ "htonl", EVOLCMN }, { "htonll", EVOLCMN }, { "htons", EVOLCMN },
	{ "ntohl", EVOLCMN }, { "ntohll", EVOLCMN }, { "ntohs", EVOLCMN },
	{ "mutex_owned", EVOLCMN }, { "mutex_owner", EVOLCMN },
	{ "mutex_type_adaptive", EVOLCMN }, { "mutex_type_spin", EVOLCMN },
	{ "rw_iswriter", EVOLCMN }, { "rw_read_held", EVOLCMN },
	{ "rw_write_held", EVOLCMN },
#undef EVOLCMN
};

/* A built-in variable or a function named by n: its attributes. */
static dt_attr_t builtin_attr(const dt_node_t *n)
{
	for (size_t i = 0; i < sizeof(attr_exceptions) /
			       sizeof(attr_exceptions[0]); i++)
		if (strcmp(n->name, attr_exceptions[i].name) == 0)
			return attr_exceptions[i].attr;
	return dt_attr_max;
}

/* Whether IDENT or CALL node n names a built-in (not a variable of the
 * program's that happens to have the same name). */
static bool names_builtin(const dt_node_t *n)
{
	dt_bvar_t bv;
	int argn;

	if (n->kind == DT_N_CALL)
		return true;
	return n->kind == DT_N_IDENT && (n->ident == NULL ||
					 n->ident->kind == DT_IK_BUILTIN) &&
	       dt_bvar_lookup(n->name, &bv, &argn);
}

static dt_attr_t list_attr(const dt_node_t *n, bool *uses_args)
{
	dt_attr_t a = dt_attr_max;

	for (; n != NULL; n = n->next) {
		if (n->name != NULL && names_builtin(n)) {
			a = dt_attr_min(a, builtin_attr(n));
			if (n->kind == DT_N_IDENT &&
			    strcmp(n->name, "args") == 0)
				*uses_args = true;
		}
		a = dt_attr_min(a, list_attr(n->l, uses_args));
		a = dt_attr_min(a, list_attr(n->r, uses_args));
		a = dt_attr_min(a, list_attr(n->cond, uses_args));
		a = dt_attr_min(a, list_attr(n->args, uses_args));
	}
	return a;
}

dt_attr_t dt_clause_attr(const dt_clause_ast_t *c, bool *uses_args)
{
	*uses_args = false;
	return dt_attr_min(list_attr(c->pred, uses_args),
			   list_attr(c->body, uses_args));
}
