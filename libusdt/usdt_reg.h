/* SPDX-License-Identifier: MIT */
/*
 * usdt_reg.h: what dtprobed knows about registered USDT providers, as the
 * usdt plugin reads it.  This is the contract between dtprobed (writer) and
 * the usdt provider plugin (reader), part of libusdt (README.md), which
 * both link.  Stable: only additions, never changes.
 *
 * Where the data live.
 *   State directory	one file per registering process, "<pid>", written
 *			atomically (temp file + rename) by dtprobed whenever the
 *			process's registrations change, removed when it exits
 *			or execs.  Directory: $DTPROBED_STATEDIR, else
 *			USDT_REG_STATEDIR_DEFAULT.  usdt_reg_read_all() parses
 *			them; nobody else should.
 *   Pinned map		a BPF hash map pinned at $DTPROBED_MAP, else
 *			USDT_REG_MAP_DEFAULT, keyed on (pid, probe site virtual
 *			address in that process).  Its value names the
 *			registration and the probe.  A trampoline looks up
 *			{ current pid, regs_ip of the site } and, when found,
 *			knows that the process registered a probe at that site
 *			(and which).  An entry exists exactly while the state
 *			file of the pid lists that site.
 *
 * Names.  Probe names are kept as declared in the provider's .d file
 * ("query__start"); DTrace shows them with every "__" turned into "-"
 * ("query-start"): usdt_reg_probe_t.dname holds that form.  The stapsdt note
 * of a site carries the declared name (what bpftrace and perf show).
 *
 * Identity of a registration: (pid, module, provider).  id is unique for the
 * lifetime of the state directory (it survives dtprobed restarts because it
 * is stored in the state file).
 */
#ifndef USDT_REG_H
#define USDT_REG_H

#include <stdint.h>
#include <sys/types.h>

#define USDT_REG_STATEDIR_ENV		"DTPROBED_STATEDIR"
#define USDT_REG_STATEDIR_DEFAULT	"/run/dtrace"
#define USDT_REG_SOCKET_ENV		"DTPROBED_SOCKET"
#define USDT_REG_SOCKET_DEFAULT		"/run/dtprobed.sock"
#define USDT_REG_MAP_ENV		"DTPROBED_MAP"
#define USDT_REG_MAP_DEFAULT		"/sys/fs/bpf/dtrace/usdt_procs"

/* The pinned map: BPF_MAP_TYPE_HASH, USDT_REG_MAP_ENTRIES entries,
 * key usdt_reg_mapkey_t (16 bytes), value usdt_reg_mapval_t (16 bytes). */
#define USDT_REG_MAP_ENTRIES		65536

typedef struct usdt_reg_mapkey {
	uint32_t pid;		/* tgid of the process (bpf_get_current_pid_tgid() >> 32) */
	uint32_t pad;		/* always 0 */
	uint64_t addr;		/* virtual address of the probe site (the nop)
				   in that process */
} usdt_reg_mapkey_t;

typedef struct usdt_reg_mapval {
	uint64_t regid;		/* usdt_reg_t.id of the registration */
	uint32_t probe;		/* index in usdt_reg_t.probes */
	uint32_t flags;		/* 0 for now */
} usdt_reg_mapval_t;

/* A probe site: one nop in the module.  A probe has one site per expansion
 * of its macro (inlining and unrolling can make several). */
typedef struct usdt_reg_site {
	uint64_t addr;		/* virtual address in the process */
	uint64_t offset;	/* file offset in the module (for the uprobe) */
	uint64_t sema_addr;	/* the probe's semaphore in the process, or 0 */
	uint64_t sema_offset;	/* its file offset (uprobe ref_ctr_offset), or 0 */
} usdt_reg_site_t;

#define USDT_REG_ARGS_MAX	16	/* DTPV_ARGS_MAX */

typedef struct usdt_reg_probe {
	char *name;		/* as declared: "query__start" */
	char *dname;		/* as DTrace names it: "query-start" */
	int nargs;		/* native arguments (what the site passes) */
	char *native[USDT_REG_ARGS_MAX];	/* D type names: "char *" */
	int nxargs;		/* translated arguments (args[N]) */
	char *xlate[USDT_REG_ARGS_MAX];
	int mapping[USDT_REG_ARGS_MAX];	/* args[i] is native mapping[i] */
	int nsites;
	usdt_reg_site_t *sites;
} usdt_reg_probe_t;

/* Stability attributes of the provider, as #pragma D attributes gave them:
 * each "Name/Name/Class" ("Evolving/Evolving/Common"), or NULL when not
 * declared.  Index: provider, module, function, name, args. */
#define USDT_REG_ATTR_PROVIDER	0
#define USDT_REG_ATTR_MODULE	1
#define USDT_REG_ATTR_FUNCTION	2
#define USDT_REG_ATTR_NAME	3
#define USDT_REG_ATTR_ARGS	4

typedef struct usdt_reg {
	uint64_t id;		/* see usdt_reg_mapval_t.regid */
	pid_t pid;
	uint64_t start_time;	/* the process's start time (clock ticks since
				   boot, /proc/PID/stat field 22): with pid,
				   identifies the process */
	char *provider;		/* "myapp" (the pid is not appended) */
	char *module;		/* path of the file as the process maps it */
	uint64_t dev, ino;	/* of that file (st_dev as makedev(maj, min)) */
	uint64_t bias;		/* load bias: runtime address - link address */
	char *attrs[5];
	int nprobes;
	usdt_reg_probe_t *probes;
	struct usdt_reg *next;
} usdt_reg_t;

/* The largest state file a reader takes: a larger one is skipped
 * unread (a reader once took 1.6 s and 240 MB over one of 64 MB), and
 * dtprobed never writes one (it refuses the registration). */
#define USDT_REG_FILE_MAX		(16u << 20)

/* The state directory, socket and map paths in effect (environment or
 * default).  Never NULL. */
const char *usdt_reg_statedir(void);
const char *usdt_reg_socket_path(void);
const char *usdt_reg_map_path(void);

/* Read every registration of the state directory (statedir NULL: the one in
 * effect) into a list, ordered by pid then id.  A missing directory gives an
 * empty list; a damaged file, or one larger than USDT_REG_FILE_MAX, is
 * skipped.  Returns 0 or a negative errno;
 * *out is NULL or a list to free with usdt_reg_free(). */
int usdt_reg_read_all(const char *statedir, usdt_reg_t **out);

/* Read the registrations of one process (empty list if it has none);
 * -EFBIG for a file larger than USDT_REG_FILE_MAX. */
int usdt_reg_read_pid(const char *statedir, pid_t pid, usdt_reg_t **out);

/* Free a list returned by the functions above. */
void usdt_reg_free(usdt_reg_t *list);

/* Map a stability name ("Evolving") to 0..7 in the order of
 * dtrace_stability_t (Internal .. Standard), or -1. */
int usdt_reg_stability(const char *name);

#endif /* USDT_REG_H */
