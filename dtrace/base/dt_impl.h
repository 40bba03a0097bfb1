/* SPDX-License-Identifier: MIT */
/*
 * dt_impl.h: the session and the compile control block.
 *
 * One dtrace_hdl_t per session holds every piece of state: options, the
 * provider plugins, the probe table, the compiled clauses, the BPF maps and
 * programs, and the consumer.  Each subsystem keeps its own state behind one
 * pointer of the handle, declared in its own header, so that subsystems do
 * not reach into each other's fields.  There are no hidden globals.
 *
 * One dt_pcb_t per compile holds what a compile needs and frees: the arena
 * of parse nodes, the source, and the catch point of compile errors.
 */
#ifndef DT_IMPL_H
#define DT_IMPL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <dtrace/provider.h>
#include "dt_ast.h"
#include "dt_type.h"
#include "dt_error.h"
#include "dt_clauseset.h"
#include "dt_hash.h"
#include "dt_array.h"

#define DT_VERS_STRING	"dtrace 0.1"

/* Options (-x name=value and #pragma D option).  Sizes are in bytes,
 * times in nanoseconds.  See dt_options.c for names and parsing. */
typedef struct dt_options {
	uint64_t bufsize;	/* output ring buffer, default 4m */
	uint64_t aggsize;	/* aggregation buffer, default 4m */
	uint64_t strsize;	/* characters a string holds, its NUL
				   aside (as in DTrace), default 256 */
	uint64_t switchrate;	/* consumer wakeup period, default 1s */
	uint64_t aggrate;
	uint64_t statusrate;
	uint64_t nspec;		/* speculations, 1 to DT_NSPEC_MAX */
	uint64_t specsize;	/* bytes a speculation holds, default 32k */
	uint64_t ustackframes;	/* ustack()'s frames, default 100 */
	uint64_t ustackbytes;	/* the user stack copied for ustack(), 8k */
	int64_t procprobes;	/* processes' probes the programs may make
				   (dt_instance.c), DT_INST_DEFAULT */
	int64_t aggsortpos;
	int64_t aggsortkeypos;
	bool quiet;		/* -q */
	bool destructive;	/* -w */
	bool flowindent;	/* -F */
	bool zdefs;		/* -Z: allow descriptions that match nothing */
	bool errtags;		/* prefix compile errors with their tag */
	bool aggsortkey, aggsortrev, aggpercpu;
	bool rawbytes;
	bool noresolve;		/* user addresses print as module:0xoffset */
	bool temporal;		/* always so: one buffer */
	bool cpp;		/* -C */
	bool verbose;		/* -v */
	bool debug;		/* -x debug: the plugins' host->report->debug() lines */
	bool show_bpf;		/* -S */
	bool list;		/* -l */
	int oformat;		/* dt_oformat_t: -x oformat */
	bool json;		/* oformat=json */
	const char *cpppath;
	const char *metrics;	/* -x metrics=[ADDR:]PORT, or NULL */
	const char **cpp_args;	/* -D, -U, -I as given, for -C */
	int cpp_nargs;
	const char *uprobe_mech; /* -x uprobe=multi|perf (perf: the fallback) */
	bool no_execgate;	/* -x execgate=off: the exec watch alone */
	bool help;		/* -x help: list the options and exit */
	bool defaultargs;	/* a macro argument not given is 0 or "" */
	bool argref;		/* arguments the script does not use are fine */
	bool nolibs;		/* no D library is read */
	uint64_t dynvarsize;	/* bytes of each dynamic variable map, 0:
				   DT_VAR_NENTRIES entries */
	uint64_t stackframes;	/* stack()'s frames, default 20 */
	uint64_t maxframes;	/* the most frames any stack() or ustack()
				   keeps (more asked are cut to it), as
				   DTrace's: the kernel's
				   perf_event_max_stack by default */
	uint64_t stackindent;	/* columns before each frame of a printed
				   stack, default 14 */
	uint64_t printsize;	/* bytes of an object print() shows (its
				   members from there on are cut: "...") */
	uint64_t cleanrate;	/* checked only: a dynamic variable is freed
				   when assigned 0, there is nothing to clean */
	int bufpolicy;		/* dt_bufpolicy_t */
	int evaltime;		/* dt_evaltime_t: where -c processes stop
				   for their probes (dt_proc.c) */
	bool droptags;		/* drop messages start with their tag */
	bool empty;		/* an empty program compiles */
	const char *syslibdir;	/* the installed D libraries, else
				   DT_LIBRARYDIR */
	char **env_edits;	/* -x setenv (NAME=VALUE), unsetenv (NAME),
				   in order: the -c processes' environment
				   (dt_proc.c) */
	int nenv_edits;
	int unwinder;		/* dt_unwinder_t: -x unwinder */
} dt_options_t;

/* -x oformat: what the output is.  The profile formats write the stack
 * aggregations when tracing ends; the records' text goes to stderr. */
typedef enum dt_oformat {
	DT_OFORMAT_TEXT,	/* DTrace's text */
	DT_OFORMAT_JSON,	/* JSON Lines */
	DT_OFORMAT_FOLDED,	/* folded stacks: "frame;frame count" */
	DT_OFORMAT_FLAMEGRAPH,	/* an interactive SVG flame graph */
	DT_OFORMAT_PPROF,	/* a gzipped pprof profile.proto */
} dt_oformat_t;
#define DT_OFORMAT_LAST	DT_OFORMAT_PPROF

/* -x bufpolicy: what a record that finds the output buffer full does. */
typedef enum dt_bufpolicy {
	DT_BUFPOLICY_SWITCH,	/* it is dropped and counted */
	DT_BUFPOLICY_FILL,	/* tracing stops; END still has room */
	DT_BUFPOLICY_RING,	/* the oldest records make room for it;
				   printed when tracing ends */
} dt_bufpolicy_t;

/* -x evaltime: where a -c process stops for its probes to be placed. */
typedef enum {
	DT_EVALTIME_PREINIT,	/* its libraries mapped, not initialized (the
				   default, as DTrace's) */
	DT_EVALTIME_EXEC,	/* right after its exec; the libraries'
				   probes once the loader mapped them */
	DT_EVALTIME_POSTINIT,	/* its entry point: the libraries
				   initialized, none of its own code run */
} dt_evaltime_t;

/* -x unwinder: what unwinds the user stacks ustack() copied
 * (dt_unwind.c); bench/ustack.sh compares them. */
typedef enum dt_unwinder {
	DT_UNWINDER_LIBDW,	/* elfutils' libdw (the default) */
	DT_UNWINDER_LIBUNWIND,	/* libunwind's remote unwinder */
} dt_unwinder_t;

#define DT_NSPEC_MAX	64	/* speculation() tries each: unrolled */
/* Processes' own probes the programs may make (-x procprobes): each takes
 * a probe id and about 450 bytes of maps, allocated at start, since a BPF
 * map cannot grow under loaded programs. */
#define DT_INST_DEFAULT	4096
#define DT_INST_LIMIT	(1 << 20)

/* The provider a plugin serves in this session: the handle the plugin is
 * given (dtrace_provider_t). */
typedef struct dtrace_provider {
	const dtrace_provider_ops_t *ops;	/* &opsbuf */
	dtrace_provider_ops_t opsbuf;	/* the plugin's table, fields past
					   its size NULL */
	dtrace_hdl_t *dtp;
	void *data;		/* from attach_session */
	char *path;		/* plugin file */
	void *dlh;
	char *last_prv;		/* the last provider name it was allowed */
	bool templates;		/* it has DTRACE_PROBE_TEMPLATE probes, or
				   may have (it asked for the exec gate) */
	/* the clauses' descriptions it is asked (dt_provider_descs) */
	const dtrace_probedesc_t **descs;
	size_t ndescs, descs_cap;
	int descs_nclauses;	/* dtp->nclauses when descs was made */
	struct dtrace_provider *next;
} dt_provider_t;

/* The ids of the engine's probes, whatever plugins are loaded. */
#define DT_PRID_BEGIN	1	/* dtrace:::BEGIN */
#define DT_PRID_END	2	/* dtrace:::END */
#define DT_PRID_ERROR	3	/* dtrace:::ERROR */
#define DT_PRID_RESERVED 3	/* providers' probes start after these */

/* An overlying probe. */
struct dtrace_probe {
	uint32_t id;		/* PRID, 1-based, index in dtp->probes */
	char *prv, *mod, *fun, *prb;
	dt_provider_t *provider;
	void *priv;
	int nargs;		/* -1 until probe_args was asked */
	bool ctypes_read;	/* dt_probe_ctypes() ran */
	/* nargs of each, in one allocation (dt_probe_args_alloc()), made
	 * when the arguments are asked for: most probes listed never are */
	dtrace_argdesc_t *args;
	dt_type_t **argtypes;		/* of args[N] */
	dt_type_t **nativetypes;	/* of argN */
	dt_clauseset_t clauses; /* the clauses enabled on it */
	unsigned attr;		/* DTRACE_PROBE_* from its provider */
	const char *func_file;	/* host->probes->at_function: the file whose
				   DWARF types its arguments, or NULL */
	bool enabled;
};

struct dt_compiled_clause;	/* dt_cg.h */
struct dt_bpf_state;		/* dt_bpf.h */
struct dt_consumer;		/* dt_consume.h */
struct dt_proc_state;		/* dt_proc.h */
struct dt_progset;		/* dt_program.h */
struct dt_cg_state;		/* dt_cg.h */

struct dtrace_hdl {
	dt_options_t opt;
	const char *progname;	/* "dtrace", for messages */
	FILE *out;		/* -o file, else stdout */
	int out_errno;		/* why a write to out failed (dt_output.c) */
	bool out_complete;	/* a profile was written whole: its file
				   may take its name (dt_output.c) */
	bool out_named;		/* -o named the output's file */
	int out_fd;		/* the file of the stream dt_output_open()
				   made (fileno() of it is -1) */
	int exitstatus;

	/* macro arguments: $0 .. $n */
	int macro_argc;
	char **macro_argv;
	pid_t target;		/* $target, 0 if none */

	dt_typetab_t *types;
	dt_provider_t *providers;
	dt_provider_t *cur_provider;	/* whose operation is running: named
					   if it crashes (dt_plugcall.c) */
	const char **plugin_dirs;	/* NULL-terminated, in search order */

	/* probe table: probes[1 .. nprobes] */
	dtrace_probe_t **probes;
	uint32_t nprobes, probes_cap;
	dt_htab_t probe_names;	/* of dtrace_probe_t *, by their names */
	dt_htab_t pid_probes;	/* the probes of one process each
				   (dt_probe_of_process()) */
	/* Ids for the probes made while tracing: below late_limit (0: no
	 * limit yet), then the ids of removed probes again, oldest first,
	 * when reuse_ids (dt_probe_late_room()). */
	uint32_t late_limit;
	bool reuse_ids;
	uint32_t *free_ids, nfree_ids, free_ids_cap, free_ids_head;
	uint32_t *reused_ids, nreused, reused_cap;	/* given again, which
				   dt_prog_provide_again() looks for beside
				   the ids past the last */
	int providing_again;	/* dt_prog_provide_again() calls running */
	/* probes the programs made at run time (dt_instance.c): inst[i] has
	 * the id inst_base + i */
	dtrace_probe_t **inst;
	uint32_t ninst, inst_cap, inst_base;
	uint32_t inst_max;	/* room for them: procprobes, when templates */
	bool inst_full;		/* the programs made all they may */

	/* the compiled program */
	struct dt_compiled_clause **clauses;
	int nclauses;
	struct dt_aggdesc **aggs;	/* the aggregation table, by id */
	int naggs;			/* (dt_progdesc.c) */
	dtrace_probedesc_t **clause_descs;	/* each clause's descriptions, */
	int *clause_ndescs;			/* to match late probes */
	bool tracing;		/* probes created now are enabled at once */
	int ncompiles;
	dtrace_probe_t *error_probe;	/* dtrace:::ERROR when enabled */
	dt_provider_t *engine_provider;	/* owns dtrace:::ERROR, and BEGIN
					   and END until dtrace.so claims
					   them */
	struct dt_plugin_opt *plugin_opts; /* -x PLUGIN.opt given before the
					      plugins were loaded */

	struct dt_cg_state *cg;
	struct dt_bpf_state *bpf;
	struct dt_progset *progs;
	struct dt_consumer *cons;
	struct dt_proc_state *proc;

	/* last error message, for the command to print */
	char errmsg[1024];
	int errtag;
	int desc_errtag;	/* host->report->error_tag()'s, D_UNKNOWN: none */

	struct dt_exec *exec;		/* dt_exec.h: the exec watch, or NULL */
	struct dt_metrics *metrics;	/* dt_metrics.h: -x metrics, or NULL */
	struct dt_sigwatch *sigwatch;	/* dt_sigwatch.h: kernel-sent SIGILLs
					   to traced processes, or NULL */
	struct dt_dwarf *dwarf;		/* dt_dwarf.c: DWARF of traced files */
	struct dt_elf_cache *elf;	/* dt_hostsvc.c: the plugins' ELF files */
	struct btf *kbtf;		/* dt_btf.c: the kernel's BTF, read at
					   its first use (dt_btf_kernel()) */
	struct dt_btf_names *kbtf_names; /* dt_btf.c: its named types, sorted */
	struct dt_ksyms *ksyms;		/* dt_ksyms.c: the kernel's text symbols,
					   read at the first kernel address
					   printed */
	struct dt_lib_state *lib;	/* dt_lib.c: the D libraries */
	int uret_depth_fd;		/* dt_uretdepth.c: its program, or -1, */
	bool uret_depth_tried;		/*   once tried */
	bool uret_depth_warned;		/* it said what it cannot count */
	/* Programs whose declarations serve the programs compiled after them
	 * (D libraries, programs with inlines or translators), in order;
	 * dt_lib.c keeps their parse trees for the session. */
	const dt_program_ast_t **decl_progs;
	int ndecl_progs;
};

extern const dtrace_host_t dt_host;

/* dt_subr.c */
void *dt_zalloc(size_t size);		/* exits on out of memory */
void *dt_realloc(void *p, size_t size);
char *dt_strdup(const char *s);
_Noreturn void dt_nomem(void);		/* "out of memory", exit(1) */
/* The table takes its memory from dt_zalloc(): no insertion fails. */
void dt_htab_nofail(dt_htab_t *t);
/* DT_ARRAY_ROOM() (dt_array.h) that does not fail: dtrace ends when
 * memory does. */
#define dt_array_room(arr, n, cap) \
	((void)(DT_ARRAY_ROOM(arr, n, cap) == 0 || (dt_nomem(), 0)))
#define dt_array_need(arr, cap, need) \
	((void)(DT_ARRAY_NEED(arr, cap, need) == 0 || (dt_nomem(), 0)))
/* The whole text of stream f, NUL-terminated, its length in *lenp; NULL
 * with errno set when it cannot be read, EFBIG when it is longer than
 * max bytes. */
char *dt_read_stream(FILE *f, size_t max, size_t *lenp);
void dt_warn(dtrace_hdl_t *dtp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* With -x debug, one line on stderr, "dtrace DEBUG: " + message: what the
 * engine did that a user (or a test pacing itself) may want to see. */
void dt_debug(dtrace_hdl_t *dtp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record an error for the command to print ("dtrace: " + message). */
void dt_set_error(dtrace_hdl_t *dtp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int dt_glob_match(const char *pattern, const char *s);
bool dt_glob_has_meta(const char *pattern);
uint64_t dt_now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t dt_wall_ns(void);		/* CLOCK_REALTIME */
/* A time option's value in ns (-x switchrate=10hz, setopt()): a bare
 * number is in ns, as in DTrace; ns, us, ms, s, m, h, d (and their long
 * names) scale it, "hz" makes it a frequency.  -1 when it is none. */
int dt_parse_time(const char *s, uint64_t *ns);
/* A size option's value (-x bufsize=4m, setopt()): a number, with k, m,
 * g or t to scale it.  -1 when it is none. */
int dt_parse_size(const char *s, uint64_t *v);
/* -x printsize, as DTrace takes it: 0 or more than 64k is the default,
 * any other value rounded up to 8 bytes. */
#define DT_PRINTSIZE_DEFAULT	8192
#define DT_PRINTSIZE_MAX	65536
uint64_t dt_printsize_value(uint64_t v);

/* dt_probe.c */
dtrace_probe_t *dt_probe_insert(dtrace_hdl_t *dtp, dt_provider_t *pv,
				const char *prv, const char *mod,
				const char *fun, const char *prb, void *priv);
dtrace_probe_t *dt_probe_lookup(dtrace_hdl_t *dtp, const char *prv,
				const char *mod, const char *fun,
				const char *prb);
/* Ask every provider to create the probes that may match pdp, then call
 * fn for each probe that does.  Returns the number of matches or -1. */
int dt_probe_iter(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
		  int (*fn)(dtrace_hdl_t *, dtrace_probe_t *, void *),
		  void *arg);
bool dt_probe_matches(dtrace_hdl_t *dtp, const dtrace_probe_t *p,
		      const dtrace_probedesc_t *d);
/* Whether pv need not be asked to provide for d: d names exactly a
 * provider another plugin or the engine declares by that exact name (a
 * bare BEGIN, END or ERROR names "dtrace"). */
bool dt_probe_desc_elsewhere(dtrace_hdl_t *dtp, const dt_provider_t *pv,
			     const dtrace_probedesc_t *d);
/* The descriptions of the session's clauses that pv is asked to provide
 * for (not those elsewhere), each once, in clause order: what
 * provide_again() asks again, and what host->probes->description() shows a
 * plugin.  Kept in pv, made again after clauses were added.  Their number;
 * *descs is pv's. */
size_t dt_provider_descs(dtrace_hdl_t *dtp, dt_provider_t *pv,
			 const dtrace_probedesc_t *const **descs);
/* Fill prp->args/argtypes from its provider (once). */
int dt_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp);
/* Room for n arguments in prp (args, argtypes, nativetypes zeroed), and
 * nargs set to n (-1: not asked for yet, no room); what was there is
 * freed. */
void dt_probe_args_alloc(dtrace_probe_t *prp, int n);
/* dt_probe_args(), then the C types of prp's arguments (once): a pid
 * probe's from its function's DWARF, a kernel probe's from the kernel's
 * BTF.  Asked only where args[] is used, or the types are listed: a
 * library's DWARF costs more than matching all its functions. */
void dt_probe_ctypes(dtrace_hdl_t *dtp, dtrace_probe_t *prp);
/* The probe of PRID id, those made at run time included; NULL if none. */
dtrace_probe_t *dt_probe_by_id(dtrace_hdl_t *dtp, uint32_t id);
/* Put p, made outside dt_probe_insert() with its id set, in the index
 * by name. */
void dt_probe_hash_add(dtrace_hdl_t *dtp, dtrace_probe_t *p);
/* p stands for process pid alone (host->probes->of_process()): it goes
 * with the process, in dt_probe_remove_pid(). */
void dt_probe_of_process(dtrace_hdl_t *dtp, dtrace_probe_t *p, pid_t pid);
/* Remove the probes of process pid, which has exited and whose records
 * were read: their names and private data are gone, dt_probe_by_id()
 * answers NULL for their ids (until given again, dt_probe_late_room()).
 * How many. */
uint32_t dt_probe_remove_pid(dtrace_hdl_t *dtp, pid_t pid);
/*
 * The ids probes made while tracing may have: below limit, which the
 * programs' map of probe names has room for (and where the ids of the
 * probes the programs make begin, dt_instance.c).  Past it, with reuse,
 * the ids of probes removed (those of processes gone, whose records were
 * read) are given again, oldest first; without (an aggregation keyed by
 * the probe's names keeps ids, a speculation holds records), or none
 * being free, new ids go on past the programs' own, and such a probe's
 * names read as "" in the programs.
 */
void dt_probe_late_room(dtrace_hdl_t *dtp, uint32_t limit, bool reuse);
void dt_probe_fini(dtrace_hdl_t *dtp);

/* dt_provider.c: find, load and initialise the provider plugins. */
int dt_provider_load_all(dtrace_hdl_t *dtp);
/* -x PLUGIN.name[=value]: queued until the plugins are loaded, then
 * handed to the plugin; 0, or -1 after dt_set_error(). */
int dt_provider_option(dtrace_hdl_t *dtp, const char *name, const char *val);
/* dtrace -x help: the plugins' options, one a line. */
void dt_provider_options_list(dtrace_hdl_t *dtp, FILE *fp);
void dt_provider_fini(dtrace_hdl_t *dtp);

/* Values of dt_pcb_t.default_ctx: the field a one-field description names. */
enum {
	DT_CTX_NAME,		/* -n, -i, scripts */
	DT_CTX_PROVIDER,	/* -P */
	DT_CTX_MODULE,		/* -m */
	DT_CTX_FUNCTION,	/* -f */
};

/*
 * The compile control block.  All memory of a compile comes from its arena
 * and goes with dt_pcb_free(); dt_pcb_error() longjmps to the catch point set
 * by dt_compile(), which frees and returns the error.
 */
typedef struct dt_pcb {
	dtrace_hdl_t *dtp;
	const char *srcname;	/* "x.d" for -s, NULL for -n */
	const char *src;	/* the whole text */
	size_t srclen;
	bool from_cmdline;	/* -n/-P/-m/-f/-i: errors say "invalid probe
				   specifier" */
	int default_ctx;	/* for -P/-m/-f/-i: which field a bare name is */
	bool library;		/* a D library (dt_lib.c): errors name it */
	/* In a library: NULL when the library name (#pragma D depends_on
	 * library) was loaded, else its path (dt_lib.c sets it). */
	const char *(*lib_missing)(struct dt_pcb *pcb, const char *name);
	jmp_buf jb;
	struct dt_arena *arena;
	dt_program_ast_t *prog;
	void *lex;		/* lexer state (dt_lex.c) */
} dt_pcb_t;

void *dt_pcb_alloc(dt_pcb_t *pcb, size_t size);	/* zeroed */
char *dt_pcb_strdup(dt_pcb_t *pcb, const char *s);
char *dt_pcb_strndup(dt_pcb_t *pcb, const char *s, size_t n);
/* Start a compile of src[0 .. len) (copied into the arena); srcname names a
 * script for messages, from_cmdline marks -n/-P/-m/-f/-i specifiers.  The
 * caller sets pcb->default_ctx and the catch point pcb->jb. */
void dt_pcb_init(dt_pcb_t *pcb, dtrace_hdl_t *dtp, const char *src,
		 size_t len, const char *srcname, bool from_cmdline);
/* Free everything the compile allocated (after success or error). */
void dt_pcb_fini(dt_pcb_t *pcb);
/* Fail pcb's compile with the error dtp->errmsg holds, which another
 * compile (a D library's) made. */
_Noreturn void dt_pcb_error_wrap(dt_pcb_t *pcb);
_Noreturn void dt_pcb_error(dt_pcb_t *pcb, dt_errtag_t tag, int line,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The bytes a D string takes with its NUL: -x strsize counts the
 * characters, as DTrace's does (a handle without options: the default). */
static inline uint32_t dt_str_bytes(const dtrace_hdl_t *dtp)
{
	return (dtp->opt.strsize ? (uint32_t)dtp->opt.strsize : 256) + 1;
}

/* dt_parse.c: parse pcb->src into pcb->prog (errors through dt_pcb_error). */
void dt_parse(dt_pcb_t *pcb);

/* dt_cpp.c: run src through the C preprocessor (-C).  On success *out is a
 * malloc'ed NUL-terminated text of *outlen bytes; on failure -1 with the
 * reason (naming cpp) in dtp->errmsg. */
int dt_cpp_run(dtrace_hdl_t *dtp, const char *src, size_t len, char **out,
	       size_t *outlen);
/* The largest program text read (a script, or the preprocessor's output):
 * a bound on what reading /dev/zero or a runaway pipe costs. */
#define DT_SCRIPT_MAX	(16u << 20)

#endif /* DT_IMPL_H */
