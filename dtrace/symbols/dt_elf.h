/* SPDX-License-Identifier: MIT */
/*
 * dt_elf.h: ELF files and the modules of a process, for the engine and the
 * plugins (compiled into both: see the Makefile's libdtcommon.a).
 *
 * Four things live here:
 *
 *   files	an ELF file opened once per (device, inode) through a cache:
 *		its PT_LOAD segments (virtual address <-> file offset) and,
 *		loaded on first use, its function symbols from .symtab and
 *		.dynsym, completed from separate debug information (build-id
 *		or .gnu_debuglink) when the file itself is stripped.
 *   modules	the ELF files mapped in a process, read from /proc/PID/maps,
 *		each with its load bias (run-time address = link-time address
 *		+ bias).  The main executable is named "a.out", a library by
 *		its file name ("libc.so.6").
 *   lookup	run-time address -> (module, symbol, offset), for ufunc(),
 *		usym() and ustack() printing.
 *   notes	a file's <sys/sdt.h> probe sites (dt_elf_stapsdt.c), for the
 *		usdt plugin (host->elf->stapsdt) and dtprobed's discovery.
 *
 * This is the one ELF reader of the engine, dtprobed (libdtcommon.a) and
 * the plugins (through the host table); the mappings of a process come
 * from the one /proc/PID/maps reader, dt_procmaps.h.
 *
 * Nothing here calls into the engine: errors are returned as -errno with a
 * message written into a buffer the caller provides.  Nothing is global: the
 * caller owns the cache.  Not thread safe.
 */
#ifndef DT_ELF_H
#define DT_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <dtrace/provider.h>

/* A function symbol: the plugins' (include/dtrace/provider.h), which the
 * host table hands them without copying. */
typedef dtrace_sym_t dt_elf_sym_t;

/* A <sys/sdt.h> probe site: the plugins' type (provider.h). */
typedef dtrace_stapsdt_t dt_elf_stapsdt_t;

/* A section header. */
typedef struct dt_elf_scn {
	const char *name;	/* in dt_elf_file_t.scn_names */
	uint32_t type;		/* SHT_* */
	uint64_t flags;		/* SHF_* */
	uint64_t addr, offset, size;
} dt_elf_scn_t;

/* A PT_LOAD segment. */
typedef struct dt_elf_seg {
	uint64_t vaddr, memsz;
	uint64_t offset, filesz;
	uint32_t flags;		/* PF_R, PF_W, PF_X */
} dt_elf_seg_t;

typedef struct dt_elf_file {
	char *path;		/* as opened */
	int fd;			/* open for reads until the cache goes, or
				   the last holder releases the file */
	int refs;		/* dt_elf_open()s not dt_elf_release()d */
	dev_t dev;
	ino_t ino;
	off_t size;		/* with mtime: a file rewritten in place is */
	struct timespec mtime;	/* another file */
	int etype;		/* ET_EXEC (fixed addresses) or ET_DYN (PIE,
				   library) */
	int elfclass;		/* ELFCLASS32 or ELFCLASS64 */
	uint64_t entry;		/* e_entry */
	dt_elf_seg_t *segs;
	int nsegs;
	dt_elf_scn_t *scns;	/* every section header, in file order */
	int nscns;
	char *scn_names;

	/* <sys/sdt.h> probe sites: valid after dt_elf_stapsdt(). */
	bool stapsdt_loaded;
	dt_elf_stapsdt_t *stapsdt;
	size_t nstapsdt;
	char *stapsdt_text;	/* their strings */

	/* Symbols: valid after dt_elf_symbols().  syms is sorted by address,
	 * and at one address the preferred name for printing comes first
	 * (global before weak before local); byname sorted by name. */
	bool syms_loaded;
	dt_elf_sym_t *syms;
	size_t nsyms;
	dt_elf_sym_t **byname;
	char *names;		/* storage of every symbol name */
	char *debug_path;	/* separate debug file used, or NULL */

	uint8_t build_id[64];
	size_t build_id_len;
	bool build_id_read;	/* build_id is valid (dt_elf_build_id()) */
	char *debuglink;	/* .gnu_debuglink file name, or NULL */

	struct dt_elf_file *next;	/* in the cache */
} dt_elf_file_t;

typedef struct dt_elf_cache dt_elf_cache_t;

/* The directory of separate debug files (by build-id, .build-id/xx/...,
 * and by .gnu_debuglink): DTRACE_DEBUG_DIR when it is set to an absolute
 * path (a debug tree kept elsewhere, a test's scratch tree), else
 * /usr/lib/debug.  dt_elf_debuginfo_path() is the same for libdwfl's
 * search (Dwfl_Callbacks.debuginfo_path). */
const char *dt_elf_debug_dir(void);
char **dt_elf_debuginfo_path(void);

/* What a file's separate debug file is found by. */
typedef struct dt_elf_debug_key {
	const char *path;		/* the file */
	dev_t dev;			/* its device and inode: the file is */
	ino_t ino;			/* not its own debug file */
	const uint8_t *build_id;	/* a candidate must carry it, if any */
	size_t build_id_len;
	const char *debuglink;		/* .gnu_debuglink name, or NULL */
} dt_elf_debug_key_t;

/* Open the separate debug file of key under debug_dir, where the symbols'
 * reader finds it (by build-id, then by .gnu_debuglink): its descriptor,
 * and its path (malloc'ed) in *path; -1 when there is none. */
int dt_elf_debug_open(const char *debug_dir, const dt_elf_debug_key_t *key,
		      char **path);

dt_elf_cache_t *dt_elf_cache_create(void);
void dt_elf_cache_destroy(dt_elf_cache_t *cache);
/* Where separate debug files are looked for (default /usr/lib/debug). */
int dt_elf_cache_set_debug_dir(dt_elf_cache_t *cache, const char *dir);

/* Open (or find in the cache) the ELF file at path.  The file stays valid
 * until the cache is destroyed, or until each dt_elf_open() that returned
 * it was matched by a dt_elf_release().  Returns 0 or -errno with msg
 * filled. */
int dt_elf_open(dt_elf_cache_t *cache, const char *path,
		const dt_elf_file_t **fp, char *msg, size_t msglen);
/* One holder of f no longer needs it: when it was the last, f leaves the
 * cache, its descriptor is closed and its memory freed (a reader that
 * opens it only to look, as usdt does for every file a process maps, then
 * keeps nothing). */
void dt_elf_release(dt_elf_cache_t *cache, const dt_elf_file_t *f);
/* The GNU build-id of f (read once, kept with f) and its length in *len,
 * 0 when f has none. */
const uint8_t *dt_elf_build_id(dt_elf_cache_t *cache, const dt_elf_file_t *f,
			       size_t *len);

/* Load the function symbols of f (once).  Returns 0 or -errno. */
int dt_elf_symbols(dt_elf_cache_t *cache, const dt_elf_file_t *f,
		   char *msg, size_t msglen);

/* Every symbol named name (bare, without version), in *first and its
 * count; 0 if none.  Needs dt_elf_symbols(). */
size_t dt_elf_sym_by_name(const dt_elf_file_t *f, const char *name,
			  dt_elf_sym_t *const **first);
/* The symbol containing the link-time address addr (the preferred alias),
 * or NULL.  A symbol of unknown size contains addresses up to the next
 * symbol. */
const dt_elf_sym_t *dt_elf_sym_by_addr(const dt_elf_file_t *f, uint64_t addr);

/* Link-time virtual address <-> file offset through the PT_LOAD headers.
 * Return 0, or -ENOENT when no segment holds it in the file. */
int dt_elf_vaddr_to_offset(const dt_elf_file_t *f, uint64_t vaddr,
			   uint64_t *offp);
int dt_elf_offset_to_vaddr(const dt_elf_file_t *f, uint64_t off,
			   uint64_t *vaddrp);

/* The section called name, or NULL. */
const dt_elf_scn_t *dt_elf_section(const dt_elf_file_t *f, const char *name);

/* The <sys/sdt.h> probe sites of f (its .note.stapsdt notes, owner
 * "stapsdt", type 3), read once: each with its function (from f's symbols),
 * site and semaphore moved as .stapsdt.base moved (prelink), and their file
 * offsets (a semaphore outside the file's contents reads as 0).  A file
 * without such notes has none; a malformed note is skipped.  Returns 0 or
 * -errno with msg filled (dt_elf_stapsdt.c). */
int dt_elf_stapsdt(dt_elf_cache_t *cache, const dt_elf_file_t *f,
		   const dt_elf_stapsdt_t **notes, size_t *n, char *msg,
		   size_t msglen);
/* The value of the defined symbol name of any type (functions, data, and
 * untyped ones) from .symtab, else .dynsym: 0, or -ENOENT.  Not cached:
 * for the rare argument specification that names a symbol. */
int dt_elf_sym_value(const dt_elf_file_t *f, const char *name,
		     uint64_t *valuep);

/* Read len bytes at a file offset; returns the count read or -errno. */
ssize_t dt_elf_read(const dt_elf_file_t *f, uint64_t off, void *buf,
		    size_t len);

/* One mapped range of a module. */
typedef struct dt_elf_range {
	uint64_t start, end;	/* run-time addresses, end exclusive */
	uint64_t offset;	/* file offset of start */
	unsigned prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
} dt_elf_range_t;

typedef struct dt_elf_module {
	char *name;		/* "a.out" or the file name */
	char *path;		/* as /proc/PID/maps shows it */
	unsigned long inode;	/* as /proc/PID/maps shows it */
	const dt_elf_file_t *file;	/* file->path: where to open it from
					   here (for uprobes) */
	bool is_exe;
	bool is_vdso;		/* the vDSO: name "[vdso]", path dtrace's copy
				   (dt_elf_cache_with_vdso()) */
	uint64_t bias;		/* run-time address - link-time address */
	uint64_t lo, hi;	/* lowest and highest mapped address */
	dt_elf_range_t *ranges;
	int nranges;
} dt_elf_module_t;

typedef struct dt_elf_proc {
	pid_t pid;
	dt_elf_module_t *mods;	/* in address order; the exe among them */
	int nmods;
} dt_elf_proc_t;

/* Processes' modules read through cache include their vDSO, named
 * "[vdso]", when it is the kernel's image that dtrace also maps (its
 * symbols and call frame information, for stacks). */
void dt_elf_cache_with_vdso(dt_elf_cache_t *cache);

/* Read the modules of process pid.  Deleted and anonymous mappings and
 * files that are not ELF are skipped.  Returns 0 or -errno (-ESRCH: no such
 * process). */
int dt_elf_proc_modules(dt_elf_cache_t *cache, pid_t pid,
			dt_elf_proc_t **procp, char *msg, size_t msglen);
void dt_elf_proc_free(dt_elf_proc_t *proc);

/* The module that maps run-time address addr, or NULL. */
const dt_elf_module_t *dt_elf_proc_module_at(const dt_elf_proc_t *proc,
					     uint64_t addr);

/* Run-time address -> module, symbol (NULL if none) and offset from the
 * symbol (or from the module's start when there is no symbol).  Returns 0,
 * or -ENOENT if no module maps addr. */
int dt_elf_proc_lookup(dt_elf_cache_t *cache, const dt_elf_proc_t *proc,
		       uint64_t addr, const dt_elf_module_t **modp,
		       const dt_elf_sym_t **symp, uint64_t *offp);

/* Whether a user's module name designates m, as DTrace matches them: "a.out"
 * for the executable, the full path (or a path to the same file through
 * symbolic links: /lib/... for /usr/lib/...), the file name, or the file
 * name up to one of its '.' ("libc" and "libc.so" for libc.so.6).  No
 * globs here. */
bool dt_elf_module_name_is(const dt_elf_module_t *m, const char *name);

#endif /* DT_ELF_H */
