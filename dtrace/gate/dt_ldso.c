/* SPDX-License-Identifier: MIT */
/*
 * dt_ldso.c: the files glibc's ld.so (x86-64) maps at program start,
 * computed from the files alone.
 *
 * Theory.  ld.so maps the executable, its interpreter, then walks the
 * DT_NEEDED entries breadth-first: each object's needed names in order,
 * objects in the order they were loaded.  A needed name that matches an
 * object already loaded (by the name it was requested as, its path or its
 * DT_SONAME) is that object.  Otherwise a name containing '/' is a path and
 * any other name is searched:
 *
 *   1. DT_RPATH of the needing object, then of the object that loaded it,
 *      and so on up to the executable -- only when the needing object has no
 *      DT_RUNPATH (an object with a DT_RUNPATH has its DT_RPATH ignored);
 *   2. LD_LIBRARY_PATH (':' or ';' separated);
 *   3. DT_RUNPATH of the needing object;
 *   4. /etc/ld.so.cache, then the default directories -- unless the needing
 *      object has DF_1_NODEFLIB (then the cache only outside of those).
 *
 * In each directory D of steps 1-4, glibc 2.36 tries first the hwcaps
 * subdirectories D/glibc-hwcaps/x86-64-v{4,3,2} and the legacy ones
 * D/[tls/][PLATFORM/][avx512_1/][x86_64/] that the CPU supports, then D.
 * A directory whose file is not ELF64 x86-64 is passed over.  The first
 * directory (with its subdirectories) that holds the file ends the search.
 *
 * Where ld.so's choice depends on the CPU, this resolver takes every
 * existing candidate instead: all hwcaps subdirectories of the directory
 * that holds the file, all ld.so.cache entries of the name (one per hwcaps
 * subdirectory), and $PLATFORM as each of x86_64, haswell and xeon_phi (on
 * x86-64 glibc 2.36 replaces the kernel's "x86_64" by "haswell" or
 * "xeon_phi" on CPUs that qualify).  The caller attaches probes to all of
 * them, which is harmless for the ones never mapped.
 *
 * Dynamic string tokens: $ORIGIN is the directory of the executable's path
 * (the real path, as /proc/self/exe) or, for a library, of the path it was
 * found at, symlinks unresolved (checked against glibc 2.36 with
 * LD_DEBUG=libs); $LIB is "lib/x86_64-linux-gnu" (Debian's multiarch
 * glibc; checked with LD_DEBUG=libs); $PLATFORM as above.  Relative search
 * directories and empty entries name the exec'ing process's cwd, which is
 * unknowable here: they are skipped, as are relative needed paths.
 * Secure (setuid) mode, which ignores LD_LIBRARY_PATH and some $ORIGIN, is
 * not modelled: the list may then hold extra files.
 *
 * ld.so.cache ("glibc-ld.so.cache1.1", the only format of glibc >= 2.32):
 * a 48-byte header (20 bytes of magic and version, then u32 nlibs, u32
 * length of the strings, u8 flags, 3 bytes of padding, u32 offset of the
 * extensions, 3 unused u32), then nlibs 24-byte entries (i32 flags, u32
 * key, u32 value, u32 osversion, u64 hwcap), then the strings.  key (the
 * name) and value (the path) are offsets from the start of the file.  Only
 * entries flagged 0x0303 (libc6, x86-64) are kept.  The old "ld.so-1.7.0"
 * format is treated as no cache.
 *
 * Speed: each file is parsed once per context, cached by (dev, inode) and
 * trusted again while its size and mtime are unchanged; a file found again
 * costs one stat().  The directory table remembers, per directory, whether
 * it exists and which hwcaps subdirectories it has (revalidated by its
 * mtime once per resolution), so that absent subdirectories cost nothing.
 * These tables, the names of a resolution and ld.so.cache's names are
 * hash tables of dt_hash.h.  Whether a file has a section (USDT notes) is
 * dt_ldso_sect.c's.
 *
 * Safety: files are read with pread() only, never mapped; every count,
 * offset and string is bounded (see the LDSO_MAX_* caps); candidates are
 * stat()ed (a file known costs no more) and opened by dt_open_untrusted_id()
 * only, which opens no FIFO or device, never blocks and opens the file
 * stat() saw or none; a resolution stops after LDSO_MAX_PROBES file probes.  File entries are
 * never freed during a resolution (a changed file's old entry is retired
 * to a list freed at its end), so pointers into them stay valid.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_array.h"
#include "dt_hash.h"
#include "dt_ldso.h"
#include "dt_untrusted.h"

#define LDSO_MAX_PHNUM		512	/* program headers of one file */
#define LDSO_MAX_DYN		8192	/* dynamic entries read */
#define LDSO_MAX_NEEDED		1024	/* DT_NEEDED kept per object */
#define LDSO_MAX_STR		4096	/* one name or path list, with NUL */
#define LDSO_STR_SPAN		16384	/* strings read in one pread within */
#define LDSO_MAX_PROBES		16384	/* stat() calls per resolution */
#define LDSO_MAX_SEARCHES	16384	/* needed names handled per resolution */
#define LDSO_MAX_FOUND		64	/* candidates of one search */
#define LDSO_MAX_CHAIN		DT_LDSO_MAX_FILES	/* RPATH loader chain */
#define LDSO_MAX_CACHED_FILES	8192	/* file entries kept; flushed beyond */
#define LDSO_MAX_CACHED_DIRS	2048
#define LDSO_CACHE_MAX_SIZE	(64u << 20)	/* ld.so.cache sanity bound */

#define LDSO_CACHE_PATH		"/etc/ld.so.cache"
#define LDSO_CACHE_MAGIC	"glibc-ld.so.cache1.1"
#define LDSO_CACHE_HDR_SIZE	48
#define LDSO_CACHE_ENT_SIZE	24
#define LDSO_CACHE_X8664_LIBC6	0x0303
#define LDSO_LIB		"lib/x86_64-linux-gnu"

static const char *const ldso_default_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib",
};
static const char *const ldso_platforms[] = { "x86_64", "haswell", "xeon_phi" };
static const char *const ldso_hwcaps[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };

/* Subdirectories whose presence the directory table records. */
enum {
	SUB_HWCAPS = 1 << 0,	/* glibc-hwcaps */
	SUB_TLS = 1 << 1,
	SUB_HASWELL = 1 << 2,
	SUB_XEON_PHI = 1 << 3,
	SUB_AVX512 = 1 << 4,	/* avx512_1 */
	SUB_X86_64 = 1 << 5,
};
static const char *const ldso_sub_names[] = {
	"glibc-hwcaps", "tls", "haswell", "xeon_phi", "avx512_1", "x86_64",
};

/* One parsed file, cached by (dev, ino) and valid while size and mtime are. */
typedef struct ldso_file {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool elf_ok;		/* ELF64 LSB x86-64, ET_EXEC or ET_DYN */
	bool dynamic;		/* a readable PT_DYNAMIC */
	bool nodeflib;		/* DF_1_NODEFLIB */
	char *interp;		/* PT_INTERP, or NULL */
	char *soname, *rpath, *runpath;	/* NULL when absent; rpath is NULL
					   when runpath is set */
	char **needed;
	int nneeded;
	unsigned stamp;		/* == resolution generation: loaded as */
	int index;		/* ... this object of it */
	struct ldso_file *next;	/* on the list of retired entries */
} ldso_file_t;

/* What the directory table knows of one directory. */
typedef struct ldso_dir {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	bool exists;
	unsigned subs;		/* SUB_* present */
	unsigned stamp;		/* generation it was last checked in */
} ldso_dir_t;

/* The entries of ld.so.cache of one name: the first, then on by chain[]
 * (entry index + 1; 0 ends), last in the file first. */
typedef struct ldso_cache_name {
	const char *name;	/* in buf */
	uint32_t first;
} ldso_cache_name_t;

/* ld.so.cache, the x86-64 libc6 entries, by name. */
typedef struct ldso_cache {
	char *buf;
	size_t size;
	bool loaded;		/* key below is that of buf */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	uint32_t *values;	/* string offsets in buf */
	uint32_t *chain;
	uint32_t nents;
	dt_htab_t names;	/* of ldso_cache_name_t */
} ldso_cache_t;

struct dt_ldso {
	ldso_cache_t cache;
	dt_htab_t files;	/* of ldso_file_t *, by (dev, ino) */
	ldso_file_t *retired;	/* replaced during a resolution */
	dt_htab_t dirs;		/* of ldso_dir_t *, by path */
	unsigned gen;		/* resolution generation */
};

/* One object of the resolution running now. */
typedef struct ldso_obj {
	ldso_file_t *f;
	char *path;
	int loader;		/* index of the object that needed it, or -1 */
} ldso_obj_t;

/* What a name stands for in the resolution running now. */
typedef struct ldso_name {
	const char *s;
	int obj;		/* see ldso_name_find() */
} ldso_name_t;

typedef struct ldso_found {
	ldso_file_t *f;
	char *path;
} ldso_found_t;

/* The state of one dt_ldso_startup_files(). */
typedef struct ldso_run {
	dt_ldso_t *ld;
	ldso_obj_t *objs;
	int nobjs, objs_cap;
	dt_htab_t names;	/* of ldso_name_t */
	ldso_found_t found[LDSO_MAX_FOUND];
	int nfound;
	const char *libpath;
	int probes_left;
	int err;		/* sticky -errno (only -ENOMEM so far) */
} ldso_run_t;

/* ---- small helpers -------------------------------------------------------- */

static uint64_t ldso_hash_str(const char *s)
{
	return dt_hash_str(DT_HASH_INIT, s);
}

/* A file as the file table knows it. */
typedef struct ldso_file_key {
	dev_t dev;
	ino_t ino;
} ldso_file_key_t;

static uint64_t ldso_hash_key(const ldso_file_key_t *k)
{
	return dt_hash_u64(dt_hash_u64(DT_HASH_INIT, (uint64_t)k->dev),
			   (uint64_t)k->ino);
}

static bool ldso_file_eq(const void *elem, const void *key)
{
	const ldso_file_t *f = *(ldso_file_t *const *)elem;
	const ldso_file_key_t *k = key;

	return f->dev == k->dev && f->ino == k->ino;
}

static bool ldso_dir_eq(const void *elem, const void *key)
{
	return strcmp((*(ldso_dir_t *const *)elem)->path, key) == 0;
}

static bool ldso_cache_name_eq(const void *elem, const void *key)
{
	return strcmp(((const ldso_cache_name_t *)elem)->name, key) == 0;
}

static bool ldso_name_eq(const void *elem, const void *key)
{
	return strcmp(((const ldso_name_t *)elem)->s, key) == 0;
}

ssize_t dt_ldso_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX)
		return 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static bool ldso_same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* dir + "/" + name into buf; false when it does not fit. */
static bool ldso_join(char *buf, size_t size, const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int n;

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	n = snprintf(buf, size, "%.*s/%s", (int)dl, dir, name);
	return n > 0 && (size_t)n < size;
}

/* ---- ELF parsing ------------------------------------------------------------ */

static bool ldso_ehdr_ok(const Elf64_Ehdr *eh)
{
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_ident[EI_VERSION] == EV_CURRENT &&
	       eh->e_machine == EM_X86_64 &&
	       (eh->e_type == ET_EXEC || eh->e_type == ET_DYN);
}

/* The file offset of virtual address va, through the PT_LOAD segments;
 * false when no segment holds it in its file part. */
static bool ldso_va_to_off(const Elf64_Phdr *ph, int phnum, uint64_t va,
			   uint64_t *off)
{
	for (int i = 0; i < phnum; i++) {
		if (ph[i].p_type != PT_LOAD || va < ph[i].p_vaddr ||
		    va - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		if (ph[i].p_offset > UINT64_MAX - (va - ph[i].p_vaddr))
			return false;
		*off = ph[i].p_offset + (va - ph[i].p_vaddr);
		return true;
	}
	return false;
}

/* A string table being read: strings at base + offset, offsets < size;
 * a window of it may already be in span. */
typedef struct ldso_strtab {
	int fd;
	uint64_t base, size;
	char *span;
	uint64_t span_lo, span_len;
} ldso_strtab_t;

/* A copy of the string at off, NULL when it is past the table, empty,
 * unterminated within LDSO_MAX_STR or out of memory (*oom set). */
static char *ldso_str_at(ldso_strtab_t *st, uint64_t off, bool *oom)
{
	char tmp[LDSO_MAX_STR];
	const char *p;
	uint64_t max;
	ssize_t n;
	char *s;

	if (off >= st->size)
		return NULL;
	max = st->size - off < LDSO_MAX_STR ? st->size - off : LDSO_MAX_STR;
	if (st->span && off >= st->span_lo && off - st->span_lo < st->span_len) {
		uint64_t avail = st->span_len - (off - st->span_lo);

		p = st->span + (off - st->span_lo);
		if (memchr(p, '\0', avail < max ? avail : max))
			goto found;
	}
	n = dt_ldso_pread(st->fd, tmp, max, st->base + off);
	if (n <= 0 || !memchr(tmp, '\0', (size_t)n))
		return NULL;
	p = tmp;
found:
	if (!*p)
		return NULL;
	s = strdup(p);
	if (!s)
		*oom = true;
	return s;
}

/* Read, in one pread, the part of the string table that the offsets
 * [lo, hi] fall in, when it is small. */
static void ldso_strtab_prefetch(ldso_strtab_t *st, uint64_t lo, uint64_t hi)
{
	uint64_t len;
	ssize_t n;

	if (lo > hi || lo >= st->size || hi - lo > LDSO_STR_SPAN)
		return;
	len = hi - lo + 256;
	if (len > st->size - lo)
		len = st->size - lo;
	st->span = malloc(len);
	if (!st->span)
		return;		/* only slower */
	n = dt_ldso_pread(st->fd, st->span, len, st->base + lo);
	if (n <= 0) {
		free(st->span);
		st->span = NULL;
		return;
	}
	st->span_lo = lo;
	st->span_len = (uint64_t)n;
}

/* The dynamic entries that matter, before their strings are read. */
typedef struct ldso_dyninfo {
	uint64_t strtab_va, strsz;
	bool has_strtab, has_strsz;
	uint64_t soname, rpath, runpath;	/* offsets, UINT64_MAX: none */
	uint64_t *needed;
	int nneeded;
} ldso_dyninfo_t;

static void ldso_dyn_scan(const Elf64_Dyn *dyn, size_t n, ldso_dyninfo_t *di,
			  ldso_file_t *f)
{
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t v = dyn[i].d_un.d_val;

		switch (dyn[i].d_tag) {
		case DT_NEEDED:
			if (di->nneeded < LDSO_MAX_NEEDED)
				di->needed[di->nneeded++] = v;
			break;
		case DT_STRTAB:
			di->strtab_va = v;
			di->has_strtab = true;
			break;
		case DT_STRSZ:
			di->strsz = v;
			di->has_strsz = true;
			break;
		case DT_SONAME:
			di->soname = v;
			break;
		case DT_RPATH:
			di->rpath = v;
			break;
		case DT_RUNPATH:
			di->runpath = v;
			break;
		case DT_FLAGS_1:
			f->nodeflib = (v & DF_1_NODEFLIB) != 0;
			break;
		default:
			break;
		}
	}
}

/* The strings the dynamic entries name, into f.  0 or -ENOMEM. */
static int ldso_dyn_strings(int fd, uint64_t fsize, const Elf64_Phdr *ph,
			    int phnum, ldso_dyninfo_t *di, ldso_file_t *f)
{
	ldso_strtab_t st = { .fd = fd };
	uint64_t lo = UINT64_MAX, hi = 0;
	bool oom = false;

	if (!di->has_strtab ||
	    !ldso_va_to_off(ph, phnum, di->strtab_va, &st.base) ||
	    st.base >= fsize)
		return 0;
	st.size = fsize - st.base;
	if (di->has_strsz && di->strsz < st.size)
		st.size = di->strsz;

	for (int i = 0; i < di->nneeded; i++) {
		lo = di->needed[i] < lo ? di->needed[i] : lo;
		hi = di->needed[i] > hi ? di->needed[i] : hi;
	}
	ldso_strtab_prefetch(&st, lo, hi);

	f->needed = calloc(di->nneeded > 0 ? (unsigned)di->nneeded : 1u,
			   sizeof(char *));
	if (!f->needed)
		oom = true;
	for (int i = 0; f->needed && i < di->nneeded; i++) {
		char *s = ldso_str_at(&st, di->needed[i], &oom);

		if (s)
			f->needed[f->nneeded++] = s;
	}
	if (di->soname != UINT64_MAX)
		f->soname = ldso_str_at(&st, di->soname, &oom);
	if (di->runpath != UINT64_MAX)
		f->runpath = ldso_str_at(&st, di->runpath, &oom);
	else if (di->rpath != UINT64_MAX)	/* ignored beside a RUNPATH */
		f->rpath = ldso_str_at(&st, di->rpath, &oom);
	free(st.span);
	return oom ? -ENOMEM : 0;
}

/* PT_DYNAMIC ph of the file into f.  0 or -ENOMEM; a dynamic section that
 * cannot be read leaves f without one. */
static int ldso_read_dynamic(int fd, uint64_t fsize, const Elf64_Phdr *ph,
			     int phnum, const Elf64_Phdr *dph, ldso_file_t *f)
{
	ldso_dyninfo_t di = { .soname = UINT64_MAX, .rpath = UINT64_MAX,
			      .runpath = UINT64_MAX };
	uint64_t cnt = dph->p_filesz / sizeof(Elf64_Dyn);
	Elf64_Dyn *dyn;
	ssize_t n;
	int err;

	if (dph->p_offset >= fsize)
		return 0;
	if (cnt > (fsize - dph->p_offset) / sizeof(Elf64_Dyn))
		cnt = (fsize - dph->p_offset) / sizeof(Elf64_Dyn);
	if (cnt > LDSO_MAX_DYN)
		cnt = LDSO_MAX_DYN;
	if (cnt == 0)
		return 0;
	dyn = malloc(cnt * sizeof(*dyn));
	di.needed = malloc(cnt * sizeof(uint64_t));
	if (!dyn || !di.needed) {
		free(dyn);
		free(di.needed);
		return -ENOMEM;
	}
	n = dt_ldso_pread(fd, dyn, cnt * sizeof(*dyn), dph->p_offset);
	if (n > 0) {
		ldso_dyn_scan(dyn, (size_t)n / sizeof(*dyn), &di, f);
		f->dynamic = true;
	}
	err = f->dynamic ? ldso_dyn_strings(fd, fsize, ph, phnum, &di, f) : 0;
	free(dyn);
	free(di.needed);
	return err;
}

/* PT_INTERP ph into f (absent when malformed).  0 or -ENOMEM. */
static int ldso_read_interp(int fd, uint64_t fsize, const Elf64_Phdr *ph,
			    ldso_file_t *f)
{
	char buf[LDSO_MAX_STR];

	if (ph->p_filesz < 2 || ph->p_filesz > sizeof(buf) ||
	    ph->p_offset >= fsize || ph->p_filesz > fsize - ph->p_offset)
		return 0;
	if (dt_ldso_pread(fd, buf, ph->p_filesz, ph->p_offset) !=
	    (ssize_t)ph->p_filesz || !memchr(buf, '\0', ph->p_filesz) || !buf[0])
		return 0;
	f->interp = strdup(buf);
	return f->interp ? 0 : -ENOMEM;
}

/* The program headers, from head when they are in it, else read;
 * NULL when there are none, they are malformed or out of memory (*err). */
static Elf64_Phdr *ldso_read_phdrs(int fd, uint64_t fsize, const Elf64_Ehdr *eh,
				   const unsigned char *head, size_t headlen,
				   int *err)
{
	size_t len = (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
	Elf64_Phdr *ph;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
	    eh->e_phnum > LDSO_MAX_PHNUM || eh->e_phoff >= fsize ||
	    len > fsize - eh->e_phoff)
		return NULL;
	ph = malloc(len);
	if (!ph) {
		*err = -ENOMEM;
		return NULL;
	}
	if (eh->e_phoff + len <= headlen)
		memcpy(ph, head + eh->e_phoff, len);
	else if (dt_ldso_pread(fd, ph, len, eh->e_phoff) != (ssize_t)len) {
		free(ph);
		return NULL;
	}
	return ph;
}

/* Parse the file open as fd (fsize bytes) into f.  A file that is not
 * ELF64 x86-64 leaves f->elf_ok false; 0 or -ENOMEM. */
static int ldso_parse(int fd, uint64_t fsize, ldso_file_t *f)
{
	unsigned char head[1024];
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	ssize_t n;
	int err = 0;

	n = dt_ldso_pread(fd, head, fsize < sizeof(head) ? fsize : sizeof(head), 0);
	if (n < (ssize_t)sizeof(eh))
		return 0;
	memcpy(&eh, head, sizeof(eh));
	if (!ldso_ehdr_ok(&eh))
		return 0;
	f->elf_ok = true;
	ph = ldso_read_phdrs(fd, fsize, &eh, head, (size_t)n, &err);
	if (!ph)
		return err;
	for (int i = 0; i < eh.e_phnum && !err; i++) {
		if (ph[i].p_type == PT_INTERP && !f->interp)
			err = ldso_read_interp(fd, fsize, &ph[i], f);
		else if (ph[i].p_type == PT_DYNAMIC && !f->dynamic)
			err = ldso_read_dynamic(fd, fsize, ph, eh.e_phnum,
						&ph[i], f);
	}
	free(ph);
	return err;
}

/* ---- the file cache ----------------------------------------------------------- */

static void ldso_file_free(ldso_file_t *f)
{
	for (int i = 0; i < f->nneeded; i++)
		free(f->needed[i]);
	free(f->needed);
	free(f->interp);
	free(f->soname);
	free(f->rpath);
	free(f->runpath);
	free(f);
}

static void ldso_files_flush(dt_ldso_t *ld)
{
	ldso_file_t **e;

	for (uint32_t i = 0; (e = dt_htab_next(&ld->files, &i)) != NULL;)
		ldso_file_free(*e);
	dt_htab_clear(&ld->files);
}

static void ldso_free_retired(dt_ldso_t *ld)
{
	while (ld->retired) {
		ldso_file_t *f = ld->retired;

		ld->retired = f->next;
		ldso_file_free(f);
	}
}

/* The cached entry of (st_dev, st_ino), current or stale, or NULL. */
static ldso_file_t *ldso_file_find(dt_ldso_t *ld, const struct stat *st)
{
	ldso_file_key_t k = { st->st_dev, st->st_ino };
	ldso_file_t **e = dt_htab_find(&ld->files, ldso_hash_key(&k), &k);

	return e != NULL ? *e : NULL;
}

static bool ldso_file_current(const ldso_file_t *f, const struct stat *st)
{
	return f->size == st->st_size && ldso_same_time(&f->mtime, &st->st_mtim);
}

/* The entry of the regular file open as fd whose fstat is st, parsed now
 * when not cached or changed (the stale entry is retired: pointers to it
 * stay valid until the resolution ends).  NULL when out of memory. */
static ldso_file_t *ldso_file_get(dt_ldso_t *ld, int fd, const struct stat *st)
{
	ldso_file_key_t k = { st->st_dev, st->st_ino };
	ldso_file_t *old = ldso_file_find(ld, st), **e, *f;

	if (old && ldso_file_current(old, st))
		return old;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	/* the slot of old, or a new one, filled at once */
	if (ldso_parse(fd, (uint64_t)st->st_size, f) < 0 ||
	    !(e = dt_htab_insert(&ld->files, ldso_hash_key(&k), &k, NULL))) {
		ldso_file_free(f);
		return NULL;
	}
	if (old) {		/* still the same object of this resolution */
		f->stamp = old->stamp;
		f->index = old->index;
		old->next = ld->retired;
		ld->retired = old;
	}
	*e = f;
	return f;
}

/* The entry of the regular file at path; NULL when it is absent, not a
 * regular file, the probe budget is spent, or out of memory (run->err). */
static ldso_file_t *ldso_file_at(ldso_run_t *run, const char *path)
{
	ldso_file_t *f;
	struct stat st;
	int fd;

	if (run->probes_left <= 0)
		return NULL;
	run->probes_left--;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	f = ldso_file_find(run->ld, &st);
	if (f && ldso_file_current(f, &st))
		return f;
	/* what stat() saw, or nothing: swapped for a FIFO since, the name
	 * is not waited on (dt_untrusted.h) */
	fd = dt_open_untrusted_id(path, st.st_dev, st.st_ino, &st);
	if (fd < 0)
		return NULL;
	f = ldso_file_get(run->ld, fd, &st);
	close(fd);
	if (!f)
		run->err = -ENOMEM;
	return f;
}

/* ---- the directory table ------------------------------------------------------ */

static void ldso_dirs_flush(dt_ldso_t *ld)
{
	ldso_dir_t **e;

	for (uint32_t i = 0; (e = dt_htab_next(&ld->dirs, &i)) != NULL;) {
		free((*e)->path);
		free(*e);
	}
	dt_htab_clear(&ld->dirs);
}

static void ldso_dir_check(ldso_run_t *run, ldso_dir_t *d)
{
	char sub[PATH_MAX];
	struct stat st;

	run->probes_left--;
	if (stat(d->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		d->exists = false;
		d->subs = 0;
		return;
	}
	if (d->exists && d->dev == st.st_dev && d->ino == st.st_ino &&
	    ldso_same_time(&d->mtime, &st.st_mtim))
		return;
	d->exists = true;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->mtime = st.st_mtim;
	d->subs = 0;
	for (unsigned i = 0; i < sizeof(ldso_sub_names) / sizeof(ldso_sub_names[0]); i++) {
		run->probes_left--;
		if (ldso_join(sub, sizeof(sub), d->path, ldso_sub_names[i]) &&
		    stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			d->subs |= 1u << i;
	}
}

/* What is known of directory path, checked once per resolution; NULL when
 * out of memory (run->err). */
static ldso_dir_t *ldso_dir_get(ldso_run_t *run, const char *path)
{
	dt_ldso_t *ld = run->ld;
	uint64_t h = ldso_hash_str(path);
	ldso_dir_t **e = dt_htab_find(&ld->dirs, h, path), *d = e ? *e : NULL;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (d && (d->path = strdup(path)) &&
		    (e = dt_htab_insert(&ld->dirs, h, path, NULL))) {
			d->stamp = ld->gen - 1;
			*e = d;
		} else {
			if (d)
				free(d->path);
			free(d);
			run->err = -ENOMEM;
			return NULL;
		}
	}
	if (d->stamp != ld->gen) {
		d->stamp = ld->gen;
		ldso_dir_check(run, d);
	}
	return d;
}

/* ---- ld.so.cache ---------------------------------------------------------------- */

/* Forget the entries (and the file, unless keep_file). */
static void ldso_cache_clear(ldso_cache_t *c, bool keep_file)
{
	ldso_cache_t kept = *c;

	free(c->buf);
	free(c->values);
	free(c->chain);
	dt_htab_fini(&c->names);
	*c = (ldso_cache_t){ .names = c->names };
	if (keep_file) {
		c->size = kept.size;
		c->loaded = kept.loaded;
		c->dev = kept.dev;
		c->ino = kept.ino;
		c->mtime = kept.mtime;
	}
}

static uint32_t ldso_get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether off starts a NUL-terminated string inside the cache. */
static bool ldso_cache_str_ok(const ldso_cache_t *c, uint32_t off)
{
	return off < c->size && memchr(c->buf + off, '\0', c->size - off);
}

/* Keep the x86-64 libc6 entries of c->buf, by name.  false when
 * malformed or out of memory. */
static bool ldso_cache_index(ldso_cache_t *c)
{
	uint32_t nlibs;

	if (c->size < LDSO_CACHE_HDR_SIZE ||
	    memcmp(c->buf, LDSO_CACHE_MAGIC, strlen(LDSO_CACHE_MAGIC)) != 0)
		return false;
	nlibs = ldso_get32(c->buf + 20);
	if ((uint64_t)nlibs * LDSO_CACHE_ENT_SIZE > c->size - LDSO_CACHE_HDR_SIZE)
		return false;
	c->values = malloc((nlibs + 1) * sizeof(uint32_t));
	c->chain = malloc((nlibs + 1) * sizeof(uint32_t));
	if (!c->values || !c->chain || dt_htab_reserve(&c->names, nlibs) < 0)
		return false;
	for (uint32_t i = 0; i < nlibs; i++) {
		const char *e = c->buf + LDSO_CACHE_HDR_SIZE + (size_t)i * LDSO_CACHE_ENT_SIZE;
		uint32_t key = ldso_get32(e + 4), value = ldso_get32(e + 8);
		ldso_cache_name_t *n;

		if (ldso_get32(e) != LDSO_CACHE_X8664_LIBC6 ||
		    !ldso_cache_str_ok(c, key) || !ldso_cache_str_ok(c, value) ||
		    c->buf[value] != '/')
			continue;
		n = dt_htab_insert(&c->names, ldso_hash_str(c->buf + key),
				   c->buf + key, NULL);
		if (!n)
			return false;
		n->name = c->buf + key;
		c->values[c->nents] = value;
		c->chain[c->nents] = n->first;
		n->first = ++c->nents;
	}
	return true;
}

/* Read ld.so.cache again when it changed since it was read (or went). */
static void ldso_cache_refresh(dt_ldso_t *ld)
{
	ldso_cache_t *c = &ld->cache;
	struct stat st;
	ssize_t n;
	int fd;

	if (stat(LDSO_CACHE_PATH, &st) < 0) {
		if (c->loaded)
			ldso_cache_clear(c, false);
		return;
	}
	if (c->loaded && c->dev == st.st_dev && c->ino == st.st_ino &&
	    (off_t)c->size == st.st_size && ldso_same_time(&c->mtime, &st.st_mtim))
		return;
	ldso_cache_clear(c, false);
	c->loaded = true;	/* even when malformed: not read again */
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->mtime = st.st_mtim;
	c->size = (size_t)st.st_size;
	if (!S_ISREG(st.st_mode) || st.st_size > LDSO_CACHE_MAX_SIZE)
		goto bad;
	fd = open(LDSO_CACHE_PATH, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		goto bad;
	c->buf = malloc(c->size + 1);
	n = c->buf ? dt_ldso_pread(fd, c->buf, c->size, 0) : -ENOMEM;
	close(fd);
	if (n != (ssize_t)c->size || !ldso_cache_index(c))
		goto bad;
	return;
bad:
	ldso_cache_clear(c, true);	/* loaded: not read again */
}

/* ---- dynamic string tokens ----------------------------------------------------- */

/* The directory of an object's path into buf; false when unknown. */
static bool ldso_origin(const char *path, char *buf, size_t size)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t len;

	if (!slash || path[0] != '/')
		return false;
	len = slash == path ? 1 : (size_t)(slash - path);
	if (len >= size)
		return false;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return true;
}

/* The token at s ("$NAME" or "${NAME}"): its length in *tlen and its value,
 * NULL when s starts no token this resolver knows. */
static const char *ldso_dst(const char *s, size_t n, const char *origin,
			    const char *platform, size_t *tlen, bool *unknown)
{
	static const struct { const char *name; int which; } toks[] = {
		{ "ORIGIN", 0 }, { "LIB", 1 }, { "PLATFORM", 2 },
	};

	for (unsigned i = 0; i < sizeof(toks) / sizeof(toks[0]); i++) {
		size_t l = strlen(toks[i].name);
		bool brace = n > 1 && s[1] == '{';
		const char *v;

		if (brace ? (n < l + 3 || memcmp(s + 2, toks[i].name, l) || s[l + 2] != '}')
			  : (n < l + 1 || memcmp(s + 1, toks[i].name, l) ||
			     (n > l + 1 && (s[l + 1] == '_' ||
			      (s[l + 1] >= 'A' && s[l + 1] <= 'Z') ||
			      (s[l + 1] >= 'a' && s[l + 1] <= 'z') ||
			      (s[l + 1] >= '0' && s[l + 1] <= '9')))))
			continue;
		*tlen = brace ? l + 3 : l + 1;
		v = toks[i].which == 0 ? origin :
		    toks[i].which == 1 ? LDSO_LIB : platform;
		if (!v)
			*unknown = true;
		return v;
	}
	return NULL;
}

/* s[0..n) with its tokens replaced, into buf; false when a token's value is
 * unknown ($ORIGIN of a relative path) or it does not fit.  Unknown "$"
 * sequences are kept as they are. */
static bool ldso_expand(const char *s, size_t n, const char *origin,
			const char *platform, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t tlen = 0;
		bool unknown = false;
		const char *v = s[i] == '$' ?
			ldso_dst(s + i, n - i, origin, platform, &tlen, &unknown) : NULL;

		if (unknown)
			return false;
		if (!v) {
			if (o + 1 >= size)
				return false;
			buf[o++] = s[i++];
			continue;
		}
		if (o + strlen(v) >= size)
			return false;
		memcpy(buf + o, v, strlen(v));
		o += strlen(v);
		i += tlen;
	}
	buf[o] = '\0';
	return true;
}

static bool ldso_has_platform(const char *s, size_t n)
{
	return memmem(s, n, "$PLATFORM", 9) || memmem(s, n, "${PLATFORM}", 11);
}

/* ---- one resolution ------------------------------------------------------------ */

/* The object name s stands for: >= 0 an object, -2 - i searched in vain by
 * object i, -1 unknown. */
static int ldso_name_find(const ldso_run_t *run, const char *s)
{
	const ldso_name_t *e = dt_htab_find(&run->names, ldso_hash_str(s), s);

	return e ? e->obj : -1;
}

/* Remember that s names object obj (s must outlive the resolution); an
 * object replaces a failed search, nothing else is replaced. */
static void ldso_name_add(ldso_run_t *run, const char *s, int obj)
{
	bool added;
	ldso_name_t *e = s ? dt_htab_insert(&run->names, ldso_hash_str(s), s,
					    &added) : NULL;

	if (s && !e)
		run->err = -ENOMEM;
	else if (e && (added || (e->obj < 0 && obj >= 0)))
		*e = (ldso_name_t){ .s = s, .obj = obj };
}

/* Add file f, found at path (taken over), needed by object loader under
 * name reqname; a file already loaded only gains the name. */
static void ldso_add_object(ldso_run_t *run, ldso_file_t *f, char *path,
			    int loader, const char *reqname)
{
	unsigned gen = run->ld->gen;
	int i;

	if (f->stamp == gen) {
		ldso_name_add(run, reqname, f->index);
		free(path);
		return;
	}
	if (run->nobjs >= DT_LDSO_MAX_FILES) {
		free(path);
		return;
	}
	if (DT_ARRAY_ROOM(run->objs, run->nobjs, run->objs_cap) < 0) {
		run->err = -ENOMEM;
		free(path);
		return;
	}
	i = run->nobjs++;
	run->objs[i] = (ldso_obj_t){ .f = f, .path = path, .loader = loader };
	f->stamp = gen;
	f->index = i;
	ldso_name_add(run, reqname, i);
	ldso_name_add(run, path, i);
	ldso_name_add(run, f->soname, i);
}

/* Keep the file at path as a candidate of the search running now when it
 * is ELF64 x86-64. */
static void ldso_try(ldso_run_t *run, const char *path)
{
	ldso_file_t *f;
	char *copy;

	if (run->nfound >= LDSO_MAX_FOUND)
		return;
	f = ldso_file_at(run, path);
	if (!f || !f->elf_ok)
		return;
	copy = strdup(path);
	if (!copy) {
		run->err = -ENOMEM;
		return;
	}
	run->found[run->nfound++] = (ldso_found_t){ .f = f, .path = copy };
}

/* dir/sub/name, when it fits, as a candidate. */
static void ldso_try_in(ldso_run_t *run, const char *dir, const char *sub,
			const char *name)
{
	char d[PATH_MAX], p[PATH_MAX];

	if (sub && !ldso_join(d, sizeof(d), dir, sub))
		return;
	if (ldso_join(p, sizeof(p), sub ? d : dir, name))
		ldso_try(run, p);
}

/* The legacy hwcaps subdirectories [tls/][PLATFORM/][avx512_1/][x86_64]
 * that exist under dir (subs), most specific first. */
static void ldso_try_legacy(ldso_run_t *run, const char *dir, unsigned subs,
			    const char *name)
{
	static const char *const plats[] = { "haswell", "xeon_phi", NULL };
	static const unsigned plat_bits[] = { SUB_HASWELL, SUB_XEON_PHI, 0 };

	for (int tls = 1; tls >= 0; tls--)
		for (int p = 0; p < 3; p++)
			for (int avx = 1; avx >= 0; avx--)
				for (int x = 1; x >= 0; x--) {
					unsigned first = tls ? SUB_TLS : plats[p] ?
						plat_bits[p] : avx ? SUB_AVX512 :
						x ? SUB_X86_64 : 0;
					char sub[64];
					int n;

					if (!first || !(subs & first))
						continue;
					n = snprintf(sub, sizeof(sub), "%s%s%s%s%s",
						     tls ? "tls/" : "",
						     plats[p] ? plats[p] : "",
						     plats[p] ? "/" : "",
						     avx ? "avx512_1/" : "",
						     x ? "x86_64/" : "");
					sub[n - 1] = '\0';	/* the last '/' */
					ldso_try_in(run, dir, sub, name);
				}
}

/* name in directory dir and its hwcaps subdirectories. */
static void ldso_search_dir(ldso_run_t *run, const char *dir, const char *name)
{
	ldso_dir_t *d = ldso_dir_get(run, dir);
	char sub[64];

	if (!d || !d->exists)
		return;
	if (d->subs & SUB_HWCAPS)
		for (int i = 0; i < 3; i++) {
			snprintf(sub, sizeof(sub), "glibc-hwcaps/%s", ldso_hwcaps[i]);
			ldso_try_in(run, dir, sub, name);
		}
	if (d->subs & ~SUB_HWCAPS)
		ldso_try_legacy(run, dir, d->subs, name);
	ldso_try_in(run, dir, NULL, name);
}

/* name in each directory of list (separated by any of seps) in turn, its
 * tokens expanded with origin; true when a directory held it. */
static bool ldso_search_list(ldso_run_t *run, const char *list, const char *seps,
			     const char *origin, const char *name)
{
	char dir[PATH_MAX];

	for (const char *s = list; *s && !run->err;) {
		size_t n = strcspn(s, seps);
		int nplat = ldso_has_platform(s, n) ? 3 : 1;

		for (int p = 0; p < nplat; p++)
			if (n && ldso_expand(s, n, origin, ldso_platforms[p],
					     dir, sizeof(dir)) && dir[0] == '/')
				ldso_search_dir(run, dir, name);
		if (run->nfound)
			return true;
		s += n;
		if (*s)
			s++;
	}
	return false;
}

static bool ldso_in_default_dir(const char *path)
{
	char dir[PATH_MAX];

	if (!ldso_origin(path, dir, sizeof(dir)))
		return false;
	for (unsigned i = 0; i < sizeof(ldso_default_dirs) / sizeof(ldso_default_dirs[0]); i++)
		if (strcmp(dir, ldso_default_dirs[i]) == 0)
			return true;
	return false;
}

/* Every ld.so.cache entry of name, skipping the default directories when
 * nodeflib; true when one was a candidate. */
static bool ldso_search_cache(ldso_run_t *run, const char *name, bool nodeflib)
{
	const ldso_cache_t *c = &run->ld->cache;
	const ldso_cache_name_t *n = dt_htab_find(&c->names,
						  ldso_hash_str(name), name);

	for (uint32_t e = n ? n->first : 0; e; e = c->chain[e - 1]) {
		const char *path = c->buf + c->values[e - 1];

		if (!(nodeflib && ldso_in_default_dir(path)))
			ldso_try(run, path);
	}
	return run->nfound > 0;
}

static const char *ldso_obj_origin(const ldso_run_t *run, int i, char *buf,
				   size_t size)
{
	return ldso_origin(run->objs[i].path, buf, size) ? buf : NULL;
}

/* The search of a needed name without '/' for object i, in ld.so's order. */
static void ldso_search_name(ldso_run_t *run, int i, const char *name)
{
	const ldso_file_t *f = run->objs[i].f;
	char origin[PATH_MAX];
	int depth = 0;

	if (!f->runpath)
		for (int l = i; l >= 0 && depth < LDSO_MAX_CHAIN;
		     l = run->objs[l].loader, depth++)
			if (run->objs[l].f->rpath &&
			    ldso_search_list(run, run->objs[l].f->rpath, ":",
					     ldso_obj_origin(run, l, origin, sizeof(origin)),
					     name))
				return;
	if (run->libpath &&
	    ldso_search_list(run, run->libpath, ":;",
			     ldso_obj_origin(run, 0, origin, sizeof(origin)), name))
		return;
	if (f->runpath &&
	    ldso_search_list(run, f->runpath, ":",
			     ldso_obj_origin(run, i, origin, sizeof(origin)), name))
		return;
	if (ldso_search_cache(run, name, f->nodeflib) || f->nodeflib)
		return;
	for (unsigned d = 0; d < sizeof(ldso_default_dirs) / sizeof(ldso_default_dirs[0]); d++) {
		ldso_search_dir(run, ldso_default_dirs[d], name);
		if (run->nfound)
			return;
	}
}

/* A needed name that is a path (has a '/' or a token), for object i. */
static void ldso_search_path(ldso_run_t *run, int i, const char *name)
{
	size_t n = strlen(name);
	int nplat = ldso_has_platform(name, n) ? 3 : 1;
	char origin[PATH_MAX], path[PATH_MAX];

	for (int p = 0; p < nplat; p++)
		if (ldso_expand(name, n, ldso_obj_origin(run, i, origin, sizeof(origin)),
				ldso_platforms[p], path, sizeof(path)) &&
		    path[0] == '/')
			ldso_try(run, path);
}

/* Needed name of object i: already loaded, or searched and added.  A name
 * that object i searched in vain is not searched again (the table holds it
 * as -2 - i: the same search would fail the same way). */
static void ldso_need(ldso_run_t *run, int i, const char *name)
{
	int known = ldso_name_find(run, name);

	if (known >= 0 || known == -2 - i)
		return;
	run->nfound = 0;
	if (strchr(name, '/') || strchr(name, '$'))
		ldso_search_path(run, i, name);
	else
		ldso_search_name(run, i, name);
	if (!run->nfound)
		ldso_name_add(run, name, -2 - i);
	for (int k = 0; k < run->nfound; k++)
		ldso_add_object(run, run->found[k].f, run->found[k].path, i, name);
	run->nfound = 0;
}

/* The executable's path: path, else what /proc/self/fd/FD links to. */
static char *ldso_exe_path(int fd, const char *path)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (path)
		return strdup(path);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* Start a resolution: a new generation; caches trimmed when big. */
static void ldso_begin(dt_ldso_t *ld)
{
	if (dt_htab_count(&ld->files) > LDSO_MAX_CACHED_FILES)
		ldso_files_flush(ld);
	if (dt_htab_count(&ld->dirs) > LDSO_MAX_CACHED_DIRS)
		ldso_dirs_flush(ld);
	if (++ld->gen == 0) {	/* wrapped: no stamp may look current */
		ldso_files_flush(ld);
		ldso_dirs_flush(ld);
		ld->gen = 1;
	}
	ldso_cache_refresh(ld);
}

/* The breadth-first walk of the needed names, from the executable. */
static void ldso_walk(ldso_run_t *run, int interp)
{
	int searches = LDSO_MAX_SEARCHES;

	for (int i = 0; i < run->nobjs && !run->err; i++) {
		const ldso_file_t *f = run->objs[i].f;

		if (i == interp)	/* ld.so needs nothing */
			continue;
		for (int k = 0; k < f->nneeded && !run->err; k++) {
			if (searches-- <= 0 || run->probes_left <= 0)
				return;
			ldso_need(run, i, f->needed[k]);
		}
	}
}

/* The executable (object 0) and its interpreter (object 1 when found). */
static void ldso_load_exe(ldso_run_t *run, int fd, const struct stat *st,
			  char *exe, int *interp)
{
	ldso_file_t *f = ldso_file_get(run->ld, fd, st), *g;
	char *ipath;

	*interp = -1;
	if (!f) {
		free(exe);
		run->err = -ENOMEM;
		return;
	}
	ldso_add_object(run, f, exe, -1, NULL);
	if (!f->elf_ok || !f->dynamic || !f->interp || f->interp[0] != '/')
		return;
	g = ldso_file_at(run, f->interp);
	if (!g || !g->elf_ok)
		return;
	ipath = strdup(f->interp);
	if (!ipath) {
		run->err = -ENOMEM;
		return;
	}
	ldso_add_object(run, g, ipath, 0, f->interp);
	if (run->nobjs == 2)
		*interp = 1;
}

static void ldso_run_free(ldso_run_t *run)
{
	for (int i = 0; i < run->nobjs; i++)
		free(run->objs[i].path);
	free(run->objs);
	dt_htab_fini(&run->names);
	for (int k = 0; k < run->nfound; k++)
		free(run->found[k].path);
}

/* ---- the interface --------------------------------------------------------------- */

dt_ldso_t *dt_ldso_open(void)
{
	dt_ldso_t *ld = calloc(1, sizeof(*ld));

	if (!ld)
		return NULL;
	dt_htab_init(&ld->files, sizeof(ldso_file_t *), ldso_file_eq);
	dt_htab_init(&ld->dirs, sizeof(ldso_dir_t *), ldso_dir_eq);
	dt_htab_init(&ld->cache.names, sizeof(ldso_cache_name_t),
		     ldso_cache_name_eq);
	ldso_cache_refresh(ld);
	return ld;
}

void dt_ldso_close(dt_ldso_t *ld)
{
	if (!ld)
		return;
	ldso_files_flush(ld);
	ldso_free_retired(ld);
	ldso_dirs_flush(ld);
	ldso_cache_clear(&ld->cache, false);
	dt_htab_fini(&ld->files);
	dt_htab_fini(&ld->dirs);
	free(ld);
}

void dt_ldso_free_list(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int dt_ldso_startup_files(dt_ldso_t *ld, int fd, const char *path,
			  const char *libpath, char ***out)
{
	ldso_run_t run = { .ld = ld, .libpath = libpath,
			   .probes_left = LDSO_MAX_PROBES,
			   .names = DT_HTAB_INIT(ldso_name_t, ldso_name_eq) };
	struct stat st;
	char **v, *exe;
	int interp;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!ld || fd < 0)
		return -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;		/* what execve says of it */
	exe = ldso_exe_path(fd, path);
	if (!exe)
		return errno ? -errno : -ENOMEM;
	ldso_begin(ld);
	ldso_load_exe(&run, fd, &st, exe, &interp);
	if (!run.err && interp >= 0)
		ldso_walk(&run, interp);
	v = run.err ? NULL : malloc((size_t)run.nobjs * sizeof(*v));
	if (!v) {
		ldso_run_free(&run);
		ldso_free_retired(ld);
		return run.err ? run.err : -ENOMEM;
	}
	for (int i = 0; i < run.nobjs; i++) {
		v[i] = run.objs[i].path;
		run.objs[i].path = NULL;
	}
	*out = v;
	interp = run.nobjs;
	ldso_run_free(&run);
	ldso_free_retired(ld);
	return interp;
}
