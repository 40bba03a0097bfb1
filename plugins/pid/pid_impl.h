/* SPDX-License-Identifier: MIT */
/*
 * pid_impl.h: private declarations of the pid provider plugin.
 *
 * The plugin is these files:
 *   pid.c		the ops table, the session, provide() (discovery of
 *			probes from the modules and symbols of a process)
 *   pid_enable.c	enable() (placing uprobes and overlays, refusing
 *			unsafe sites), the trampolines, probe arguments
 *   pid_insn.c		instruction decoding with Zydis: boundaries inside a
 *			function, which instructions uprobes mishandle, and
 *			which functions read their return address
 *   pid_place.c	where a function's entry uprobe goes (past an
 *			endbr64), and what the kernel does with 5-byte nops
 *   pid_late.c		while tracing: libraries loaded later (dlopen)
 */
#ifndef PID_IMPL_H
#define PID_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <dtrace/array.h>
#include <dtrace/provider.h>
#include <Zydis/Zydis.h>


/* What a probe's site is. */
typedef enum pid_site {
	PID_SITE_ENTRY,		/* the function's first instruction */
	PID_SITE_RETURN,	/* a uretprobe planted at the entry */
	PID_SITE_OFFSET,	/* an instruction inside the function */
} pid_site_t;

/*
 * Trampoline kinds.  Entry and offset probes share kind 0: their
 * trampolines are identical (arguments from the ABI registers and the
 * stack, regs_ip from the site), and the engine deduplicates underlying
 * probes on (path, offset, flags, pid), so an entry probe and the offset-0
 * probe of one function must ask for the same kind to share their uprobe.
 */
#define PID_KIND_ENTRY	0
#define PID_KIND_RETURN	1
/* An entry placed past the function's endbr64 (pid_place.c): kind 0's
 * trampoline, with regs_ip taken back to the function's address.  A kind
 * of its own, since an offset probe on the same instruction sees it as
 * it is. */
#define PID_KIND_ENTRY_SHIFTED	2

/* The length of endbr64 (f3 0f 1e fa), which such an entry skips. */
#define PID_ENDBR64_LEN	4

/* A probe's private data. */
typedef struct pid_probe {
	pid_t pid;
	pid_site_t site;
	char *path;		/* file to place the uprobe on */
	char *modpath;		/* the module's path in the process (matching) */
	const dtrace_elf_t *file;
	uint64_t func_addr;	/* link-time address of the function */
	uint64_t func_size;	/* 0: unknown */
	uint64_t off;		/* PID_SITE_OFFSET: offset in the function */
} pid_probe_t;

/* A reading of a process's mappings (host->proc->maps). */
typedef struct pid_maps {
	dtrace_mapping_t *v;
	size_t n;
} pid_maps_t;

/* A process the session has looked into. */
typedef struct pid_target {
	pid_t pid;
	dtrace_proc_t *proc;
	pid_maps_t maps;	/* as they were just before proc was read */
	bool gone;		/* exited or exec'ed while tracing */
} pid_target_t;

/* Return probes refused for one reason, named in one warning. */
typedef struct pid_refused {
	int n;
	char names[1024];	/* their names, as many as fit */
} pid_refused_t;

/* A description provide() saw for one pid, kept to be matched again
 * against the libraries the process loads while tracing. */
typedef struct pid_session {
	pid_target_t *targets;
	int ntargets;
	ZydisDecoder decoder;

	/* sites refused by enable(), reported once as a summary */
	int nskipped;		/* in all */
	int nskipped_vex;	/* of which on VEX/EVEX/XOP instructions */
	char first_skipped[1024]; /* the first refusal, in full */
	bool skip_reported;
	/* return probes refused on functions that are never called, and
	 * on functions that read their return address */
	pid_refused_t uncalled;
	pid_refused_t ra_readers;

	bool tracing;		/* start() was called */
	int nop5; /* host->sites->uprobe_nop5(), once nop5_known */
	bool nop5_known;
	bool nop5_place;	/* -x pid.nop5=place */
	bool nop5_warned;

	bool entry_classic;	/* -x pid.entry=classic */
	/* The last function whose entry pid_entry_shift() placed: its entry,
	 * offset-0 and return probes are enabled one after the other. */
	const dtrace_elf_t *shift_file;
	uint64_t shift_func;
	uint8_t shift;
	const char *shift_why;
} pid_session_t;

extern const dtrace_host_t *pid_host;

/* pid.c */
pid_target_t *pid_target_refresh(dtrace_provider_t *pv, pid_session_t *ps,
				 pid_t pid, int *errp);
int pid_provide_target(dtrace_provider_t *pv, pid_session_t *ps,
		       const dtrace_probedesc_t *pdp, const pid_target_t *t,
		       dtrace_probe_t ***freshp, int *nfreshp);

/* pid_late.c */
int pid_maps_read(pid_t pid, pid_maps_t *m);
void pid_maps_free(pid_maps_t *m);
int pid_late_start(dtrace_provider_t *pv, pid_session_t *ps);
int pid_notice_process(dtrace_provider_t *pv, void *data, pid_t pid,
		       int what);
int pid_poll(dtrace_provider_t *pv, void *data);

/* pid_insn.c */
void pid_insn_init(pid_session_t *ps);
/* Decode the function [addr, addr + size) of f; call fn for each
 * instruction boundary (offset from addr) until fn returns non-zero.
 * Returns 0, or -errno when the bytes cannot be read. */
int pid_insn_each(pid_session_t *ps, const dtrace_elf_t *f, uint64_t addr,
		  uint64_t size, int (*fn)(uint64_t off, void *arg), void *arg);
/* Whether off is an instruction boundary of the function. */
bool pid_insn_is_boundary(pid_session_t *ps, const dtrace_elf_t *f,
			  uint64_t addr, uint64_t size, uint64_t off);
/* Why the instruction at link-time address addr of f cannot carry a uprobe
 * (a static string: "VEX-encoded", "lock-prefixed", ...), or NULL if it
 * can.  mnem receives its mnemonic when known; vex whether it is refused
 * for its VEX/EVEX/XOP/MVEX encoding (which the kernel would accept and
 * then mis-execute); nop5 whether it is a 5-byte nop, which a kernel with
 * the optimized uprobe turns into a call (host->sites->uprobe_nop5). */
const char *pid_insn_unsafe(pid_session_t *ps, const dtrace_elf_t *f,
			    uint64_t addr, const char **mnem, bool *vex,
			    bool *nop5);

/* Whether an instruction of the function [addr, addr + size) of f
 * branches to target or takes its address relative to %rip; also true
 * when the function cannot be read or decoded to its end (cannot tell). */
bool pid_insn_refers_to(pid_session_t *ps, const dtrace_elf_t *f,
			uint64_t addr, uint64_t size, uint64_t target);

/* Whether the function at link-time address addr of f (size bytes, 0 if
 * unknown) reads its own return address, the word a return probe replaces
 * (setjmp, getcontext, dlsym...); see pid_insn.c. */
bool pid_insn_reads_return_address(pid_session_t *ps, const dtrace_elf_t *f,
				   uint64_t addr, uint64_t size);

/* pid.c */
/* The first of the names at addr in syms (nsyms symbols() sorted by
 * address: the preferred name first), or NULL when none begins there. */
const dtrace_sym_t *pid_names_at(const dtrace_sym_t *syms, size_t nsyms,
				 uint64_t addr);

/* pid_place.c */
/* What the kernel makes of a uprobe on a 5-byte nop (DTRACE_NOP5_*),
 * asked of the engine once. */
int pid_kernel_nop5(dtrace_provider_t *pv, pid_session_t *ps);
/* How many bytes past pp's function its entry uprobe goes (that of entry,
 * offset-0 and return probes): PID_ENDBR64_LEN past an endbr64 when that
 * is safe, else 0.  *why: NULL when the function does not begin with
 * endbr64, else the placement in words, for -x debug. */
uint8_t pid_entry_shift(dtrace_provider_t *pv, pid_session_t *ps,
			const pid_probe_t *pp, const char **why);

/* pid_enable.c */
int pid_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp);
int pid_trampoline(dtrace_provider_t *pv, void *data, dtrace_emitter_t *em,
		   const dtrace_trampoline_t *tr);
int pid_probe_args(dtrace_provider_t *pv, void *data, const dtrace_probe_t *prp,
		   dtrace_argdesc_t *args);
void pid_report_skipped(dtrace_provider_t *pv, pid_session_t *ps);

#endif /* PID_IMPL_H */
