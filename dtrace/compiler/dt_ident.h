/* SPDX-License-Identifier: MIT */
/*
 * dt_ident.h: identifiers the checker resolves: built-in variables, actions
 * and subroutines (static tables), and the variables and aggregations a
 * program declares (dt_idtab_t: the session's table, which outlives one
 * clause: a global assigned in one clause is read in another).  The
 * checker declares them; the code generator gives them their storage.
 *
 * Invariant: a variable's type never changes after its first declaration or
 * assignment; an assignment of a type that does not convert is DTrace's
 * D_OP_INCOMPAT.
 */
#ifndef DT_IDENT_H
#define DT_IDENT_H

#include "dt_impl.h"
#include "dt_strmap.h"

typedef enum dt_identkind {
	DT_IK_BUILTIN,		/* built-in variable: id is dt_bvar_t */
	DT_IK_GLOBAL,		/* global scalar or associative array */
	DT_IK_SELF,		/* thread-local */
	DT_IK_THIS,		/* clause-local */
	DT_IK_AGG,		/* @name */
	DT_IK_FUNC,		/* action, subroutine or aggregating function */
	DT_IK_CONST,		/* inline constant, R_* register index */
	DT_IK_INLINE,		/* inline with a non-constant expression */
} dt_identkind_t;

/* Built-in variables. */
typedef enum dt_bvar {
	DT_BV_ARG,		/* arg0..arg9: index in bvar_arg */
	DT_BV_ARGS, DT_BV_UREGS,
	DT_BV_PID, DT_BV_PPID, DT_BV_TID, DT_BV_UID, DT_BV_GID,
	DT_BV_EXECNAME, DT_BV_TIMESTAMP, DT_BV_VTIMESTAMP,
	DT_BV_WALLTIMESTAMP, DT_BV_CPU, DT_BV_ID, DT_BV_EPID,
	DT_BV_PROBEPROV, DT_BV_PROBEMOD, DT_BV_PROBEFUNC, DT_BV_PROBENAME,
	DT_BV_ERRNO, DT_BV_UCALLER, DT_BV_CURTHREAD,
	DT_BV_USTACKDEPTH,	/* known once the consumer unwinds: recorded
				   values only (dt_cg_act.c) */
	DT_BV_CALLER,		/* the kernel PC that ran the probe */
	DT_BV_STACKDEPTH,	/* the kernel stack's frames */
	DT_BV_KVAR,		/* `name: a kernel per-CPU variable, this
				   CPU's (no name of its own: dt_check.c) */
	DT_BV_COUNT		/* how many there are */
} dt_bvar_t;

/* Functions: actions, subroutines and aggregating functions. */
typedef enum dt_func {
	DT_F_TRACE, DT_F_PRINTF, DT_F_EXIT, DT_F_TRACEMEM, DT_F_PRINTA,
	DT_F_SYSTEM, DT_F_RAISE, DT_F_STOP, DT_F_CLEAR, DT_F_TRUNC,
	DT_F_NORMALIZE, DT_F_DENORMALIZE, DT_F_SETOPT, DT_F_STACK,
	DT_F_USTACK,
	/* subroutines (return a value) */
	DT_F_COPYIN, DT_F_COPYINSTR, DT_F_COPYINTO, DT_F_STRINGOF,
	DT_F_STRLEN, DT_F_STRJOIN, DT_F_SUBSTR, DT_F_INDEX, DT_F_RINDEX,
	DT_F_STRSTR, DT_F_STRCHR, DT_F_STRRCHR, DT_F_BASENAME,
	DT_F_DIRNAME, DT_F_LLTOSTR, DT_F_TOUPPER, DT_F_TOLOWER, DT_F_RAND,
	DT_F_PROGENYOF, DT_F_HTONS, DT_F_HTONL, DT_F_HTONLL, DT_F_NTOHS,
	DT_F_NTOHL, DT_F_NTOHLL, DT_F_INET_NTOA, DT_F_INET_NTOP,
	DT_F_COPYOUT, DT_F_COPYOUTSTR, DT_F_SPECULATION, DT_F_ALLOCA,
	DT_F_BCOPY, DT_F_STRTOK, DT_F_CLEANPATH, DT_F_INET_NTOA6,
	DT_F_LINK_NTOP, DT_F_EXECARGS, DT_F_D_PATH,
	/* aggregating functions */
	DT_F_COUNT, DT_F_SUM, DT_F_AVG, DT_F_MIN, DT_F_MAX, DT_F_STDDEV,
	DT_F_QUANTIZE, DT_F_LQUANTIZE, DT_F_LLQUANTIZE,
	/* user address actions (also aggregation keys) */
	DT_F_UFUNC, DT_F_USYM, DT_F_UMOD, DT_F_UADDR,
	/* actions the consumer carries out */
	DT_F_FREOPEN, DT_F_FTRUNCATE, DT_F_PRINTM, DT_F_SPECULATE,
	DT_F_COMMIT, DT_F_DISCARD,
	DT_F_PRINT,		/* print(x): formatted by x's type */
	/* DTrace's, which it does not implement on Linux either: known,
	 * their arguments checked, then refused as DTrace refuses them */
	DT_F_CHILL, DT_F_PANIC, DT_F_BREAKPOINT, DT_F_JSTACK,
} dt_func_t;

typedef enum dt_fclass {
	DT_FC_ACTION,		/* a statement of its own, records data */
	DT_FC_SUBR,		/* an expression */
	DT_FC_AGGFUNC,		/* only on the right of @a = */
} dt_fclass_t;

typedef struct dt_funcinfo {
	const char *name;
	dt_func_t func;
	dt_fclass_t fclass;
	int minargs, maxargs;	/* maxargs -1: variadic */
	bool destructive;
	bool implemented;	/* false: D_FUNC_UNDEF "not supported yet" */
} dt_funcinfo_t;

/* How an aggregation key is stored, as far as two uses of one aggregation
 * must agree: its kind (dt_reckind_t: an integer, a string, a stack or a
 * user address) and, for a stack, its frames. */
typedef struct dt_keyshape {
	int kind;
	uint32_t frames;
} dt_keyshape_t;

struct dt_ident {
	const char *name;
	dt_identkind_t kind;
	int id;			/* dt_bvar_t, dt_func_t, agg id */
	dt_type_t *type;	/* value type */
	int nkeys;		/* -1: scalar; else associative array */
	dt_type_t **keys;
	bool declared;		/* by a declaration or an assignment */
	bool implicit;		/* self->x / this->x read before any
				   assignment: int64_t until assigned */
	uint32_t offset;	/* GLOBAL scalar: in the globals value; THIS:
				   in the mstate */
	uint32_t ksize, vsize;	/* map-backed variables */
	dtrace_map_t *map;	/* self vars, associative arrays */
	int64_t value;		/* CONST */
	dt_node_t *expr;	/* INLINE */
	/* AGG: what its first use fixed (keys: the key types, a stack key
	 * as dt_printf_stack_type), which every other use must match */
	int aggfunc;		/* dt_aggfunc_t */
	int64_t params[4];	/* lquantize, llquantize */
	dt_keyshape_t *kshapes;
	const dt_funcinfo_t *fi; /* FUNC */
	uint8_t ptr_origin;	/* a pointer variable: what its assignments
				   pointed to (dt_check.c's ptr_origin_t) */
	int line;
	struct dt_ident *next;
};

/* The variables, aggregations and inlines a session declares, newest
 * first; the code generator places those it has not seen yet
 * (dt_cg_var.c). */
typedef struct dt_idtab {
	dt_ident_t *list;
	dt_strmap_t index;	/* (kind, name) -> the newest of list */
	uint32_t nhidden;	/* names made for translated structs */
} dt_idtab_t;

/* The identifier of that kind and name (an inline: DT_IK_INLINE or
 * DT_IK_CONST), or NULL. */
dt_ident_t *dt_idtab_lookup(const dt_idtab_t *tab, dt_identkind_t kind,
			    const char *name);
/* Put id on the table, where dt_idtab_lookup() finds it. */
void dt_idtab_add(dt_idtab_t *tab, dt_ident_t *id);
/* Free the table and its identifiers. */
void dt_idtab_fini(dt_idtab_t *tab);

const dt_funcinfo_t *dt_func_lookup(const char *name);
/* A built-in variable by name: fills *bv (and *argn for argN). */
bool dt_bvar_lookup(const char *name, dt_bvar_t *bv, int *argn);

/*
 * Stability attributes (dtrace -v): a name's stability, its data's, and a
 * dependency class (DT_CLASS_*), each ordered so that the lesser is the
 * less stable; a statement's are the least of those of the identifiers it
 * names, as DTrace computes them.
 */
typedef enum dt_depclass {
	DT_CLASS_UNKNOWN, DT_CLASS_CPU, DT_CLASS_PLATFORM, DT_CLASS_GROUP,
	DT_CLASS_ISA, DT_CLASS_COMMON,
} dt_depclass_t;

typedef struct dt_attr {
	dtrace_stability_t name, data;
	dt_depclass_t dclass;
} dt_attr_t;

/* Stable/Stable/Common: what a statement naming nothing less has. */
extern const dt_attr_t dt_attr_max;
dt_attr_t dt_attr_min(dt_attr_t a, dt_attr_t b);
/* The least attributes of the identifiers clause c (checked) names: its
 * built-in variables and functions, those DTrace documents below
 * Stable/Stable/Common lowering it; *uses_args set when it names args[ ],
 * whose attributes are the probes' argument attributes (the caller's). */
dt_attr_t dt_clause_attr(const dt_clause_ast_t *c, bool *uses_args);
/* DTrace's user register names (R_PC, R_SP, R_RAX ...): the index into
 * uregs[] and the byte offset in struct pt_regs. */
/* A constant every D program knows (DTRACEFLT_*, SIG*). */
bool dt_const_lookup(const char *name, int64_t *value);
bool dt_ureg_lookup(const char *name, int64_t *index);
int dt_ureg_ptregs_offset(int64_t index);	/* -1 if out of range */

#endif /* DT_IDENT_H */
