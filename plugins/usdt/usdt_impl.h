/* SPDX-License-Identifier: MIT */
/*
 * usdt_impl.h: the usdt provider's private interfaces.
 *
 * The provider is split by phase:
 *   usdt_notes.c	the <sys/sdt.h> sites of one ELF file, as the engine
 *			reads them (host->elf->stapsdt), with their arguments
 *			decoded and the provider declarations a `dtrace -G`
 *			object put in .dtrace_prov; cached per file (dev,
 *			inode) for the session.
 *   usdt_args.c	decodes one note's argument specifications
 *			("-4@%eax", "8@-16(%rbp)", "8@sym(%rip)", ...) into
 *			locations the trampoline can read; whose declared
 *			types are taken (usdt_decl_trusted()).
 *   usdt_tramp.c	the run-time spec table (a BPF hash map keyed on the
 *			attach cookie) and the trampoline that reads it, or
 *			carries the specs of its program's few sites.
 *   usdt_proc.c	the files mapped by a process (host->proc->maps).
 *   usdt_prov.c	the provider operations: naming, provide, enable,
 *			argument types.
 *   usdt_sub.c	the subscription to dtprobed.
 *
 * What the provider shares with `dtrace -G` and dtprobed (the registration
 * message, the state files, the pinned map's key and value, the
 * .dtrace_prov declarations) is the USDT contract of libusdt/, which the
 * plugin links (libusdt/README.md).
 *
 * Invariant: everything decoded from a file is kept in its usdt_file_t,
 * which never changes after usdt_file_get() returned it and, once the
 * provider kept it (usdt_file_t.kept), stays for the whole session, so
 * probes may point into it.  A file the provider does not keep (its notes
 * match no description, or -x usdtfiles files are kept already) is
 * forgotten but for its identity (usdt_notes.c).
 */
#ifndef USDT_IMPL_H
#define USDT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <dtrace/array.h>
#include <dtrace/hash.h>
#include <dtrace/provider.h>

#include "usdt_decl.h"	/* libusdt: .dtrace_prov declarations */

/* <sys/sdt.h> passes up to 12 arguments, <dtrace/usdt.h> up to 16:
 * args[0] .. args[15] (arg0 .. arg9 as built-in variables, as DTrace has
 * them). */
#define USDT_NOTE_ARGS_MAX	DTRACE_ARGS_MAX

/* Where an argument's value is at the probe site. */
typedef enum usdt_loc {
	USDT_LOC_NONE,		/* not decodable: reads as 0 */
	USDT_LOC_IMM,		/* a constant: val */
	USDT_LOC_REG,		/* a register: DTRACE_CTX_REG() offset base */
	USDT_LOC_MEM,		/* memory at [base] + [index << scale] + val;
				   base or index may be absent.  A %rip-relative
				   symbol has base = ip and val = sym + disp -
				   site, so it follows the load address. */
} usdt_loc_t;

#define USDT_NOREG	0xff	/* no base or index register */

/* The size of the uprobe program's context, pt_regs (provider.h). */
#define USDT_PTREGS_SIZE	(8 * DTRACE_PT_NREGS)

typedef struct usdt_arg {
	usdt_loc_t loc;
	uint8_t size;		/* 1, 2, 4 or 8 bytes */
	bool is_signed;		/* -N@: sign-extended, else zero-extended */
	bool is_float;		/* Nf@: a float (4) or double (8), its bits */
	int error;		/* why loc is USDT_LOC_NONE: usdt_arg_parse() */
	uint8_t base;		/* pt_regs byte offset or USDT_NOREG */
	uint8_t index;		/* pt_regs byte offset or USDT_NOREG */
	uint8_t scale_shift;	/* log2 of the index scale */
	int64_t val;		/* IMM: the value; MEM: displacement */
} usdt_arg_t;

/* What the argument decoder needs to know of the file. */
typedef struct usdt_symtab usdt_symtab_t;
int usdt_sym_lookup(const usdt_symtab_t *st, const char *name,
		    uint64_t *addr);

/* Decode one argument specification ("-4@%eax", "8f@-16(%rbp)").  site is
 * the link-time address of the probe site and pie whether addresses move at
 * load time.  Returns 0, -EINVAL when the form cannot be decoded, or
 * -EOPNOTSUPP for a value in an SSE register, which a uprobe cannot read
 * (arg->loc is then USDT_LOC_NONE, arg->error the same value). */
int usdt_arg_parse(const char *spec, uint64_t site, bool pie,
		   const usdt_symtab_t *st, usdt_arg_t *arg);
/* The pt_regs byte offset of a register name without '%' ("eax", "r8d",
 * "ah" gives rax's offset + 1), or -1. */
int usdt_reg_offset(const char *name, size_t len);
/* Whether the argument types that process pid registered with dtprobed
 * may type this session's probes of it: its real and effective users are
 * root or the session's own user.  Another user's declarations would
 * change how a clause whose probes include that process's compiles
 * (a glob's args[] would disagree), so they are not taken: the notes'
 * sizes type its arguments. */
bool usdt_decl_trusted(pid_t pid);

/* One probe site, as a note describes it. */
typedef struct usdt_note {	/* strings: the file's text */
	const char *provider;
	const char *name;	/* as in the note ("function__entry") */
	const char *argstr;	/* the argument specifications, as written */
	const char *func;	/* the function containing the site, or "" */
	uint64_t pc;		/* link-time address, prelink-adjusted */
	uint64_t sema;		/* semaphore address, or 0 */
	uint64_t offset;	/* file offset of the site */
	uint64_t sema_offset;	/* file offset of the semaphore, or 0 */
	int nargs;
	usdt_arg_t args[USDT_NOTE_ARGS_MAX];
	int bad_arg;		/* index of the first undecodable arg, -1 */
	char *bad_spec;		/* and its text */
	bool nop5;		/* a 5-byte nop follows the site's nop */
} usdt_note_t;

/* Which instruction of a site the probe goes on (usdt_place.c). */
typedef enum usdt_sitemode {
	USDT_SITE_AUTO,		/* the 5-byte nop when the kernel optimizes */
	USDT_SITE_CLASSIC,	/* the nop the note names, always */
	USDT_SITE_NOP5,		/* the 5-byte nop where there is one */
} usdt_sitemode_t;

/* Where the probes of a session go (usdt_place.c): mode is the option;
 * the rest is decided once, at the first site with a 5-byte nop. */
typedef struct usdt_placement {
	usdt_sitemode_t mode;
	bool known;		/* the kernel was asked */
	int kernel;		/* host->sites->uprobe_nop5(): DTRACE_NOP5_* */
	bool on_nop5;		/* sites with a 5-byte nop get it */
} usdt_placement_t;

/* Whether the len bytes at code are a nop and a 5-byte nop. */
bool usdt_site_has_nop5(const unsigned char *code, size_t len);
/* "auto", "classic" or "nop5" into *mode: 0, or -EINVAL. */
int usdt_sitemode_parse(const char *value, usdt_sitemode_t *mode);
/* Ask the engine, once, what the kernel makes of a probe on a 5-byte
 * nop, and decide pl->on_nop5 (a warning for a forced unsafe one). */
void usdt_placement_decide(const dtrace_host_t *h, dtrace_provider_t *pv,
			   usdt_placement_t *pl);
/* The bytes from the note's address to the probe's: 1 or 0. */
uint8_t usdt_site_shift(const usdt_placement_t *pl, const usdt_note_t *note);
/* Which instruction the probe of note goes on, in words. */
const char *usdt_placement_name(const usdt_placement_t *pl,
				const usdt_note_t *note);
/* With -x debug (interface 3.10), where prp's probe went on the site of
 * note in path. */
void usdt_placement_debug(const dtrace_host_t *h, dtrace_provider_t *pv,
			  const usdt_placement_t *pl, const dtrace_probe_t *prp,
			  const usdt_note_t *note, const char *path);

/* The plugin's options (usdt_options.c), and -x usdt.NAME=value into
 * *files_max or *place: 0, or -EINVAL after h->report->error(). */
extern const dtrace_option_t usdt_option_list[];
int usdt_option_set(const dtrace_host_t *h, dtrace_provider_t *pv,
		    const char *name, const char *value, int *files_max,
		    usdt_placement_t *place);

/* An ELF file's notes, cached per (dev, inode). */
typedef struct usdt_file {
	dev_t dev;
	ino_t ino;
	off_t size;		/* with mtime: the same inode number may */
	struct timespec mtime;	/* name another file later (rebuilt, reused) */
	char *path;		/* as first opened */
	const dtrace_elf_t *elf;	/* the engine's, while being read */
	char *module;		/* the file's name, the probes' module */
	bool kept;		/* by the provider, for the session */
	bool pie;		/* ET_DYN: addresses move at load time */
	int nnotes;
	usdt_note_t *notes;
	char *text;		/* the notes' strings */
	int ndecls;		/* providers declared in .dtrace_prov */
	usdt_decl_t *decls;
	struct usdt_file *next;
} usdt_file_t;

/* A file as /proc/PID/maps names it: the key of the plugin's tables. */
typedef struct usdt_devino {
	dev_t dev;
	ino_t ino;
} usdt_devino_t;

static inline uint64_t usdt_devino_hash(dev_t dev, ino_t ino)
{
	return dtrace_hash_u64(dtrace_hash_u64(DTRACE_HASH_INIT, dev), ino);
}

static inline bool usdt_devino_eq(const void *elem, const void *key)
{
	const usdt_devino_t *a = (const usdt_devino_t *)elem;
	const usdt_devino_t *b = (const usdt_devino_t *)key;

	return a->dev == b->dev && a->ino == b->ino;
}

/* A file known to hold nothing to trace, by (dev, inode), and the size
 * and mtime it had then. */
typedef struct usdt_fileid {
	usdt_devino_t id;	/* first: the key */
	off_t size;
	struct timespec mtime;
} usdt_fileid_t;

/* Files remembered as holding nothing to trace: some 200 KB at most; when
 * that many are known, the set starts over. */
#define USDT_IGNORED_MAX	4096

typedef struct usdt_filecache {
	usdt_file_t *files;	/* with notes */
	dtrace_htab_t ignored;	/* of usdt_fileid_t */
} usdt_filecache_t;

/* The file's notes, read once per (dev, inode, size, mtime) as stat(path)
 * gives them (a file replaced while tracing is read again: its old entry
 * stays for the probes that point into it).  Returns NULL with errno 0
 * for a file without notes, not ELF, or forgotten, and with errno set when
 * the file cannot be read. */
usdt_file_t *usdt_file_get(usdt_filecache_t *fc, const dtrace_host_t *h,
			   dtrace_provider_t *pv, const char *path);
/* usdt_file_get() for a file a process maps, without a stat when the cache
 * already knows its (dev, ino), whatever it held (notes or nothing): for
 * the start-up scan of every process, during which a file is not
 * expected to change in place. */
usdt_file_t *usdt_file_get_known(usdt_filecache_t *fc,
				 const dtrace_host_t *h, dtrace_provider_t *pv,
				 const char *path, dev_t dev, ino_t ino);
/* f, which the provider did not keep, goes: only its identity stays, so
 * that usdt_file_get() does not read it again. */
void usdt_filecache_forget(usdt_filecache_t *fc, usdt_file_t *f);
/* Read notes straight from a file, without cache (tests). */
usdt_file_t *usdt_file_read(const dtrace_host_t *h, dtrace_provider_t *pv,
			    const char *path, int *err);
void usdt_file_free(usdt_file_t *f);
void usdt_filecache_free(usdt_filecache_t *fc);

/* "function__entry" -> "function-entry" (DTrace's convention). */
char *usdt_probe_name(const char *note_name);

/* A mapped file of a process. */
typedef struct usdt_mapping {
	char *path;		/* openable path (through /proc/PID/root if the
				   process lives in another mount namespace) */
	dev_t dev;
	ino_t ino;
	pid_t pid;		/* the process that maps it, 0: unknown */
} usdt_mapping_t;

/* The regular files mapped executable by pid, deduplicated.  Returns the
 * count (>= 0) and an array to free with usdt_mappings_free(), or -errno. */
int usdt_proc_mappings(const dtrace_host_t *h, pid_t pid,
		       usdt_mapping_t **out);
void usdt_mappings_free(usdt_mapping_t *m, int n);
/* Every process's mapped files, each file once per process that maps it,
 * grouped by process.  Processes that vanish or cannot be read are
 * skipped. */
int usdt_all_mappings(const dtrace_host_t *h, usdt_mapping_t **out);

/* The run-time spec table (one value per attach cookie).  The layout is
 * shared by usdt_tramp.c's writer and the BPF it emits. */
typedef struct usdt_rtarg {
	uint8_t loc;		/* usdt_loc_t */
	uint8_t size;
	uint8_t shift;		/* 64 - 8 * size: for the extension */
	uint8_t is_signed;
	uint8_t base;		/* pt_regs offset or USDT_NOREG */
	uint8_t index;
	uint8_t scale_shift;
	uint8_t pad;
	int64_t val;
} usdt_rtarg_t;

typedef struct usdt_rtspec {
	uint32_t nargs;
	uint32_t flags;		/* USDT_SPEC_* */
	usdt_rtarg_t args[DTRACE_ARGS_MAX];
} usdt_rtspec_t;

/* A probe for every process (the probe without a pid) is overlaid on the
 * site: the trampoline asks dtprobed's map whether the firing process
 * registered it (then its firing is its own probe's, myapp1234). */
#define USDT_SPEC_EVERY		0x1
/* The probe is on the 5-byte nop one byte past the note's address: the
 * trampoline takes that byte off mstate.regs_ip (usdt_place.c). */
#define USDT_SPEC_SHIFTED	0x2

#define USDT_SPECS_MAP		"usdt_specs"
#define USDT_SPECS_MAX		16384

/* The spec of note's site with its probe shift bytes past the note's
 * address (usdt_site_shift()): flags USDT_SPEC_SHIFTED when shift. */
void usdt_rtspec_fill(const usdt_note_t *note, uint8_t shift,
		      usdt_rtspec_t *rt);

/* A site whose spec the trampoline carries as code (no lookup). */
typedef struct usdt_tramp_site {
	uint32_t cookie;
	const usdt_rtspec_t *spec;	/* with its final flags */
} usdt_tramp_site_t;

/* Sites a trampoline carries as code at most (see usdt_trampoline). */
#define USDT_INLINE_SITES	16

/* Emit the trampoline tr asks for: argv[] from the spec of the firing
 * cookie; with procs (dtprobed's pinned map, else NULL), mstate.instance
 * set at a site of USDT_SPEC_EVERY that the firing process registered.
 * The nsites sites[] are read by code of their own, only the arguments in
 * tr->args_read; any other cookie by its entry in specs, or, in the
 * prefilter (tr->prefilter_pass) with sites of its own, by a jump to the
 * full path.  A program that serves one site for good
 * (tr->sole_cookie) runs its code without testing the cookie. */
void usdt_tramp_emit(const dtrace_host_t *host, dtrace_emitter_t *em,
		     const dtrace_trampoline_t *tr, dtrace_map_t *specs,
		     dtrace_map_t *procs, const usdt_tramp_site_t *sites,
		     int nsites);
/* Write one spec into the map (fd); 0 or -errno. */
int usdt_rtspec_store(int map_fd, uint32_t cookie, const usdt_rtspec_t *rt);

/* Subscription to dtprobed (usdt_sub.c).  open: the socket, or -1 when
 * there is no daemon to subscribe to.  next: 1 and *pid for a registration
 * notice, 0 when none is pending, -1 when the daemon went away.  ack: the
 * probes of pid are placed. */
int usdt_sub_open(void);
int usdt_sub_next(int fd, pid_t *pid);
void usdt_sub_ack(int fd, pid_t pid);
/* Wait until dtprobed recorded every registration it answered before
 * (dtprobed_proto.h, Handshake), USDT_SYNC_MS at most. */
#define USDT_SYNC_MS	1000
void usdt_sub_sync(void);
/* Said once at start when a probe for every process is traced and no
 * dtprobed answers: what that costs, and how to start it. */
void usdt_sub_warn_none(const dtrace_host_t *h, dtrace_provider_t *pv);

#endif /* USDT_IMPL_H */
