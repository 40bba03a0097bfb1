/* SPDX-License-Identifier: MIT */
/*
 * dt_error.h: tags of compile errors.
 *
 * Every compile error carries one stable tag; tests match on it
 * (test/d/err.D_TAG.name.d) and -x errtags prints it.  Add tags at will;
 * never rename one.
 */
#ifndef DT_ERROR_H
#define DT_ERROR_H

#define DT_ERRTAGS(X) \
	X(D_UNKNOWN)		/* unclassified */ \
	X(D_SYNTAX)		/* syntax error near token */ \
	X(D_EMPTY)		/* empty program */ \
	X(D_CHR_NL)		/* newline in character constant */ \
	X(D_STR_NL)		/* newline in string literal */ \
	X(D_CHR_NULL)		/* empty character constant */ \
	X(D_CHR_TOOBIG)		/* character constant too long */ \
	X(D_INT_OFLOW)		/* integer constant too large */ \
	X(D_INT_DIGIT)		/* bad digit in integer constant */ \
	X(D_COMM_EOF)		/* unterminated comment */ \
	X(D_STR_EOF)		/* unterminated string */ \
	X(D_BADCHAR)		/* invalid character */ \
	X(D_MACRO_UNDEF)	/* macro variable not defined ($3) */ \
	X(D_MACRO_UNUSED)	/* macro argument not used */ \
	X(D_PDESC_INVAL)	/* invalid probe description */ \
	X(D_PDESC_ZERO)		/* probe description matches nothing */ \
	X(D_IDENT_UNDEF)	/* undefined identifier */ \
	X(D_IDENT_BADREF)	/* identifier used the wrong way */ \
	X(D_VAR_UNSUP)		/* variable not supported where it is used */ \
	X(D_DECL_TYPE)		/* no longer given: DTrace's tags */ \
	X(D_DECL_REDEF)		/* no longer given: DTrace's tags */ \
	X(D_DECL_INCOMPLETE)	/* incomplete type */ \
	X(D_TYPE_UNDEF)		/* no longer given: DTrace's tags */ \
	X(D_OP_INT)		/* operator needs integers */ \
	X(D_OP_SCALAR)		/* operator needs scalars */ \
	X(D_OP_ARITH)		/* operator needs arithmetic operands */ \
	X(D_OP_LVAL)		/* operator needs an lvalue */ \
	X(D_OP_INCOMPAT)	/* incompatible operand types */ \
	X(D_OP_ARRFUN)		/* = on an array or function type */ \
	X(D_OP_PTR)		/* operator needs a pointer */ \
	X(D_OP_STRUCT)		/* . or -> on a non-struct */ \
	X(D_OP_WRITE)		/* assignment to a read-only object */ \
	X(D_DIV_ZERO)		/* constant division by zero */ \
	X(D_MEMBER_UNDEF)	/* no such member */ \
	X(D_ARGS_IDX)		/* args[] index out of range or not constant */ \
	X(D_PROTO_LEN)		/* wrong number of arguments to a function */ \
	X(D_PROTO_ARG)		/* wrong type of argument to a function */ \
	X(D_FUNC_UNDEF)		/* unknown function */ \
	X(D_PRINTF_FMT)		/* no longer given: DTrace's D_SYNTAX */ \
	X(D_PRINTF_ARG_TYPE)	/* printf argument does not fit its conversion */ \
	X(D_PRINTF_ARG_EXTRA)	/* too many printf arguments */ \
	X(D_PRINTF_ARG_PROTO)	/* too few printf arguments */ \
	X(D_ACT_SPEC)		/* action not allowed here */ \
	X(D_SPEC_SPEC)		/* speculate( ) after speculate( ) */ \
	X(D_SPEC_COMM)		/* speculate( ) after commit( ) */ \
	X(D_SPEC_DREC)		/* speculate( ) after data recording */ \
	X(D_AGG_SPEC)		/* aggregation after speculate( ) */ \
	X(D_EXIT_SPEC)		/* exit( ) after speculate( ) */ \
	X(D_COMM_COMM)		/* commit( ) after commit( ) */ \
	X(D_COMM_DREC)		/* commit( ) after data recording */ \
	X(D_AGG_COMM)		/* aggregation after commit( ) */ \
	X(D_DREC_COMM)		/* data recording after commit( ) */ \
	X(D_DESTRUCT)		/* destructive action without -w */ \
	X(D_AGG_FUNC)		/* aggregation needs an aggregating function */ \
	X(D_AGG_REDEF)		/* aggregation used with two functions */ \
	X(D_AGG_SCALAR)		/* aggregation used as a value */ \
	X(D_AGG_KEYS)		/* aggregation keys differ in number/type */ \
	X(D_AGG_ARGS)		/* bad arguments to an aggregating function */ \
	X(D_LQUANT_BASETYPE)	/* lquantize( ) base not a constant */ \
	X(D_LQUANT_BASEVAL)	/* lquantize( ) base out of range */ \
	X(D_LQUANT_LIMTYPE)	/* lquantize( ) limit not a constant */ \
	X(D_LQUANT_LIMVAL)	/* lquantize( ) limit out of range */ \
	X(D_LQUANT_MISMATCH)	/* lquantize( ) limit below base */ \
	X(D_LQUANT_STEPTYPE)	/* lquantize( ) step not a positive constant */ \
	X(D_LQUANT_STEPVAL)	/* lquantize( ) step out of range */ \
	X(D_LQUANT_STEPLARGE)	/* lquantize( ) step leaves no level */ \
	X(D_LQUANT_STEPSMALL)	/* lquantize( ) step makes too many levels */ \
	X(D_LLQUANT_FACTORTYPE)	/* llquantize( ) factor not a constant */ \
	X(D_LLQUANT_FACTORVAL)	/* llquantize( ) factor out of range */ \
	X(D_LLQUANT_LMAGTYPE)	/* llquantize( ) low magnitude not a constant */ \
	X(D_LLQUANT_LMAGVAL)	/* llquantize( ) low magnitude out of range */ \
	X(D_LLQUANT_HMAGTYPE)	/* llquantize( ) high magnitude not constant */ \
	X(D_LLQUANT_HMAGVAL)	/* llquantize( ) high magnitude out of range */ \
	X(D_LLQUANT_STEPTYPE)	/* llquantize( ) steps not a positive constant */ \
	X(D_LLQUANT_STEPVAL)	/* llquantize( ) steps do not fit the factor */ \
	X(D_ARR_KEYS)		/* associative array keys differ */ \
	X(D_VAR_TYPE)		/* no longer given: DTrace's tags */ \
	X(D_PRAGMA_OPT)		/* unknown or bad option */ \
	X(D_PRAGMA_MALFORM)	/* malformed #pragma */ \
	X(D_PRAGMA_INVAL)	/* invalid #pragma D directive or argument */ \
	X(D_PRAGMA_DEPEND)	/* #pragma D depends_on not satisfied */ \
	X(D_PRAGMA_OPTSET)	/* #pragma D option cannot be set */ \
	X(D_PRAGCTL_INVAL)	/* invalid control directive */ \
	X(D_PRAGERR)		/* #error */ \
	X(D_PRAGMA_UNUSED)	/* #pragma D attributes naming nothing */ \
	X(D_XLATE_REDECL)	/* translator redeclared */ \
	X(D_XLATE_NOCONV)	/* no conversion for a member */ \
	X(D_XLATE_NONE)		/* no translator for the types */ \
	X(D_XLATE_SOU)		/* output not a complete struct or union */ \
	X(D_XLATE_INCOMPAT)	/* member definition of another type */ \
	X(D_XLATE_MEMB)		/* not a member of the output type */ \
	X(D_SIZEOF_TYPE)	/* sizeof of an operand of unknown size */ \
	X(D_PROV_BADNAME)	/* bad provider name */ \
	X(D_PROV_PRDUP)		/* duplicate probe in a provider */ \
	X(D_PROV_INCOMPAT)	/* argument mapping does not fit */ \
	X(D_STACK_SIZE)		/* program needs too much stack */ \
	X(D_CLAUSE_SIZE)	/* clause code beyond a BPF jump's reach */ \
	X(D_STR_TOOBIG)		/* string does not fit strsize */ \
	X(D_NOMEM)		/* out of memory */ \
	X(D_CPP)		/* the C preprocessor failed */ \
	X(D_IO)			/* cannot read the script */ \
	X(D_PROC_BADPID)	/* pid provider: no valid pid in the name */ \
	X(D_PROC_GRAB)		/* pid provider: cannot grab the process */ \
	X(D_PROC_FUNC)		/* pid provider: no such function */ \
	X(D_PROC_OFF)		/* pid provider: offset outside the function */ \
	X(D_PROC_NAME)		/* pid provider: invalid probe name */ \
	X(D_PROC_ALIGN)		/* pid provider: offset inside an instruction */ \
	X(D_CHR_OFLOW)		/* character constant too long */ \
	X(D_DECL_ARRSUB)	/* array dimension not a positive constant */ \
	X(D_DECL_ARRBIG)	/* array dimension or variable too big */ \
	X(D_DECL_BFCONST)	/* bit-field size not a positive constant */ \
	X(D_DECL_BFSIZE)	/* bit-field too big for its type */ \
	X(D_DECL_BFTYPE)	/* bit-field of a type not an integer */ \
	X(D_DECL_ENCONST)	/* enumerator value not a constant */ \
	X(D_DECL_ENOFLOW)	/* enumerator value past INT_MAX */ \
	X(D_DECL_IDRED)		/* identifier redeclared */ \
	X(D_DECL_TYPERED)	/* struct, union or enum redeclared */ \
	X(D_DECL_COMBO)		/* invalid combination of type specifiers */ \
	X(D_DECL_CHARATTR)	/* short or long with char */ \
	X(D_DECL_VOIDATTR)	/* short, long, signed, unsigned with void */ \
	X(D_DECL_SIGNINT)	/* signed or unsigned with no integer */ \
	X(D_DECL_LONGINT)	/* long with no integer or floating point */ \
	X(D_DECL_VOIDOBJ)	/* object or array of void */ \
	X(D_DECL_PROTO_TYPE)	/* parameter type not allowed (void key) */ \
	X(D_DECL_PROTO_VOID)	/* void not the sole parameter */ \
	X(D_DECL_PROTO_NAME)	/* void parameter with a name, or a translated
				   one without */ \
	X(D_DECL_PROTO_FORM)	/* parameter name repeated, or naming no
				   native one */ \
	X(D_OP_SOU)		/* . or -> not on a struct or union */ \
	X(D_OP_INCOMPLETE)	/* . or -> on a forward declaration */ \
	X(D_TYPE_MEMBER)	/* no such member */ \
	X(D_CG_EXPR)		/* action or aggregating function in an
				   expression */ \
	X(D_KEY_TYPE)		/* key of a type that cannot be a key */ \
	X(D_PRINTF_ARG_FMT)	/* format that is no string constant */ \
	X(D_PRINTF_FMT_EMPTY)	/* empty format string */ \
	X(D_DECL_LOCASSC)	/* this-> associative array declared */ \
	X(D_ADDROF_VAR)		/* & of a D variable or a part of one */ \
	X(D_ADDROF_LVAL)	/* & of what is no object in memory */ \
	X(D_DECL_CLASS)		/* more than one storage class */ \
	X(D_DECL_BADCLASS)	/* auto, register or static on a variable */ \
	X(D_DECL_PARMCLASS)	/* storage class of a parameter */ \
	X(D_OFFSETOF_BITFIELD)	/* offsetof() of a bit-field */ \
	X(D_SIZEOF_BITFIELD)	/* sizeof of a bit-field */ \
	X(D_ADDROF_BITFIELD)	/* & of a bit-field */ \
	X(D_PRINT_SIZE)		/* print() of a type of size 0 */ \
	X(D_ALLOCA_INCOMPAT)	/* alloca() and other pointers mixed in one
				   variable */ \
	X(D_ARR_BOUNDS)		/* constant index past an array's bound */ \
	X(D_PRINTA_PROTO)	/* printa() without an aggregation */ \
	X(D_PRINTA_AGGARG)	/* printa() of what is no aggregation */ \
	X(D_PRINTA_AGGBAD)	/* printa() of an undefined aggregation */ \
	X(D_CLEAR_AGGARG)	/* clear() of what is no aggregation */ \
	X(D_CLEAR_AGGBAD)	/* clear() of an undefined aggregation */ \
	X(D_NORMALIZE_PROTO)	/* (de)normalize() argument count */ \
	X(D_NORMALIZE_SCALAR)	/* normalize() factor not a scalar */ \
	X(D_NORMALIZE_AGGARG)	/* (de)normalize() of no aggregation */ \
	X(D_NORMALIZE_AGGBAD)	/* (de)normalize() of an undefined one */ \
	X(D_TRUNC_PROTO)	/* trunc() argument count */ \
	X(D_TRUNC_SCALAR)	/* trunc() count not a scalar */ \
	X(D_TRUNC_AGGARG)	/* trunc() of what is no aggregation */ \
	X(D_TRUNC_AGGBAD)	/* trunc() of an undefined aggregation */ \
	X(D_USTACK_FRAMES)	/* ustack() frames not a positive constant */ \
	X(D_USTACK_STRSIZE)	/* ustack() strsize not a positive constant */ \
	X(D_TRACEMEM_ADDR)	/* tracemem() address not a pointer or
				   integer */ \
	X(D_TRACEMEM_SIZE)	/* tracemem() size not a positive constant */ \
	X(D_TRACE_VOID)		/* trace() of a void expression */ \
	X(D_PRINTF_DYN_PROTO)	/* no argument for a * width or precision */ \
	X(D_PRINTF_DYN_TYPE)	/* a * width or precision not an integer */ \
	X(D_LQUANT_MATCHBASE)	/* lquantize() base unlike the first use's */ \
	X(D_LQUANT_MATCHLIM)	/* lquantize() limit unlike the first use's */ \
	X(D_LQUANT_MATCHSTEP)	/* lquantize() step unlike the first use's */ \
	X(D_LLQUANT_MATCHFACTOR) /* llquantize() parameters unlike the first */ \
	X(D_LLQUANT_MATCHLMAG)	/* use's: factor, low and high magnitude, */ \
	X(D_LLQUANT_MATCHHMAG)	/* steps */ \
	X(D_LLQUANT_MATCHSTEPS) \
	X(D_OP_VFPTR)		/* += or -= on what is no integer or pointer
				   to a type of known size */ \
	X(D_PRED_SCALAR)	/* a predicate of no scalar type */ \
	X(D_SYM_NOTYPES)	/* a kernel symbol without a type */

typedef enum dt_errtag {
#define DT_ERRTAG_ENUM(t) t,
	DT_ERRTAGS(DT_ERRTAG_ENUM)
#undef DT_ERRTAG_ENUM
	D_NTAGS
} dt_errtag_t;

const char *dt_errtag_name(dt_errtag_t tag);
dt_errtag_t dt_errtag_by_name(const char *name);

#endif /* DT_ERROR_H */
