/* SPDX-License-Identifier: MIT */
/*
 * dt_progdesc.h: the program description, the contract between the
 * compiler and the consumer.
 *
 * The code generator writes it as it compiles: the clauses (their code,
 * actions and record layout, dt_rec.h), the aggregation table and the
 * formats of printf-like actions.  The consumer reads it to format the
 * records and aggregations; the checker reads it to check formats against
 * their arguments.  Neither reads the code generator's own state.
 *
 * It also matches probes that appear while tracing against the clauses'
 * descriptions (late clause matching), so that the probe table never calls
 * back into compilation.
 */
#ifndef DT_PROGDESC_H
#define DT_PROGDESC_H

#include "dt_impl.h"
#include "dt_as.h"
#include "dt_rec.h"

/* --- clauses (dtp->clauses[0 .. nclauses-1]) --- */

typedef struct dt_compiled_clause {
	int id;			/* index in dtp->clauses, bit in masks */
	const char *desc;	/* the first probe description as written */
	int line;
	dt_as_t code;		/* finished; entry at instruction 0 */
	dt_as_t pred;		/* the predicate alone when it reads only
				   arguments (dt_cg.c), else empty */
	int nacts;
	dt_actdesc_t *acts;
	uint32_t recsize;	/* data bytes after the dt_rechdr_t */
	bool record;		/* writes an output record when it fires */
	bool destructive;
	uint32_t args_read;	/* bit i: the clause may read argv[i] */
	uint32_t pred_args;	/* those its predicate reads, when pred is
				   set */
	bool actmask;		/* the data starts with a u64 mask of the
				   actions that ran (bit i: acts[i]); set when
				   an action sits inside an if statement */
	bool udepth;		/* records ustackdepth (recdesc.usample) */
} dt_compiled_clause_t;

/* Add cc to the table with the next id (cc->id). */
void dt_pd_clause_add(dtrace_hdl_t *dtp, dt_compiled_clause_t *cc);

/* Add to set the clauses whose descriptions (dtp->clause_descs) match p:
 * a probe that appears while tracing is enabled with them. */
void dt_pd_clauses_of(dtrace_hdl_t *dtp, const dtrace_probe_t *p,
		      dt_clauseset_t *set);

/* Whether any clause records a user stack or address, or any aggregation
 * has one as a key: the consumer symbolizes user addresses. */
bool dt_pd_uses_usyms(const dtrace_hdl_t *dtp);

/* --- aggregations (dtp->aggs[0 .. naggs-1], by id) --- */

int dt_pd_naggs(const dtrace_hdl_t *dtp);
/* Aggregation id, or NULL when there is none of that id. */
dt_aggdesc_t *dt_pd_agg(const dtrace_hdl_t *dtp, int id);
/* Add ad to the table with the next id (ad->id). */
void dt_pd_agg_add(dtrace_hdl_t *dtp, dt_aggdesc_t *ad);
/* Free the aggregation table. */
void dt_pd_fini(dtrace_hdl_t *dtp);

/* --- formats (dt_format.c) --- */

/* The type of stack() and ustack() keys, as printa()'s formats see it. */
extern dt_type_t dt_printf_stack_type;
/* Check a printf-like format against the argument types at compile time.
 * Returns 0 or a dt_errtag_t with msg filled (DTrace's wording, without
 * the leading "printf( ) ": the caller prefixes the function's name).
 * %@ conversions (printa) take no argument. */
int dt_printf_check(const char *fmt, int nargs, dt_type_t *const *types,
		    char *msg, size_t msglen);
/* Which arguments (bit i: the i-th after the format) the %a and %A
 * conversions of a checked format print: they are recorded with the pid. */
uint64_t dt_printf_addr_args(const char *fmt);

/* One conversion of a format, as the checker and the consumer's printf
 * engine both parse it (pf_parse). */
typedef struct pf_spec {
	char flags[8];		/* printf flags as written, deduplicated */
	bool agg;		/* %@: the aggregation's value */
	bool dynwidth, dynprec;
	int width;		/* -1 if none */
	int prec;		/* -1 if none */
	char len[3];		/* length modifier, ignored but checked */
	char conv;		/* d i u o x X c s S p a A Y k %  */
	const char *start;	/* at '%' */
	const char *end;	/* after the conversion character */
} pf_spec_t;

/* What a conversion accepts. */
typedef enum pf_class {
	PF_INT,			/* d i u o x X: any integer or pointer */
	PF_CHAR,		/* c: char, short or int */
	PF_ADDR,		/* p a A: pointer or integer */
	PF_STR,			/* s S I: string or char array */
	PF_PORT,		/* P: a 16-bit port number */
	PF_TIME,		/* Y: 64-bit integer */
	PF_FLOAT,		/* e E f g G: float, double, long double */
	PF_PCT,			/* %% */
	PF_STACK,		/* k: a stack() value */
	PF_NONE,		/* undefined */
} pf_class_t;

pf_class_t pf_class(char c);
/* Add printf flag f to sp->flags, once. */
void pf_addflag(pf_spec_t *sp, char f);
/* Parse the conversion at p ('%').  Returns 0, or -1 with a message
 * (DTrace's wording) in err. */
int pf_parse(const char *p, int convno, pf_spec_t *sp, char *err,
	     size_t errlen);

#endif /* DT_PROGDESC_H */
