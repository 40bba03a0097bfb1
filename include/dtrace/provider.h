/* SPDX-License-Identifier: MIT */
/*
 * dtrace/provider.h: the whole contract between the dtrace engine and a
 * provider plugin.
 *
 * A plugin is a shared object that exports one symbol,
 *
 *	const dtrace_provider_ops_t *dtrace_provider_init(const dtrace_host_t *host);
 *
 * The engine dlopen()s every plugin it finds, checks the table's version and
 * keeps the host table for the plugin to use.  Nothing else in the plugin is
 * looked up; the engine links no provider statically.
 *
 * Terms.
 *   probe		what a user names: provider:module:function:name.  The
 *			engine owns it and gives it an id (PRID) for the session.
 *   underlying probe	where the kernel traps: a uprobe on (file, offset),
 *			entry or return.  One underlying probe serves every
 *			probe placed at that site, in any process.
 *   overlay		"probe P applies when the underlying probe U fires in
 *			process PID" (PID 0: in every process).
 *   kind		a provider-chosen small number naming a family of
 *			underlying probes that share one trampoline (for pid:
 *			entry, return, offset).  The engine builds one BPF
 *			program per (provider, kind) and attaches it to every
 *			underlying probe of that kind at once; a site that
 *			several providers place gets one program that runs,
 *			for each probe, its own provider's trampoline.
 *   trampoline		the BPF that runs first when an underlying probe fires:
 *			it fills the machine state (arguments) and may pick the
 *			overlay key.  The engine then runs the clauses of every
 *			overlying probe that applies.
 *
 *   provider handle	a dtrace_provider_t: this plugin in one session.  The
 *			engine passes it to every operation; the plugin passes
 *			it back to every host function, which is how the
 *			engine knows who asks.
 *
 * Versioning.  The plugin's table of operations and the host's tables
 * start with their size; the operations and the host table also with a
 * major and a minor version.  The minor version grows when fields are
 * added at the end of a table; the major version changes when a table
 * changes otherwise.  The engine loads a plugin built for its major
 * version and any minor version: the operations past the plugin's size
 * read as NULL.  A plugin that uses a host function added after the minor
 * version it requires checks for it with DTRACE_HOST_HAS().  A plugin
 * built for another major version (3.x: one flat host table and the
 * trampoline's context asked of the host) is refused with a message
 * naming the file and both versions.  DTRACE_PROVIDER_OPS_INIT fills the
 * operations' first fields, and DTRACE_PROVIDER() writes the one symbol a
 * plugin exports.
 *
 * Names.  A plugin creates probes only under the provider names it
 * declares (ops->names), never under a name another plugin serves.  The
 * plugin that declares the provider name "dtrace" serves dtrace:::BEGIN
 * and END (ids 1 and 2, which the engine keeps for them), whatever its
 * file is called; the first plugin loaded that declares it does (the
 * directories of -x plugindir come first), and another that declares it
 * too is refused.  dtrace:::ERROR (id 3) is the engine's.  Its maps are
 * its own: map_create() names are private to the plugin.
 *
 * Errors.  Functions return 0 or a negative errno value.  A plugin reports a
 * message for the user through host->report->error(); the engine prints it
 * prefixed with "dtrace: ".  Whatever the engine refuses a plugin (loading, a
 * name, an option), it says so itself, naming the plugin and the reason.
 */
#ifndef DTRACE_PROVIDER_H
#define DTRACE_PROVIDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <dtrace/bpf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DTRACE_PROVIDER_MAJOR	4
#define DTRACE_PROVIDER_MINOR	4

/* The first fields of every table a plugin fills, as designated
 * initializers (C, or C++20); dtrace_provider_ops_start() below serves
 * C++ before C++20. */
#define DTRACE_PROVIDER_OPS_INIT \
	.major = DTRACE_PROVIDER_MAJOR, .minor = DTRACE_PROVIDER_MINOR, \
	.size = sizeof(dtrace_provider_ops_t)

typedef struct dtrace_hdl	dtrace_hdl_t;	/* the engine's session */
typedef struct dtrace_provider	dtrace_provider_t; /* a plugin in a session */
typedef struct dtrace_probe	dtrace_probe_t;	/* an overlying probe */
typedef struct dtrace_map	dtrace_map_t;	/* a BPF map of the session */
typedef struct dtrace_emitter	dtrace_emitter_t; /* a BPF program being built */

/* A probe description as the user wrote it; each field may hold globs
 * (*, ?, [...]) and may be empty, which matches everything. */
typedef struct dtrace_probedesc {
	const char *prv;
	const char *mod;
	const char *fun;
	const char *prb;
} dtrace_probedesc_t;

/* Stability attributes, as dtrace -lv shows them. */
typedef enum dtrace_stability {
	DTRACE_STABILITY_INTERNAL, DTRACE_STABILITY_PRIVATE,
	DTRACE_STABILITY_OBSOLETE, DTRACE_STABILITY_EXTERNAL,
	DTRACE_STABILITY_UNSTABLE, DTRACE_STABILITY_EVOLVING,
	DTRACE_STABILITY_STABLE, DTRACE_STABILITY_STANDARD
} dtrace_stability_t;

/* One argument of a probe.  native is the type of argN as the probe site
 * passes it, xlate the type of args[N] as the user sees it (NULL: same as
 * native), mapping the index of the native argument args[N] is taken from.
 * Type names are D type names ("int", "char *", "uint64_t"). */
typedef struct dtrace_argdesc {
	const char *native;
	const char *xlate;
	int mapping;
} dtrace_argdesc_t;

/* Arguments of a probe at most: what <dtrace/usdt.h>'s site macros pass
 * (<sys/sdt.h> passes 12).  12 before interface 4.4: a plugin built
 * against 4.4 fills up to 16 argv slots and probe_args() entries, so it
 * requires an engine of 4.4 (DTRACE_PROVIDER()); one built for 4.0 .. 4.3
 * fills at most 12, which a 4.4 engine takes as they are. */
#define DTRACE_ARGS_MAX	16
#define DTRACE_ARGV_LOW	10	/* of them in argv[], the others in
				   argv_hi[] */

/*
 * The machine state: one per CPU, in a map value, valid while an underlying
 * probe's program runs.  The trampoline fills argv[] and may rewrite key.
 * Plugins address fields with offsetof(dtrace_mstate_t, field) from the
 * register that holds the state (DTRACE_REG_MSTATE).  The engine's private
 * state follows this structure; plugins must not touch it.
 */
typedef struct dtrace_mstate {
	uint64_t argv[DTRACE_ARGV_LOW];	/* arg0 .. arg9 */
	struct {
		uint32_t pid;		/* process the overlay applies to */
		uint32_t cookie;	/* underlying probe (attach cookie) */
	} key;				/* overlay key, prefilled by the engine */
	uint64_t regs_ip;		/* address of the probe site */
	uint32_t prid;			/* firing probe, set by the engine */
	uint32_t clause;		/* running clause, set by the engine */
	uint32_t instance;		/* see DTRACE_PROBE_TEMPLATE: 0 (the
					   engine's prologue clears it) or
					   key.pid, set by the trampoline */
	int32_t errnum;			/* D's errno: 0, unless a trampoline at
					   a system call's return sets it */
	uint64_t argv_hi[DTRACE_ARGS_MAX - DTRACE_ARGV_LOW];
					/* the arguments after arg9
					   (args[10] .. args[15]) */
} dtrace_mstate_t;

/* Offset in the mstate of argument i (0 .. DTRACE_ARGS_MAX - 1). */
#define DTRACE_MSTATE_ARG(i) \
	((int)((i) < DTRACE_ARGV_LOW ? \
	       offsetof(dtrace_mstate_t, argv) + 8 * (size_t)(i) : \
	       offsetof(dtrace_mstate_t, argv_hi) + \
	       8 * ((size_t)(i) - DTRACE_ARGV_LOW)))

/* Register conventions inside a trampoline: it receives the program context
 * (see "Underlying events" below for what it points to) in DTRACE_REG_CTX
 * and the machine state in DTRACE_REG_MSTATE, must leave both intact, and
 * may use R0-R5, R8, R9. */
#define DTRACE_REG_CTX		DT_R6
#define DTRACE_REG_MSTATE	DT_R7

/*
 * Underlying events and their context ABI.  The program of an underlying
 * probe receives a context whose layout depends on the event's type; a
 * trampoline reads it only through the macros below, never by raw offsets.
 *
 *   type			context		how it is placed
 *   UPROBE, URETPROBE	pt_regs		host->sites->uprobe() (flag RETURN)
 *   PERF		perf sample	host->sites->perf(); its first member
 *					is the interrupted pt_regs
 *   TRACEPOINT		the event's	host->sites->event(); fields at the
 *			record		offsets host->sites->tp_field()
 *					gives (the tracefs format file); no
 *					registers
 *   RAW_TRACEPOINT	u64 args[]	host->sites->event(), name the
 *					tracepoint ("sys_enter"): the
 *					arguments of its trace function
 *   FENTRY, FEXIT	u64 args[]	host->sites->event(), name a kernel
 *					function in the kernel's BTF: its
 *					arguments, then (FEXIT) its return
 *					value
 *   KPROBE, KRETPROBE	pt_regs		host->sites->event(), name a kernel
 *					function: the kernel's registers at
 *					its entry or return
 *
 * For the pt_regs contexts (DTRACE_EVENT_HAS_REGS), DTRACE_CTX_IP, _SP,
 * _ARG(n) (the n-th integer argument at a function's entry, n < 6), _RET
 * (the return value at a return) and _REG(name) are the byte offsets to
 * load from DTRACE_REG_CTX.  They describe x86-64, the one architecture
 * this dtrace runs on; the clauses' uregs[] use the same offsets.  For
 * the u64 args[] contexts, DTRACE_CTX_TARG(n) is the offset of the n-th
 * argument and DTRACE_CTX_TRET(nargs) that of an FEXIT's return value:
 * the kernel lets a program read no further, so a trampoline for such
 * events must know the function's argument count (a kind per count).
 * RAW_TRACEPOINT, FENTRY and FEXIT programs are loaded for one event each
 * (the engine builds the program of a kind once per event); KPROBE and
 * KRETPROBE programs, like uprobes', serve every event of their kind.
 */
typedef enum dtrace_event_type {
	DTRACE_EVENT_UPROBE,
	DTRACE_EVENT_URETPROBE,
	DTRACE_EVENT_PERF,
	DTRACE_EVENT_TRACEPOINT,
	DTRACE_EVENT_RAW_TRACEPOINT,
	DTRACE_EVENT_KPROBE,
	DTRACE_EVENT_KRETPROBE,
	DTRACE_EVENT_FENTRY,
	DTRACE_EVENT_FEXIT,
} dtrace_event_type_t;

#define DTRACE_EVENT_HAS_REGS(t) \
	((t) == DTRACE_EVENT_UPROBE || (t) == DTRACE_EVENT_URETPROBE || \
	 (t) == DTRACE_EVENT_PERF || (t) == DTRACE_EVENT_KPROBE || \
	 (t) == DTRACE_EVENT_KRETPROBE)

/* x86-64 struct pt_regs as a BPF program sees it, in 8-byte words. */
#define DTRACE_PT_R15		0
#define DTRACE_PT_R14		1
#define DTRACE_PT_R13		2
#define DTRACE_PT_R12		3
#define DTRACE_PT_RBP		4
#define DTRACE_PT_RBX		5
#define DTRACE_PT_R11		6
#define DTRACE_PT_R10		7
#define DTRACE_PT_R9		8
#define DTRACE_PT_R8		9
#define DTRACE_PT_RAX		10
#define DTRACE_PT_RCX		11
#define DTRACE_PT_RDX		12
#define DTRACE_PT_RSI		13
#define DTRACE_PT_RDI		14
#define DTRACE_PT_ORIG_RAX	15
#define DTRACE_PT_RIP		16
#define DTRACE_PT_CS		17
#define DTRACE_PT_EFLAGS	18
#define DTRACE_PT_RSP		19
#define DTRACE_PT_SS		20
#define DTRACE_PT_NREGS		21

#define DTRACE_CTX_REG(name)	(8 * DTRACE_PT_##name)
#define DTRACE_CTX_IP		DTRACE_CTX_REG(RIP)
#define DTRACE_CTX_SP		DTRACE_CTX_REG(RSP)
#define DTRACE_CTX_RET		DTRACE_CTX_REG(RAX)
/* The System V calling convention's integer arguments: rdi, rsi, rdx,
 * rcx, r8, r9. */
#define DTRACE_CTX_ARG(n) \
	((n) == 0 ? DTRACE_CTX_REG(RDI) : (n) == 1 ? DTRACE_CTX_REG(RSI) : \
	 (n) == 2 ? DTRACE_CTX_REG(RDX) : (n) == 3 ? DTRACE_CTX_REG(RCX) : \
	 (n) == 4 ? DTRACE_CTX_REG(R8) : DTRACE_CTX_REG(R9))
#define DTRACE_CTX_NARGS	6
/* u64 args[] contexts. */
#define DTRACE_CTX_TARG(n)	(8 * (n))
#define DTRACE_CTX_TRET(nargs)	(8 * (nargs))

/* An underlying event other than a uprobe or a perf sample
 * (host->sites->event). */
typedef struct dtrace_event {
	size_t size;		/* sizeof(dtrace_event_t) */
	dtrace_event_type_t type;
	const char *category;	/* TRACEPOINT: the subsystem ("sched") */
	const char *name;	/* TRACEPOINT: the event ("sched_process_fork");
				   RAW_TRACEPOINT: the tracepoint; KPROBE,
				   KRETPROBE, FENTRY, FEXIT: the function */
	int kind;		/* the provider's trampoline family; not a kind
				   used for another type of event */
	unsigned flags;		/* 0 */
} dtrace_event_t;

/* Flags of an underlying probe. */
#define DTRACE_UPROBE_RETURN	0x1	/* a uretprobe */
#define DTRACE_UPROBE_BEGIN	0x2	/* runs while the session is not yet
					   active and activates it */
#define DTRACE_UPROBE_END	0x4	/* runs while the session stops */
#define DTRACE_UPROBE_SOFT	0x8	/* fires only when the plugin calls
					   host->sites->fire(): the engine may
					   run its program directly rather
					   than attach a uprobe */

/* Attributes a provider gives its probes (host->probes->attr), which the
 * code generator uses instead of recognising provider or probe names. */
#define DTRACE_PROBE_AT_ENTRY	0x1	/* fires on a function's first
					   instruction, before it pushed its
					   frame (ustack, ucaller) */
/* The probe stands for every process that has no probe of
 * its own at the site yet, and a process's own is named as DTrace names
 * USDT probes: the provider name followed by the pid ("myapp" for every
 * process, "myapp1234" for process 1234), the other names the same.  When
 * the trampoline sets mstate.instance (to key.pid) on a firing that finds
 * no overlay of that process, the engine runs the firing under the
 * process's own probe and overlays it on (pid, cookie) for the next ones,
 * creating it in BPF, without the plugin, when the plugin has not: a
 * process the plugin has not heard of yet is then still named and traced
 * right.  Such a probe, created at run time, has no private data until the
 * plugin inserts it by its names (insert() then hands the plugin's
 * priv to it and returns it; lookup() finds it with NULL priv). */
#define DTRACE_PROBE_TEMPLATE	0x2
/* Fires when a function returns (arg1: the value it
 * returns). */
#define DTRACE_PROBE_AT_RETURN	0x4
#define DTRACE_PROBE_KERNEL	0x8	/* its pointer arguments are kernel
					   addresses: a clause that only such
					   probes enable dereferences kernel
					   memory */
#define DTRACE_PROBE_IN_KERNEL	0x10	/* fires in the kernel on behalf of
					   the current thread (a system call,
					   a kernel function): uregs[],
					   ustack() and ucaller read the
					   registers the thread saved when it
					   entered the kernel, not the event's
					   context */
#define DTRACE_PROBE_SYSCALL	0x20	/* a system call's entry or return:
					   -F draws its arrows as DTrace
					   draws a system call's */

/* An option a plugin accepts: dtrace -x PLUGIN.name=value, or #pragma D
 * option PLUGIN.name=value, where PLUGIN is the plugin's ops->name. */
typedef struct dtrace_option {
	const char *name;	/* NULL ends the table */
	const char *help;	/* one line, for dtrace -x help */
} dtrace_option_t;

/* An underlying probe the plugin asks the engine to place. */
typedef struct dtrace_uprobe {
	const char *path;	/* the file (executable or library) */
	uint64_t offset;	/* file offset of the instruction */
	uint64_t ref_ctr_offset; /* file offset of a semaphore, or 0 */
	pid_t pid;		/* fire only in this process, or 0 for all */
	int kind;		/* the provider's trampoline family */
	unsigned flags;		/* DTRACE_UPROBE_* */
} dtrace_uprobe_t;

/* An underlying probe on a perf event rather than an instruction: the
 * profile provider's timers.  The kind's program runs on each sample, with
 * the interrupted registers as its context. */
typedef struct dtrace_perfprobe {
	uint32_t type;		/* PERF_TYPE_SOFTWARE, ... */
	uint64_t config;	/* PERF_COUNT_SW_CPU_CLOCK, ... */
	uint64_t period;	/* sample period (ns for the clocks) */
	int cpu;		/* one CPU, or -1 for each online CPU */
	int kind;		/* must not be a kind also used for uprobes */
	unsigned flags;		/* 0 */
} dtrace_perfprobe_t;

/*
 * ELF files and the modules of processes, as the engine reads them for
 * itself (symbols for ustack(), the files to place uprobes on).  A file
 * stays valid for the whole session; a process's list of modules until
 * host->proc->release().
 */
typedef struct dtrace_elf	dtrace_elf_t;	/* an ELF file, opened once */
typedef struct dtrace_proc	dtrace_proc_t;	/* a process's modules, read
						   at one moment */

/* A function symbol.  Several may share an address (aliases); a versioned
 * name (malloc@@GLIBC_2.2.5) is given bare. */
typedef struct dtrace_sym {
	const char *name;	/* owned by the file */
	uint64_t addr;		/* link-time virtual address (st_value) */
	uint64_t size;		/* st_size, 0 when unknown */
	uint8_t bind;		/* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	uint8_t type;		/* STT_FUNC or STT_GNU_IFUNC */
} dtrace_sym_t;

/* A <sys/sdt.h> probe site of an ELF file, as
 * host->elf->stapsdt() reads its .note.stapsdt notes. */
typedef struct dtrace_stapsdt {
	const char *provider;	/* owned by the file */
	const char *name;	/* as in the note ("function__entry") */
	const char *args;	/* argument specifications, as written */
	const char *func;	/* the function holding the site, or "" */
	uint64_t pc;		/* link-time address (prelink followed) */
	uint64_t sema;		/* semaphore's link-time address, or 0 */
	uint64_t offset;	/* file offset of the site */
	uint64_t sema_offset;	/* file offset of the semaphore, or 0 */
} dtrace_stapsdt_t;

/* An ELF file mapped in a process. */
typedef struct dtrace_module {
	const char *name;	/* "a.out" for the executable, else the file
				   name ("libc.so.6") */
	const char *path;	/* as /proc/PID/maps shows it */
	const dtrace_elf_t *file;
	const char *file_path;	/* where to open the file from dtrace's
				   mount namespace: the path for uprobes */
	int is_exe;
	uint64_t bias;		/* run-time address - link-time address */
	uint64_t lo, hi;	/* lowest and highest mapped address */
} dtrace_module_t;

/* One line of /proc/PID/maps, as host->proc->maps() reads
 * it: every mapping, in address order.  An anonymous mapping has ino 0 and
 * path "", a pseudo one ino 0 and its name ("[vdso]", "[stack]"), a file
 * its path as the process shows it (spaces kept), with deleted set when the
 * kernel appended " (deleted)" (kept in path: the file was removed or
 * replaced since it was mapped). */
typedef struct dtrace_mapping {
	uint64_t start, end;	/* run-time addresses, end exclusive */
	uint64_t pgoff;		/* file offset of start */
	uint64_t dev;		/* makedev(major, minor) */
	uint64_t ino;
	unsigned prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	int shared;		/* MAP_SHARED ('s') */
	int deleted;
	const char *path;
} dtrace_mapping_t;

/* Whether m maps a file through a path (not anonymous, not a pseudo
 * mapping such as "[vdso]"); deleted files included. */
static inline int dtrace_mapping_is_file(const dtrace_mapping_t *m)
{
	return m->ino != 0 && m->path[0] == '/';
}

/*
 * What the engine offers a plugin: six tables of functions, by kind.
 * Every function may be called only from within one of the plugin's
 * operations, on the session it was given.  Each table starts with its
 * size, so that a function added to a table in a later minor version can
 * be told apart from its end: a plugin that uses one checks
 * host->TABLE->size first (DTRACE_HOST_HAS()).
 */
struct btf;	/* libbpf's, for host->bpf->kernel_btf */

/* Reporting, which every plugin needs: what the user is told goes through
 * these, prefixed "dtrace: " and, for debug(), the plugin's name. */
typedef struct dtrace_host_report {
	size_t size;		/* sizeof(dtrace_host_report_t) of the engine */

	/* Report an error to the user (printf format; no trailing newline). */
	void (*error)(dtrace_provider_t *pv, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

	/* Report a warning: printed, but the operation goes on. */
	void (*warn)(dtrace_provider_t *pv, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

	/* error() with the tag DTrace gives the mistake, by
	 * name ("D_PROC_FUNC": one of DTrace's compile error tags, which
	 * -x errtags prints and err.D_TAG tests match).  A probe
	 * description that provide() fails after it carries that tag
	 * instead of D_PDESC_INVAL; an unknown name is ignored. */
	void (*error_tag)(dtrace_provider_t *pv, const char *tag,
			  const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));

	/* With -x debug, one line on stderr, prefixed
	 * "dtrace DEBUG: " and the plugin's name, for what a user may want
	 * to see of a plugin's choices (where a probe was placed, and why);
	 * nothing without it. */
	void (*debug)(dtrace_provider_t *pv, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
} dtrace_host_report_t;

/* Probes, which every plugin needs: it creates the probes of its provider
 * names, reads their names, and matches descriptions as D does. */
typedef struct dtrace_host_probes {
	size_t size;		/* sizeof(dtrace_host_probes_t) of the engine */

	/* Create a probe of the provider calling this (or return the existing
	 * one with these names).  priv is the plugin's own data for the probe;
	 * the engine hands it back in priv() and to free_priv() of the
	 * ops at teardown.  Returns NULL with errno set on failure: EPERM
	 * when the names are not the plugin's to create (see Names above;
	 * the engine has said why). */
	dtrace_probe_t *(*insert)(dtrace_provider_t *pv, const char *prv,
					const char *mod, const char *fun,
					const char *prb, void *priv);
	dtrace_probe_t *(*lookup)(dtrace_provider_t *pv, const char *prv,
					const char *mod, const char *fun,
					const char *prb);
	void *(*priv)(const dtrace_probe_t *prp);

	/* Give the probe attributes (DTRACE_PROBE_*), before it is
	 * compiled against.  EPERM for a probe of another provider. */
	int (*attr)(dtrace_provider_t *pv, dtrace_probe_t *prp,
			  unsigned attr);

	/* The probe's names, owned by the engine. */
	const char *(*name)(const dtrace_probe_t *prp, int field);
#define DTRACE_FIELD_PRV 0
#define DTRACE_FIELD_MOD 1
#define DTRACE_FIELD_FUN 2
#define DTRACE_FIELD_PRB 3

	/* Glob matching as D does it (*, ?, [...], \); an empty or NULL
	 * pattern matches everything. */
	int (*glob_match)(const char *pattern, const char *s);

	/* While tracing (from poll(), notice_process() or
	 * notice_files()), when what the plugin's probes stand for changed
	 * (a process loaded a library): the engine, which keeps the
	 * program's probe descriptions, calls the plugin's provide() with
	 * each again (those description() shows) and enable() for every
	 * probe this creates that a clause matches.  A probe that cannot be
	 * enabled is reported and the others go on.  A plugin for which
	 * only part of its world changed (one process's files) notes that
	 * part in its own state before the call, and its provide() answers
	 * for that part alone; sites it adds to probes enabled already are
	 * its own to place.  0, or a negative errno after the error is set
	 * (tracing then stops). */
	int (*provide_again)(dtrace_provider_t *pv);

	/* The probe fires at the entry
	 * (DTRACE_PROBE_AT_ENTRY) or return (DTRACE_PROBE_AT_RETURN) of the
	 * function probefunc of file f: its arguments take their C types
	 * from f's debugging information, the function's parameters at its
	 * entry, its return value as args[1] at its return.  EPERM for a
	 * probe of another provider. */
	int (*at_function)(dtrace_provider_t *pv, dtrace_probe_t *prp,
			      const dtrace_elf_t *f);

	/* (4.1) The i-th of the program's probe descriptions the engine
	 * asks this plugin's provide() (not those that name exactly
	 * another provider), each once, in clause order; NULL past the
	 * last.  Whole from start() on.  A plugin that matches what
	 * appears while tracing reads them here rather than keeping
	 * copies: the engine keeps them for the session. */
	const dtrace_probedesc_t *(*description)(dtrace_provider_t *pv,
						 size_t i);

	/* (4.3) The probe stands for process pid alone (a provider named
	 * after it, "myapp1234"): once the process has exited and the
	 * records it wrote were read, the engine removes the probe (its
	 * overlays, its names, and its private data, handed to free_priv());
	 * its id may be given to a probe made later.  A plugin keeps no pointer to
	 * it, or its private data, past the provide() or poll() that made
	 * it.  A session that traces every process of a busy machine then
	 * keeps the probes of the processes alive, not of every one it saw.
	 * EPERM for a probe of another provider. */
	int (*of_process)(dtrace_provider_t *pv, dtrace_probe_t *prp,
			  pid_t pid);
} dtrace_host_probes_t;

/* Where the kernel fires: the underlying probes a plugin places and the
 * overlays that make its probes fire on them, for each type of event
 * (uprobe(), perf() for sampling providers, event() for tracepoints and
 * kernel events), and the watch of processes to come that providers of
 * them need (watch_exec(), gate_exec()). */
typedef struct dtrace_host_sites {
	size_t size;		/* sizeof(dtrace_host_sites_t) of the engine */

	/* Place an underlying probe, or make one fire in up->pid too: there
	 * is one per (flags, file, offset), whatever the providers and
	 * processes, and the overlays choose the probe of the firing process
	 * (each probe's arguments read by the trampoline of the kind its
	 * provider last placed the site with before overlaying it).
	 * Returns its cookie (> 0) or a negative errno. */
	int64_t (*uprobe)(dtrace_provider_t *pv, const dtrace_uprobe_t *up);

	/* Make prp fire when the underlying probe cookie fires in process pid
	 * (0: any process).  Used from enable(). */
	int (*overlay)(dtrace_provider_t *pv, int64_t cookie, pid_t pid,
		       dtrace_probe_t *prp);

	/* Place an underlying probe on a perf event (deduplicated like
	 * uprobe()).  Returns its cookie (> 0) or a negative errno. */
	int64_t (*perf)(dtrace_provider_t *pv, const dtrace_perfprobe_t *pp);

	/* Ask to be told of processes while tracing (dtrace/gate/dt_exec.c).
	 * From then on the engine calls the plugin's notice_process() for
	 * every exec on the machine (DTRACE_NOTICE_EXEC) and every change
	 * of a process's set of loaded libraries made by the dynamic loader
	 * (DTRACE_NOTICE_MAPS: dlopen, dlclose, and the libraries loaded at
	 * start-up).  Events are delivered as soon as the trace loop wakes,
	 * which it does when one arrives, not on a poll period.  Idempotent;
	 * callable from enable() and start().  0 or a negative errno after
	 * error(). */
	int (*watch_exec)(dtrace_provider_t *pv);

	/* Run the program of a DTRACE_UPROBE_SOFT underlying probe now, in
	 * the calling thread, as if the probe had fired there.  Returns 0,
	 * or -ENOTSUP when the engine attached a real uprobe instead: then
	 * execute the probed instruction to fire it. */
	int (*fire)(dtrace_provider_t *pv, int64_t cookie);

	/* Besides watch_exec(), hold each exec on the
	 * machine until the plugin's notice_files() has seen the files the
	 * new program maps at start and placed its uprobes on them, so that
	 * the program's first instruction is covered (dtrace/gate/dt_gate.c).
	 * Only execs that map a file with one of the ELF sections the
	 * plugin names in ops->gate_sections, not shown before, are held;
	 * each file is shown once, and no exec is held longer than a
	 * bounded time.  When the kernel does not allow it (or -x
	 * execgate=off), a warning says so and the exec watch alone remains.
	 * 0 or a negative errno after error(). */
	int (*gate_exec)(dtrace_provider_t *pv);

	/* Place an underlying probe on an event of another type than
	 * uprobe() and perf() place (DTRACE_EVENT_TRACEPOINT and the kernel
	 * events: on every CPU, every process).  Returns its cookie (> 0), or
	 * a negative errno after saying why (an unknown tracepoint; a type
	 * this dtrace or kernel does not offer). */
	int64_t (*event)(dtrace_provider_t *pv, const dtrace_event_t *ev);

	/* Where the field of a tracepoint's record is: its
	 * byte offset in the context and its size, from the tracefs format
	 * file.  0, or a negative errno after saying why.  A string or
	 * array of variable length ("__data_loc char[] filename") is found
	 * by its name too: its 4 bytes hold where its data lies in the
	 * record, the offset in the low 16 bits and the length (a string's
	 * with its NUL) in the high 16; a trampoline reads the bytes at
	 * DTRACE_REG_CTX plus that offset (bpf_probe_read_kernel_str() into
	 * its own buffer, for a string). */
	int (*tp_field)(dtrace_provider_t *pv, const char *category,
			const char *name, const char *field,
			uint32_t *offset, uint32_t *size);

	/* What the kernel makes of a uprobe placed on a
	 * 5-byte nop (0f 1f 44 00 00), asked of the kernel the first time:
	 * DTRACE_NOP5_TRAP (a trap like any other instruction's),
	 * DTRACE_NOP5_OPTIMIZED (a call, about four times cheaper), or
	 * DTRACE_NOP5_FORK_UNSAFE (such a call, but a child that the
	 * process forks while traced crashes on it: a provider must not
	 * place probes on 5-byte nops then). */
	int (*uprobe_nop5)(dtrace_provider_t *pv);
} dtrace_host_sites_t;

/* BPF, which every trampoline needs: the session's maps and the emission of
 * instructions.  Labels are small integers valid in one emitter; a jump
 * to a label is patched when the program is finished. */
typedef struct dtrace_host_bpf {
	size_t size;		/* sizeof(dtrace_host_bpf_t) of the engine */

	/* Maps.  map_create returns a map of the session (created on first
	 * use, shared by name among the plugin's own calls: the name is
	 * private to the plugin); map_pinned opens a map pinned in bpffs.
	 * Both return NULL and report the error on failure. */
	dtrace_map_t *(*map_create)(dtrace_provider_t *pv, const char *name,
				    enum bpf_map_type type, uint32_t ksize,
				    uint32_t vsize, uint32_t nentries);
	dtrace_map_t *(*map_pinned)(dtrace_provider_t *pv, const char *path);
	int (*map_fd)(const dtrace_map_t *map);

	/* BPF emission, for trampolines.  Labels are small integers valid in
	 * one emitter; a jump to a label is patched when the program is
	 * finished.  jump() with op BPF_JA is unconditional; otherwise op is
	 * a BPF_JMP comparison (BPF_JEQ, ...) of reg against imm. */
	void (*emit)(dtrace_emitter_t *em, struct bpf_insn insn);
	int (*label_new)(dtrace_emitter_t *em);
	void (*label_place)(dtrace_emitter_t *em, int label);
	void (*jump)(dtrace_emitter_t *em, int op, int reg, int32_t imm,
		     int label);

	/* reg = the map (BPF_PSEUDO_MAP_FD load, relocated at load time). */
	void (*load_map)(dtrace_emitter_t *em, int reg, dtrace_map_t *map);

	/* The kernel's BTF (libbpf's struct btf of vmlinux),
	 * read once per session and shared with the engine, which owns it:
	 * never freed or changed by a plugin (a module's split BTF may take
	 * it as its base).  NULL when the kernel has none. */
	struct btf *(*kernel_btf)(dtrace_provider_t *pv);

	/* BPF emission: what is emitted after cold(em, 1)
	 * and until cold(em, 0) goes at the end of the program, after its
	 * other functions: BPF functions that rarely run, each starting at a
	 * label and called with call(), kept off the pages a firing runs
	 * through (and from between the program's other functions, which
	 * the kernel lays out in order).  A function has registers of its
	 * own (R1 to R5 as the call passed them, R0 its result, R6 to R9
	 * its own) and cannot jump out of itself.  A trampoline ends with
	 * cold(em, 0) if it called cold(em, 1). */
	void (*cold)(dtrace_emitter_t *em, int on);

	/* BPF emission: a BPF-to-BPF call of the function
	 * that starts at label (cold code). */
	void (*call)(dtrace_emitter_t *em, int label);

	/* (4.2) The byte offset of member in the kernel's struct sou
	 * ("task_struct", "exit_code"), from its BTF, looking into anonymous
	 * members; -1 when the kernel has no BTF, or the struct no such
	 * member. */
	int32_t (*kernel_member_offset)(dtrace_provider_t *pv, const char *sou,
					const char *member);
} dtrace_host_bpf_t;

/* ELF files, as the engine reads them for itself (symbols for ustack(),
 * the files to place uprobes on): the services every provider of
 * user-space code needs (pid and usdt here, and any other that places
 * uprobes on files it finds).  A file stays valid for the session, or
 * until the plugin releases it. */
typedef struct dtrace_host_elf {
	size_t size;		/* sizeof(dtrace_host_elf_t) of the engine */

	/* The function symbols of f (loaded once, from separate debug
	 * information when f is stripped), sorted by address; at one
	 * address the preferred name first.  0 or a negative errno with
	 * msg filled. */
	int (*symbols)(dtrace_provider_t *pv, const dtrace_elf_t *f,
			   const dtrace_sym_t **syms, size_t *nsyms,
			   char *msg, size_t msglen);

	/* Every symbol of f named name, from *first on; their count (0:
	 * none).  After symbols(). */
	size_t (*sym_by_name)(const dtrace_elf_t *f, const char *name,
				  const dtrace_sym_t *const **first);

	/* Link-time address <-> file offset through the PT_LOAD headers:
	 * 0, or -ENOENT when no segment holds it in the file. */
	int (*vaddr_to_offset)(const dtrace_elf_t *f, uint64_t vaddr,
				   uint64_t *off);

	/* Read len bytes of f at a file offset: the count read or a
	 * negative errno. */
	ssize_t (*read)(const dtrace_elf_t *f, uint64_t off, void *buf,
			    size_t len);

	/* The link-time address of f's entry point (e_entry):
	 * the code there is reached by the kernel, never by a call. */
	uint64_t (*entry)(const dtrace_elf_t *f);

	/* The ELF file at path, read without a process (a
	 * description that names a file by its path): 0, or a negative
	 * errno with msg filled.  The file stays valid for the session, as
	 * a process's modules' files do. */
	int (*open)(dtrace_provider_t *pv, const char *path,
			const dtrace_elf_t **fp, char *msg, size_t msglen);

	/* The <sys/sdt.h> probe sites of f, read once (a
	 * file without any has none): 0, or a negative errno with msg
	 * filled.  They stay valid for the session. */
	int (*stapsdt)(dtrace_provider_t *pv, const dtrace_elf_t *f,
			   const dtrace_stapsdt_t **notes, size_t *n,
			   char *msg, size_t msglen);

	/* Where f's section name is in the file (read it with
	 * read()): 0, or -ENOENT when f has none or it takes no room in
	 * the file (SHT_NOBITS). */
	int (*section)(const dtrace_elf_t *f, const char *name,
			   uint64_t *offset, uint64_t *size);

	/* The value of f's defined symbol name of any type
	 * (data too, as an argument specification may name): 0, or
	 * -ENOENT.  Not cached. */
	int (*sym_value)(const dtrace_elf_t *f, const char *name,
			     uint64_t *value);

	/* f's e_type: ET_EXEC or ET_DYN (addresses move at
	 * load time). */
	int (*type)(const dtrace_elf_t *f);

	/* The plugin is done with f, which open() gave
	 * it: f is no longer valid for it, nor what was read through it
	 * (stapsdt()'s sites, symbols()...).  When no one else
	 * holds the file (each open() and each process module counts),
	 * the engine closes it and frees what it read of it: a plugin that
	 * looks at every file processes map keeps neither a descriptor nor
	 * memory for those it has no use for. */
	void (*release)(dtrace_provider_t *pv, const dtrace_elf_t *f);
} dtrace_host_elf_t;

/* Processes: their mappings and the ELF modules they map, which every
 * provider of user-space code needs, as elf above. */
typedef struct dtrace_host_proc {
	size_t size;		/* sizeof(dtrace_host_proc_t) of the engine */

	/* ELF and processes.  proc_grab() reads the modules
	 * process pid maps now (deleted and anonymous mappings and files
	 * that are not ELF left out): 0, or a negative errno (-ESRCH: no
	 * such process) with msg filled.  modules() gives them, in
	 * address order, and their count; release() frees the list
	 * (the files stay). */
	int (*grab)(dtrace_provider_t *pv, pid_t pid, dtrace_proc_t **pp,
			 char *msg, size_t msglen);
	int (*modules)(const dtrace_proc_t *p,
			    const dtrace_module_t **mods);
	void (*release)(dtrace_proc_t *p);

	/* Whether a user's module name designates m, as DTrace matches
	 * them: "a.out" for the executable, the full path, the file name,
	 * or the file name up to one of its '.' ("libc" for libc.so.6).
	 * No globs. */
	int (*module_name_is)(const dtrace_module_t *m, const char *name);

	/* The mappings of process pid now, every one (see
	 * dtrace_mapping_t), into *maps, freed by maps_free(), and
	 * their count: 0, or a negative errno (-ESRCH: no such process).
	 * The engine's, dtprobed's and the plugins' one reader. */
	int (*maps)(pid_t pid, dtrace_mapping_t **maps, size_t *n);
	void (*maps_free)(dtrace_mapping_t *maps, size_t n);
} dtrace_host_proc_t;

typedef struct dtrace_host {
	int major;		/* DTRACE_PROVIDER_MAJOR of the engine */
	int minor;		/* DTRACE_PROVIDER_MINOR of the engine */
	size_t size;		/* sizeof(dtrace_host_t) of the engine */
	const dtrace_host_report_t *report;
	const dtrace_host_probes_t *probes;
	const dtrace_host_sites_t *sites;
	const dtrace_host_bpf_t *bpf;
	const dtrace_host_elf_t *elf;
	const dtrace_host_proc_t *proc;
} dtrace_host_t;

/* Whether the host's table TABLE has the function FN (one added after the
 * minor version the plugin requires, see DTRACE_PROVIDER()). */
#define DTRACE_HOST_HAS(host, table, fn) \
	((host)->table->size >= offsetof(dtrace_host_##table##_t, fn) + \
	 sizeof((host)->table->fn) && (host)->table->fn != NULL)

#define DTRACE_NOP5_TRAP	0
#define DTRACE_NOP5_OPTIMIZED	1
#define DTRACE_NOP5_FORK_UNSAFE	(-1)

/*
 * What the engine tells trampoline() of the program being built.  The
 * engine builds one program per (provider, kind) and sometimes one per
 * underlying probe; a trampoline may use what follows to emit less code
 * than the general case, or ignore it all.
 */
typedef struct dtrace_trampoline {
	size_t size;		/* sizeof(dtrace_trampoline_t) of the engine */
	int kind;		/* the provider's trampoline family */
	int skip;		/* label to jump to when the firing must be
				   ignored */
	/* Bit i set when a clause of the program may read argv[i]: the
	 * trampoline may leave the other arguments unfilled (they read as
	 * 0) and save the cost of fetching them. */
	uint64_t args_read;
	/* A label to jump to when the firing's arguments cannot be read
	 * cheaply, or -1.  It is one when the trampoline is emitted for the
	 * prefilter, the first test of predicates on arguments alone, which
	 * returns before touching the session's state when none holds: the
	 * firing then runs its full path, whose trampoline reads the
	 * arguments as always.  Code that is rarely run (a site looked up in
	 * a map) may jump there instead, keeping the prefilter short: a
	 * firing's cost grows with the pages of code it runs through. */
	int prefilter_pass;
	/* The underlying probes (cookies) the program serves now, of every
	 * provider that shares it, in increasing order, and their count.  A
	 * trampoline may emit each site's argument reading as code of its
	 * own, chosen by mstate.key.cookie, rather than look the site up at
	 * each firing.  The program may later serve underlying probes placed
	 * while tracing: every other cookie must still be handled... */
	const int64_t *cookies;
	size_t ncookies;
	/* ...unless sole_cookie is not 0: the one underlying probe the
	 * program serves for as long as it lives.  Per-site code then runs
	 * without testing mstate.key.cookie. */
	int64_t sole_cookie;
} dtrace_trampoline_t;

/* What notice_process() is told. */
#define DTRACE_NOTICE_EXEC	1	/* pid just called exec */
#define DTRACE_NOTICE_MAPS	2	/* pid's loader changed its libraries */

/*
 * What a plugin offers.  Fields marked optional may be NULL.
 */
typedef struct dtrace_provider_ops {
	int major;		/* DTRACE_PROVIDER_MAJOR the plugin was built for */
	int minor;		/* DTRACE_PROVIDER_MINOR the plugin was built for */
	size_t size;		/* sizeof(dtrace_provider_ops_t) it was built with */
	const char *name;	/* the plugin's name: messages, options, maps */
	/* The provider names its probes may have: D globs, NULL-terminated
	 * ("pid[0-9]*"; "*" for providers named by what they find, as USDT's
	 * are).  NULL: name alone. */
	const char *const *names;

	/* Optional.  Called once per session before any other operation; the
	 * returned pointer is passed back as data.  On failure return NULL
	 * after host->report->error(): the provider is left out of the
	 * session. */
	void *(*attach_session)(dtrace_provider_t *pv);

	/* Create the probes that may match pdp (pdp->prv may be a glob; the
	 * plugin decides whether its provider names match).  Called for every
	 * probe description of the program and for dtrace -l.  Returns the
	 * number of probes created or a negative errno (after
	 * host->report->error()). */
	int (*provide)(dtrace_provider_t *pv, void *data,
		       const dtrace_probedesc_t *pdp);

	/* Optional.  Describe the probe's arguments: fill at most
	 * DTRACE_ARGS_MAX entries of args and return how many; strings must
	 * stay valid for the session. */
	int (*probe_args)(dtrace_provider_t *pv, void *data,
			  const dtrace_probe_t *prp, dtrace_argdesc_t *args);

	/* Optional.  Name/data/class stability (3 entries each). */
	void (*probe_stability)(dtrace_provider_t *pv, void *data,
				const dtrace_probe_t *prp,
				dtrace_stability_t attr[6]);

	/* The probe will be traced: place its underlying probes with
	 * host->sites->uprobe() and overlay it with host->sites->overlay().  A
	 * site that cannot be probed is skipped with host->report->warn()
	 * rather than failing the whole enabling; return a negative errno only
	 * when the probe as a whole cannot be traced. */
	int (*enable)(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp);

	/* Emit the trampoline of tr->kind into em: read arguments from the
	 * context in DTRACE_REG_CTX into the machine state in
	 * DTRACE_REG_MSTATE (see the register conventions above).  Jump to
	 * label tr->skip when the firing must be ignored.  tr says what the
	 * program being built needs (see dtrace_trampoline_t). */
	int (*trampoline)(dtrace_provider_t *pv, void *data,
			  dtrace_emitter_t *em, const dtrace_trampoline_t *tr);

	/* Optional.  Everything is attached: for providers that fire
	 * themselves (BEGIN) this is the moment. */
	int (*start)(dtrace_provider_t *pv, void *data);
	/* Optional.  Tracing stops (END fires here). */
	int (*stop)(dtrace_provider_t *pv, void *data);

	/* Optional.  Free a probe's private data. */
	void (*free_priv)(void *data, void *priv);
	/* Optional.  The session ends: free data. */
	void (*detach_session)(dtrace_provider_t *pv, void *data);

	/* Optional.  Called while tracing, at least every 100 ms and at once
	 * when the descriptor returned by event_fd() (if any, else -1) becomes
	 * readable.  Here the plugin may notice processes and files that
	 * appeared and call host->sites->uprobe() and host->sites->overlay():
	 * during tracing those take effect at once, on the program of the same
	 * kind (a kind that had no underlying probe when tracing started cannot
	 * be added; host->sites->uprobe() returns -ENOENT then).  Returns 0 or
	 * a negative errno, which stops tracing after host->report->error(). */
	int (*event_fd)(dtrace_provider_t *pv, void *data);
	int (*poll)(dtrace_provider_t *pv, void *data);

	/* Optional.  Whether the probe prp (of this provider) matches pdp,
	 * for providers whose probes answer to more names than their own:
	 * pid's module "libc.so.6" also answers to "libc", "libc.so" and its
	 * full path, and offset "1c" to "01c".  Returns 1 or 0.  When NULL,
	 * the engine glob-matches each field against the probe's names. */
	int (*probe_match)(dtrace_provider_t *pv, void *data,
			   const dtrace_probe_t *prp,
			   const dtrace_probedesc_t *pdp);

	/* Optional.  After the plugin called host->sites->watch_exec(): pid
	 * did what (DTRACE_NOTICE_*).  Called from the trace loop, where
	 * host->sites->uprobe(), host->sites->overlay() and probe creation work
	 * as in poll().  The process runs on while this is called (it is never
	 * stopped), and may already be gone.  Returns the number of underlying
	 * probes it placed (>= 0: the engine measures the latency of those that
	 * placed some), or a negative errno, which stops tracing after
	 * host->report->error(). */
	int (*notice_process)(dtrace_provider_t *pv, void *data, pid_t pid,
			      int what);

	/* Optional.  After the plugin called
	 * host->sites->gate_exec(): pid is about to run a program that maps
	 * paths at start (the executable, its interpreter, the libraries it
	 * needs: those of them that carry USDT notes), none of which it has
	 * mapped yet.  Called from the trace loop like notice_process(); the
	 * exec waits until this returns.  The same return values. */
	int (*notice_files)(dtrace_provider_t *pv, void *data, pid_t pid,
			    const char *const *paths, int npaths);

	/* Optional.  The options the plugin accepts, and
	 * set_option() to take one (value NULL for -x PLUGIN.name without a
	 * value).  Called after attach_session(), before provide() for
	 * options given on the command line, and at compile time for a
	 * #pragma.  The engine refuses names not in options itself.  0, or a
	 * negative errno after host->report->error() for a bad value. */
	const dtrace_option_t *options;
	int (*set_option)(dtrace_provider_t *pv, void *data, const char *name,
			  const char *value);

	/* Optional.  required to call host->sites->gate_exec().  The
	 * ELF sections that make a file matter to notice_files()
	 * (".note.stapsdt" for USDT), NULL-terminated: the gate holds an
	 * exec only for the files that have one of them, and shows each such
	 * file once.  Read when the gate opens, as tracing starts. */
	const char *const *gate_sections;
} dtrace_provider_ops_t;

/*
 * A table with its first fields filled (those of DTRACE_PROVIDER_OPS_INIT)
 * and every operation NULL, for a plugin that fills its table in code:
 * C++ before C++20 has no designated initializers, so that
 * DTRACE_PROVIDER_OPS_INIT is a -pedantic warning there.  A C++ plugin
 * writes
 *
 *	dtrace_provider_ops_t make_ops()
 *	{
 *		dtrace_provider_ops_t ops = dtrace_provider_ops_start();
 *		ops.name = "myprov";
 *		ops.provide = provide;
 *		...
 *		return ops;
 *	}
 *	const dtrace_provider_ops_t ops = make_ops();
 *	DTRACE_PROVIDER(ops, host)
 */
static inline dtrace_provider_ops_t dtrace_provider_ops_start(void)
{
#ifdef __cplusplus
	dtrace_provider_ops_t ops = {};
#else
	dtrace_provider_ops_t ops = { 0 };
#endif
	ops.major = DTRACE_PROVIDER_MAJOR;
	ops.minor = DTRACE_PROVIDER_MINOR;
	ops.size = sizeof(ops);
	return ops;
}

/* The one symbol a plugin exports.  It returns the plugin's operations, or
 * NULL when it cannot serve this engine (host->major other than its own,
 * or a minor version older than the one it needs): the engine says so. */
typedef const dtrace_provider_ops_t *(*dtrace_provider_init_f)(
	const dtrace_host_t *host);
const dtrace_provider_ops_t *dtrace_provider_init(const dtrace_host_t *host);
#define DTRACE_PROVIDER_INIT	"dtrace_provider_init"

/*
 * DTRACE_PROVIDER(ops, host_var): the plugin's dtrace_provider_init(),
 * which keeps the engine's host table in host_var (a
 * "static const dtrace_host_t *" of the plugin) and returns &ops, when
 * the engine has this header's major version and at least its minor one;
 * else NULL.  The symbol is exported even from a plugin built with
 * -fvisibility=hidden.  A plugin that can do with less writes its own.
 */
#define DTRACE_PROVIDER(ops, host_var) \
	__attribute__((visibility("default"))) \
	const dtrace_provider_ops_t *dtrace_provider_init( \
		const dtrace_host_t *host_arg_) \
	{ \
		if (host_arg_->major != DTRACE_PROVIDER_MAJOR || \
		    host_arg_->minor < DTRACE_PROVIDER_MINOR) \
			return NULL; \
		(host_var) = host_arg_; \
		return &(ops); \
	}

#ifdef __cplusplus
}
#endif

#endif /* DTRACE_PROVIDER_H */
