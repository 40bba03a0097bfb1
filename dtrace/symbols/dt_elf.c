/* SPDX-License-Identifier: MIT */
/*
 * dt_elf.c: ELF files, their function symbols, and the modules of a process.
 *
 * Compiled twice: into the engine and into libdtcommon.a for the plugins, so
 * it uses nothing of the engine (no dt_set_error, no dt_zalloc): functions
 * return 0 or -errno and write a message for the user into the caller's
 * buffer.
 *
 * Invariants.
 *  - A file is parsed at most once per cache, keyed on (device, inode); its
 *    descriptor stays open for dt_elf_read() until the cache is destroyed,
 *    so a file replaced on disk keeps being read consistently.  A file
 *    that every holder released (dt_elf_release(), counted per
 *    dt_elf_open()) goes at once: a reader that only looks at files, as
 *    usdt looks at each one an exec maps, holds no descriptor nor memory
 *    for those it does not keep.
 *  - A path may come from another process (its mappings, its root, the
 *    debug file of its file): it is opened by dt_open_untrusted() only,
 *    which never blocks on a FIFO swapped in and opens nothing but a
 *    regular file; reads stop at the size the open descriptor had.
 *    libelf reads it with pread() (ELF_C_READ), never through a mapping:
 *    the file's owner may truncate it while it is read, and a mapped page
 *    past the new end would raise SIGBUS in dtrace.
 *  - Opening a file reads only its headers (ELF, program and section);
 *    symbols, and the build-id and debug link that lead to a stripped
 *    file's debug file, are read on the first dt_elf_symbols() call (a
 *    process maps dozens of libraries, a script usually looks into one
 *    or two).
 *  - Symbol names are copied into one block per file; dt_elf_sym_t.name
 *    points into it.  Versioned names are stored bare; a non-default
 *    version (memcpy@GLIBC_2.2.5 next to memcpy@@GLIBC_2.14) is left out,
 *    as a user naming "memcpy" means the default one.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dt_array.h"
#include "dt_elf.h"
#include "dt_procfs.h"
#include "dt_procmaps.h"
#include "dt_untrusted.h"

#define DT_ELF_DEBUG_DIR "/usr/lib/debug"

struct dt_elf_cache {
	dt_elf_file_t *files;
	char *debug_dir;
	bool with_vdso;		/* processes' modules include the vDSO */
};

static void msgf(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void msgf(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (msg == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

const char *dt_elf_debug_dir(void)
{
	const char *d = getenv("DTRACE_DEBUG_DIR");

	return d != NULL && d[0] == '/' ? d : DT_ELF_DEBUG_DIR;
}

char **dt_elf_debuginfo_path(void)
{
	static char *path;

	if (path == NULL && asprintf(&path, ":.debug:%s",
				     dt_elf_debug_dir()) < 0)
		path = NULL;	/* libdwfl's default then */
	return &path;
}

dt_elf_cache_t *dt_elf_cache_create(void)
{
	dt_elf_cache_t *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->debug_dir = strdup(dt_elf_debug_dir());
	if (c->debug_dir == NULL) {
		free(c);
		return NULL;
	}
	elf_version(EV_CURRENT);
	return c;
}

static void file_free(dt_elf_file_t *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f->segs);
	free(f->syms);
	free(f->byname);
	free(f->names);
	free(f->debug_path);
	free(f->debuglink);
	free(f->scns);
	free(f->scn_names);
	free(f->stapsdt);
	free(f->stapsdt_text);
	free(f);
}

void dt_elf_cache_destroy(dt_elf_cache_t *cache)
{
	dt_elf_file_t *f, *next;

	if (cache == NULL)
		return;
	for (f = cache->files; f != NULL; f = next) {
		next = f->next;
		file_free(f);
	}
	free(cache->debug_dir);
	free(cache);
}

int dt_elf_cache_set_debug_dir(dt_elf_cache_t *cache, const char *dir)
{
	char *d = strdup(dir);

	if (d == NULL)
		return -ENOMEM;
	free(cache->debug_dir);
	cache->debug_dir = d;
	return 0;
}

/* ---- headers ---------------------------------------------------------- */

static int read_segments(Elf *e, dt_elf_file_t *f)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return -EINVAL;
	f->segs = calloc(n ? n : 1, sizeof(*f->segs));
	if (f->segs == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nsegs++] = (dt_elf_seg_t){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.flags = ph.p_flags,
		};
	}
	return 0;
}

/* The GNU build-id note, from any SHT_NOTE section. */
static void read_build_id(Elf *e, uint8_t *id, size_t *idlen, size_t idmax)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*idlen = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz <= idmax) {
				memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
				*idlen = nh.n_descsz;
				return;
			}
		}
	}
}

const uint8_t *dt_elf_build_id(dt_elf_cache_t *cache, const dt_elf_file_t *cf,
			       size_t *len)
{
	dt_elf_file_t *f = (dt_elf_file_t *)cf;	/* the cache owns it */
	Elf *e;

	(void)cache;
	if (!f->build_id_read && f->build_id_len == 0 &&
	    (e = elf_begin(f->fd, ELF_C_READ, NULL)) != NULL) {
		read_build_id(e, f->build_id, &f->build_id_len,
			      sizeof(f->build_id));
		elf_end(e);
	}
	f->build_id_read = true;
	*len = f->build_id_len;
	return f->build_id;
}

static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *shp)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *n;

		if (gelf_getshdr(scn, shp) == NULL)
			continue;
		n = elf_strptr(e, shstrndx, shp->sh_name);
		if (n != NULL && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static char *read_debuglink(Elf *e)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".gnu_debuglink", &sh);
	Elf_Data *d;

	if (scn == NULL || sh.sh_type == SHT_NOBITS ||
	    (d = elf_getdata(scn, NULL)) == NULL || d->d_size == 0)
		return NULL;
	if (memchr(d->d_buf, '\0', d->d_size) == NULL)
		return NULL;
	return strdup(d->d_buf);
}

/* Every section header, names packed in one block. */
static int read_sections(Elf *e, dt_elf_file_t *f)
{
	size_t shstrndx, n = 0, len = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrnum(e, &n) != 0 || n == 0 ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		return 0;	/* none: a file may have no section headers */
	f->scns = calloc(n, sizeof(*f->scns));
	if (f->scns == NULL)
		return -ENOMEM;
	while ((scn = elf_nextscn(e, scn)) != NULL && f->nscns < (int)n) {
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		f->scns[f->nscns++] = (dt_elf_scn_t){
			.name = name ? name : "",	/* libelf's, for now */
			.type = sh.sh_type, .flags = sh.sh_flags,
			.addr = sh.sh_addr, .offset = sh.sh_offset,
			.size = sh.sh_size,
		};
		len += strlen(f->scns[f->nscns - 1].name) + 1;
	}
	if ((f->scn_names = malloc(len ? len : 1)) == NULL)
		return -ENOMEM;
	len = 0;
	for (int i = 0; i < f->nscns; i++) {	/* copied before elf_end() */
		size_t nlen = strlen(f->scns[i].name) + 1;

		memcpy(f->scn_names + len, f->scns[i].name, nlen);
		f->scns[i].name = f->scn_names + len;
		len += nlen;
	}
	return 0;
}

const dt_elf_scn_t *dt_elf_section(const dt_elf_file_t *f, const char *name)
{
	for (int i = 0; i < f->nscns; i++)
		if (strcmp(f->scns[i].name, name) == 0)
			return &f->scns[i];
	return NULL;
}

static int read_headers(dt_elf_file_t *f, char *msg, size_t msglen)
{
	Elf *e = elf_begin(f->fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	int err;

	if (e == NULL || elf_kind(e) != ELF_K_ELF ||
	    gelf_getehdr(e, &eh) == NULL) {
		msgf(msg, msglen, "%s is not an ELF file", f->path);
		if (e)
			elf_end(e);
		return -ENOEXEC;
	}
	f->etype = eh.e_type;
	f->entry = eh.e_entry;
	f->elfclass = gelf_getclass(e);
	err = read_segments(e, f);
	if (err == 0)
		err = read_sections(e, f);
	if (err != 0)
		msgf(msg, msglen, "%s: cannot read its program headers",
		     f->path);
	elf_end(e);
	return err;
}

int dt_elf_open(dt_elf_cache_t *cache, const char *path,
		const dt_elf_file_t **fp, char *msg, size_t msglen)
{
	struct stat st;
	dt_elf_file_t *f;
	int fd, err;

	/* the path may come from a process: never blocks (dt_untrusted.h) */
	fd = dt_open_untrusted(path, &st);
	if (fd < 0) {
		if (fd == -ENXIO)
			msgf(msg, msglen, "%s is not a regular file", path);
		else
			msgf(msg, msglen, "cannot open %s: %s", path,
			     strerror(-fd));
		return fd;
	}
	for (f = cache->files; f != NULL; f = f->next) {
		if (f->dev == st.st_dev && f->ino == st.st_ino &&
		    f->size == st.st_size &&
		    f->mtime.tv_sec == st.st_mtim.tv_sec &&
		    f->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			close(fd);
			f->refs++;
			*fp = f;
			return 0;
		}
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL || (f->path = strdup(path)) == NULL) {
		free(f);
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->refs = 1;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	if ((err = read_headers(f, msg, msglen)) != 0) {
		file_free(f);
		return err;
	}
	f->next = cache->files;
	cache->files = f;
	*fp = f;
	return 0;
}

void dt_elf_release(dt_elf_cache_t *cache, const dt_elf_file_t *f)
{
	dt_elf_file_t **pp;

	for (pp = &cache->files; *pp != NULL; pp = &(*pp)->next) {
		if (*pp != f)
			continue;
		if (--(*pp)->refs > 0)
			return;
		dt_elf_file_t *gone = *pp;
		*pp = gone->next;
		file_free(gone);
		return;
	}
}

/* ---- symbols ---------------------------------------------------------- */

/* Symbols as they are gathered, before their names are packed. */
typedef struct symbuf {
	dt_elf_sym_t *syms;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
} symbuf_t;

static int symbuf_add(symbuf_t *sb, const char *name, size_t namelen,
		      const GElf_Sym *s)
{
	if (DT_ARRAY_ROOM(sb->syms, sb->n, sb->cap) != 0 ||
	    DT_ARRAY_NEED(sb->names, sb->ncap, sb->nlen + namelen + 1) != 0)
		return -ENOMEM;
	memcpy(sb->names + sb->nlen, name, namelen);
	sb->names[sb->nlen + namelen] = '\0';
	/* the name is an offset until the block stops moving */
	sb->syms[sb->n++] = (dt_elf_sym_t){
		.name = (const char *)(uintptr_t)sb->nlen,
		.addr = s->st_value, .size = s->st_size,
		.bind = GELF_ST_BIND(s->st_info),
		.type = GELF_ST_TYPE(s->st_info),
	};
	sb->nlen += namelen + 1;
	return 0;
}

static bool is_function(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       s->st_shndx != SHN_UNDEF && s->st_value != 0;
}

/* Read the function symbols of one symbol table section.  versym is the
 * .gnu.version data of a .dynsym, or NULL. */
static int read_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		       Elf_Data *versym, symbuf_t *sb)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;

	if (d == NULL || sh->sh_entsize == 0)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name, *at;
		size_t len;
		int err;

		if (gelf_getsym(d, (int)i, &s) == NULL || !is_function(&s))
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (name == NULL || *name == '\0')
			continue;
		if (versym != NULL && (i + 1) * sizeof(GElf_Versym) <=
		    versym->d_size &&
		    (((GElf_Versym *)versym->d_buf)[i] & 0x8000))
			continue;	/* hidden: a non-default version */
		len = strlen(name);
		if ((at = strchr(name, '@')) != NULL) {
			if (at[1] != '@')
				continue;	/* name@VER: not the default */
			len = (size_t)(at - name);
		}
		if ((err = symbuf_add(sb, name, len, &s)) != 0)
			return err;
	}
	return 0;
}

/* Read .symtab (if want_symtab) and .dynsym (if want_dynsym) of e. */
static int read_elf_symbols(Elf *e, bool want_symtab, bool want_dynsym,
			    symbuf_t *sb, bool *had_symtab)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *symtab = NULL;
	GElf_Shdr sh, dynsh, symsh;
	Elf_Data *versym = NULL;
	int err = 0;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versym = elf_getdata(scn, NULL);
		}
	}
	if (had_symtab)
		*had_symtab = symtab != NULL;
	if (want_symtab && symtab)
		err = read_symtab(e, symtab, &symsh, NULL, sb);
	if (err == 0 && want_dynsym && dynsym)
		err = read_symtab(e, dynsym, &dynsh, versym, sb);
	return err;
}

/* A candidate debug file: a regular file, not the file itself, that
 * carries the file's build-id when the file has one.  Its descriptor in
 * *fdp.  Its path derives from the file's, which a process may name. */
static Elf *open_debug_candidate(const dt_elf_debug_key_t *k,
				 const char *path, int *fdp)
{
	struct stat st;
	uint8_t id[64];
	size_t idlen;
	Elf *e;
	int fd;

	if ((fd = dt_open_untrusted(path, &st)) < 0)
		return NULL;
	if (st.st_dev == k->dev && st.st_ino == k->ino) {
		close(fd);
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e == NULL || elf_kind(e) != ELF_K_ELF)
		goto fail;
	if (k->build_id_len) {
		read_build_id(e, id, &idlen, sizeof(id));
		if (idlen != k->build_id_len ||
		    memcmp(id, k->build_id, idlen) != 0)
			goto fail;
	}
	*fdp = fd;
	return e;
fail:
	if (e)
		elf_end(e);
	close(fd);
	return NULL;
}

/* Find the separate debug file of k: by build-id under debug_dir, then by
 * .gnu_debuglink next to the file, in .debug/ next to it and under
 * debug_dir.  Its path (malloc'ed) in *found. */
static Elf *open_debug_file(const char *debug_dir, const dt_elf_debug_key_t *k,
			    int *fdp, char **found)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	Elf *e;
	size_t i;
	int n;

	if (k->build_id_len > 1) {
		n = snprintf(path, sizeof(path), "%s/.build-id/%02x/",
			     debug_dir, k->build_id[0]);
		for (i = 1; i < k->build_id_len && n < (int)sizeof(path) - 8;
		     i++)
			n += snprintf(path + n, sizeof(path) - n, "%02x",
				      k->build_id[i]);
		snprintf(path + n, sizeof(path) - n, ".debug");
		if ((e = open_debug_candidate(k, path, fdp)) != NULL)
			goto found;
	}
	if (k->debuglink == NULL)
		return NULL;
	snprintf(dir, sizeof(dir), "%s", k->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	n = snprintf(path, sizeof(path), "%s/%s", dir, k->debuglink);
	if (n < (int)sizeof(path) &&
	    (e = open_debug_candidate(k, path, fdp)) != NULL)
		goto found;
	n = snprintf(path, sizeof(path), "%s/.debug/%s", dir, k->debuglink);
	if (n < (int)sizeof(path) &&
	    (e = open_debug_candidate(k, path, fdp)) != NULL)
		goto found;
	n = snprintf(path, sizeof(path), "%s%s%s/%s", debug_dir,
		     dir[0] == '/' ? "" : "/", dir, k->debuglink);
	if (n < (int)sizeof(path) &&
	    (e = open_debug_candidate(k, path, fdp)) != NULL)
		goto found;
	return NULL;
found:
	*found = strdup(path);
	return e;
}

int dt_elf_debug_open(const char *debug_dir, const dt_elf_debug_key_t *key,
		      char **path)
{
	int fd = -1;
	Elf *e = open_debug_file(debug_dir, key, &fd, path);

	if (e == NULL)
		return -1;
	elf_end(e);
	if (*path == NULL) {
		close(fd);
		return -1;
	}
	return fd;
}

static int cmp_addr_name(const void *a, const void *b)
{
	const dt_elf_sym_t *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* At one address, the name to print first: global, then weak, then local;
 * then fewer leading underscores; then the shorter name. */
static int cmp_addr_pref(const void *a, const void *b)
{
	const dt_elf_sym_t *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (bind_rank(x->bind) != bind_rank(y->bind))
		return bind_rank(x->bind) - bind_rank(y->bind);
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_byname(const void *a, const void *b)
{
	const dt_elf_sym_t *x = *(dt_elf_sym_t *const *)a;
	const dt_elf_sym_t *y = *(dt_elf_sym_t *const *)b;
	int r = strcmp(x->name, y->name);

	if (r != 0)
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* qsort() for arrays that may be empty, whose base may then be NULL
 * (which qsort may not be passed). */
static void sort_array(void *base, size_t n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* Sort, drop the copies a symbol has in both .symtab and .dynsym, and
 * build the by-name index. */
static int finish_symbols(dt_elf_file_t *f, symbuf_t *sb)
{
	size_t i, n = 0;

	for (i = 0; i < sb->n; i++)
		sb->syms[i].name = sb->names + (uintptr_t)sb->syms[i].name;
	sort_array(sb->syms, sb->n, sizeof(*sb->syms), cmp_addr_name);
	for (i = 0; i < sb->n; i++) {
		dt_elf_sym_t *s = &sb->syms[i];

		if (n > 0 && sb->syms[n - 1].addr == s->addr &&
		    strcmp(sb->syms[n - 1].name, s->name) == 0) {
			dt_elf_sym_t *k = &sb->syms[n - 1];

			if (k->size == 0)
				k->size = s->size;
			if (bind_rank(s->bind) < bind_rank(k->bind))
				k->bind = s->bind;
			continue;
		}
		sb->syms[n++] = *s;
	}
	sort_array(sb->syms, n, sizeof(*sb->syms), cmp_addr_pref);
	f->byname = malloc((n ? n : 1) * sizeof(*f->byname));
	if (f->byname == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		f->byname[i] = &sb->syms[i];
	sort_array(f->byname, n, sizeof(*f->byname), cmp_byname);
	f->syms = sb->syms;
	f->nsyms = n;
	f->names = sb->names;
	sb->syms = NULL;
	sb->names = NULL;
	return 0;
}

int dt_elf_symbols(dt_elf_cache_t *cache, const dt_elf_file_t *cf,
		   char *msg, size_t msglen)
{
	dt_elf_file_t *f = (dt_elf_file_t *)cf;	/* the cache owns it */
	symbuf_t sb = { 0 };
	bool had_symtab = false;
	Elf *e;
	int err, dfd = -1;

	if (f->syms_loaded)
		return 0;
	e = elf_begin(f->fd, ELF_C_READ, NULL);
	if (e == NULL) {
		msgf(msg, msglen, "%s: %s", f->path, elf_errmsg(-1));
		return -EINVAL;
	}
	err = read_elf_symbols(e, true, true, &sb, &had_symtab);
	if (err == 0 && !had_symtab) {
		/* where its debug file is: wanted only now */
		read_build_id(e, f->build_id, &f->build_id_len,
			      sizeof(f->build_id));
		f->debuglink = read_debuglink(e);
	}
	elf_end(e);
	if (err == 0 && !had_symtab) {
		/* Stripped: the local and hidden functions are only in the
		 * debug file, whose addresses are the same as f's. */
		dt_elf_debug_key_t k = {
			.path = f->path, .dev = f->dev, .ino = f->ino,
			.build_id = f->build_id,
			.build_id_len = f->build_id_len,
			.debuglink = f->debuglink };
		Elf *de = open_debug_file(cache->debug_dir, &k, &dfd,
					  &f->debug_path);

		if (de != NULL) {
			err = read_elf_symbols(de, true, false, &sb, NULL);
			elf_end(de);
			close(dfd);
		}
	}
	if (err == 0)
		err = finish_symbols(f, &sb);
	free(sb.syms);
	free(sb.names);
	if (err != 0) {
		msgf(msg, msglen, "%s: cannot read its symbols: %s", f->path,
		     strerror(-err));
		return err;
	}
	f->syms_loaded = true;
	return 0;
}

size_t dt_elf_sym_by_name(const dt_elf_file_t *f, const char *name,
			  dt_elf_sym_t *const **first)
{
	size_t lo = 0, hi = f->nsyms, n = 0;

	while (lo < hi) {	/* the first entry >= name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(f->byname[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < f->nsyms && strcmp(f->byname[lo + n]->name, name) == 0)
		n++;
	*first = n ? &f->byname[lo] : NULL;
	return n;
}

/* The segment that maps addr into memory, or NULL. */
static const dt_elf_seg_t *seg_of_vaddr(const dt_elf_file_t *f, uint64_t addr)
{
	int i;

	for (i = 0; i < f->nsegs; i++)
		if (addr >= f->segs[i].vaddr &&
		    addr - f->segs[i].vaddr < f->segs[i].memsz)
			return &f->segs[i];
	return NULL;
}

const dt_elf_sym_t *dt_elf_sym_by_addr(const dt_elf_file_t *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nsyms;
	const dt_elf_sym_t *s, *next;
	const dt_elf_seg_t *seg;
	uint64_t size = 0;

	while (lo < hi) {	/* the first entry > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &f->syms[lo - 1];
	while (s > f->syms && s[-1].addr == s->addr)
		s--;		/* the preferred alias comes first */
	/* The aliases share one extent: the largest size among them. */
	for (next = s; next < f->syms + f->nsyms && next->addr == s->addr;
	     next++)
		if (next->size > size)
			size = next->size;
	if (size != 0)
		return addr - s->addr < size ? s : NULL;
	if (addr == s->addr)
		return s;
	/* Unknown size: up to the next symbol, within the same segment. */
	seg = seg_of_vaddr(f, s->addr);
	if (seg == NULL || seg != seg_of_vaddr(f, addr))
		return NULL;
	return s;
}

int dt_elf_vaddr_to_offset(const dt_elf_file_t *f, uint64_t vaddr,
			   uint64_t *offp)
{
	int i;

	for (i = 0; i < f->nsegs; i++) {
		const dt_elf_seg_t *s = &f->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offp = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int dt_elf_offset_to_vaddr(const dt_elf_file_t *f, uint64_t off,
			   uint64_t *vaddrp)
{
	int i;

	for (i = 0; i < f->nsegs; i++) {
		const dt_elf_seg_t *s = &f->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddrp = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

ssize_t dt_elf_read(const dt_elf_file_t *f, uint64_t off, void *buf,
		    size_t len)
{
	ssize_t n;

	/* no further than the file was when opened: it may be another
	 * process's, which may make it grow */
	if (off >= (uint64_t)f->size)
		return 0;
	if (len > (uint64_t)f->size - off)
		len = (size_t)((uint64_t)f->size - off);
	n = pread(f->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

/* ---- modules of a process ---------------------------------------------- */

/*
 * The vDSO, the kernel's small library in every process ("[vdso]" in its
 * maps), is no file to open.  But the kernel maps one image into every
 * process of an ABI, this one's included: its symbols and call frame
 * information are read from a copy of dtrace's own, kept in a memory
 * file, when the process's mapping has the image's size.  Only for the
 * caches that ask (stacks and symbols): no uprobe can be placed in it.
 */
static struct {
	pthread_once_t once;
	char path[64];		/* "/proc/self/fd/N", "" when unavailable */
	uint64_t size;		/* the image's bytes, page-rounded */
	ino_t ino;
} vdso = { .once = PTHREAD_ONCE_INIT };

/* The bytes of the ELF image at eh: its headers, segments and sections. */
static uint64_t vdso_image_size(const Elf64_Ehdr *eh)
{
	uint64_t size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	const Elf64_Phdr *ph = (const void *)((const char *)eh + eh->e_phoff);

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	return size;
}

static void vdso_copy(void)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct stat st;

	if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	uint64_t size = vdso_image_size(eh);
	long pg = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("dtrace-vdso", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, eh, size) != (ssize_t)size || fstat(fd, &st) != 0) {
		close(fd);
		return;
	}
	vdso.size = (size + pg - 1) & ~(uint64_t)(pg - 1);
	vdso.ino = st.st_ino;
	snprintf(vdso.path, sizeof(vdso.path), "/proc/self/fd/%d", fd);
}

/* Whether m is a vDSO whose image is dtrace's own; sets up the copy. */
static bool vdso_mapping(const dt_mapping_t *m)
{
	if (m->ino != 0 || strcmp(m->path, "[vdso]") != 0)
		return false;
	pthread_once(&vdso.once, vdso_copy);
	return vdso.path[0] != '\0' && m->end - m->start == vdso.size;
}

void dt_elf_cache_with_vdso(dt_elf_cache_t *cache)
{
	cache->with_vdso = true;
}

/* A mapping that can make a module: a file still there under its path (a
 * file deleted or replaced since it was mapped cannot be probed through
 * it). */
static bool module_mapping(const dt_mapping_t *m)
{
	return dt_mapping_is_file(m) && !m->deleted;
}

static dt_elf_module_t *find_module(dt_elf_proc_t *proc, const char *path)
{
	int i;

	for (i = 0; i < proc->nmods; i++)
		if (strcmp(proc->mods[i].path, path) == 0)
			return &proc->mods[i];
	return NULL;
}

static int add_range(dt_elf_module_t *m, const dt_mapping_t *ml)
{
	dt_elf_range_t *r = realloc(m->ranges,
				    (m->nranges + 1) * sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	m->ranges = r;
	r[m->nranges++] = (dt_elf_range_t){ ml->start, ml->end, ml->pgoff,
					    ml->prot };
	if (m->nranges == 1 || ml->start < m->lo)
		m->lo = ml->start;
	if (ml->end > m->hi)
		m->hi = ml->end;
	return 0;
}

static int add_module(dt_elf_proc_t *proc, const dt_mapping_t *ml,
		      const char *exe);

/* The vDSO as a module named as the kernel names it, read from the copy. */
static int add_vdso_module(dt_elf_proc_t *proc, const dt_mapping_t *ml)
{
	dt_mapping_t copy = *ml;
	int err;

	copy.path = vdso.path;
	copy.ino = vdso.ino;
	if ((err = add_module(proc, &copy, NULL)) != 0)
		return err;
	dt_elf_module_t *m = &proc->mods[proc->nmods - 1];
	char *name = strdup("[vdso]");

	if (name == NULL)
		return -ENOMEM;
	free(m->name);
	m->name = name;
	m->is_vdso = true;
	return 0;
}

static int add_module(dt_elf_proc_t *proc, const dt_mapping_t *ml,
		      const char *exe)
{
	dt_elf_module_t *m = realloc(proc->mods,
				     (proc->nmods + 1) * sizeof(*m));
	const char *base = strrchr(ml->path, '/');

	if (m == NULL)
		return -ENOMEM;
	proc->mods = m;
	m = &m[proc->nmods];
	memset(m, 0, sizeof(*m));
	m->is_exe = exe != NULL && strcmp(exe, ml->path) == 0;
	m->inode = ml->ino;
	m->path = strdup(ml->path);
	m->name = strdup(m->is_exe ? "a.out" : base ? base + 1 : ml->path);
	if (m->path == NULL || m->name == NULL) {
		free(m->path);
		free(m->name);
		return -ENOMEM;
	}
	proc->nmods++;
	return add_range(m, ml);
}

/* Open a module's file: through the path the process maps it under when
 * that is the same file here (same inode), else as seen from the process's
 * root (a process in another mount namespace). */
static int open_module_file(dt_elf_cache_t *cache, pid_t pid,
			    dt_elf_module_t *m)
{
	char path[PATH_MAX];

	if (dt_elf_open(cache, m->path, &m->file, NULL, 0) == 0 &&
	    m->file->ino == m->inode)
		return 0;
	if (dt_procfs_path(pid, m->path, path, sizeof(path)) &&
	    dt_elf_open(cache, path, &m->file, NULL, 0) == 0)
		return 0;
	return dt_elf_open(cache, m->path, &m->file, NULL, 0);
}

/* The load bias from the mapping of lowest file offset: the segment that
 * holds that offset was mapped page-aligned at that address. */
static int compute_bias(dt_elf_module_t *m)
{
	const dt_elf_range_t *r = &m->ranges[0];
	long pg = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 1; i < m->nranges; i++)
		if (m->ranges[i].offset < r->offset)
			r = &m->ranges[i];
	for (i = 0; i < m->file->nsegs; i++) {
		const dt_elf_seg_t *s = &m->file->segs[i];
		uint64_t poff = s->offset & ~(uint64_t)(pg - 1);
		uint64_t pva = s->vaddr & ~(uint64_t)(pg - 1);

		if (r->offset >= poff && r->offset < s->offset + s->filesz) {
			m->bias = r->start - (pva + (r->offset - poff));
			return 0;
		}
	}
	return -ENOENT;
}

static void module_free(dt_elf_module_t *m)
{
	free(m->name);
	free(m->path);
	free(m->ranges);
}

/* Keep the modules whose file is ELF and whose bias is known. */
static void resolve_modules(dt_elf_cache_t *cache, dt_elf_proc_t *proc)
{
	int i, n = 0;

	for (i = 0; i < proc->nmods; i++) {
		dt_elf_module_t *m = &proc->mods[i];

		if (open_module_file(cache, proc->pid, m) != 0 ||
		    compute_bias(m) != 0) {
			module_free(m);
			continue;
		}
		proc->mods[n++] = *m;
	}
	proc->nmods = n;
}

/* The modules of proc from its mappings: one per path, with its ranges. */
static int modules_of_maps(dt_elf_proc_t *proc, const dt_mapping_t *maps,
			   size_t nmaps, const char *exe, bool with_vdso)
{
	int err = 0;

	for (size_t i = 0; err == 0 && i < nmaps; i++) {
		dt_elf_module_t *m;

		if (with_vdso && vdso_mapping(&maps[i])) {
			err = add_vdso_module(proc, &maps[i]);
			continue;
		}
		if (!module_mapping(&maps[i]))
			continue;
		if ((m = find_module(proc, maps[i].path)) != NULL)
			err = add_range(m, &maps[i]);
		else
			err = add_module(proc, &maps[i], exe);
	}
	return err;
}

int dt_elf_proc_modules(dt_elf_cache_t *cache, pid_t pid,
			dt_elf_proc_t **procp, char *msg, size_t msglen)
{
	char path[64], exe[PATH_MAX];
	dt_elf_proc_t *proc;
	dt_mapping_t *maps;
	size_t nmaps;
	ssize_t n;
	int err;

	if ((err = dt_proc_maps(pid, &maps, &nmaps)) != 0) {
		msgf(msg, msglen, "cannot read the mappings of pid %d: %s",
		     (int)pid, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if ((proc = calloc(1, sizeof(*proc))) == NULL) {
		dt_proc_maps_free(maps, nmaps);
		return -ENOMEM;
	}
	proc->pid = pid;
	err = modules_of_maps(proc, maps, nmaps, n > 0 ? exe : NULL,
			      cache->with_vdso);
	dt_proc_maps_free(maps, nmaps);
	if (err == 0)
		resolve_modules(cache, proc);
	if (err != 0) {
		msgf(msg, msglen, "cannot read the mappings of pid %d: %s",
		     (int)pid, strerror(-err));
		dt_elf_proc_free(proc);
		return err;
	}
	*procp = proc;
	return 0;
}

void dt_elf_proc_free(dt_elf_proc_t *proc)
{
	int i;

	if (proc == NULL)
		return;
	for (i = 0; i < proc->nmods; i++)
		module_free(&proc->mods[i]);
	free(proc->mods);
	free(proc);
}

const dt_elf_module_t *dt_elf_proc_module_at(const dt_elf_proc_t *proc,
					     uint64_t addr)
{
	int i, j;

	for (i = 0; i < proc->nmods; i++) {
		const dt_elf_module_t *m = &proc->mods[i];

		if (addr < m->lo || addr >= m->hi)
			continue;
		for (j = 0; j < m->nranges; j++)
			if (addr >= m->ranges[j].start &&
			    addr < m->ranges[j].end)
				return m;
	}
	return NULL;
}

int dt_elf_proc_lookup(dt_elf_cache_t *cache, const dt_elf_proc_t *proc,
		       uint64_t addr, const dt_elf_module_t **modp,
		       const dt_elf_sym_t **symp, uint64_t *offp)
{
	const dt_elf_module_t *m = dt_elf_proc_module_at(proc, addr);
	const dt_elf_sym_t *s = NULL;

	if (m == NULL)
		return -ENOENT;
	if (dt_elf_symbols(cache, m->file, NULL, 0) == 0)
		s = dt_elf_sym_by_addr(m->file, addr - m->bias);
	*modp = m;
	*symp = s;
	*offp = s ? addr - m->bias - s->addr : addr - m->lo;
	return 0;
}

bool dt_elf_module_name_is(const dt_elf_module_t *m, const char *name)
{
	const char *base = strrchr(m->path, '/');
	size_t len = strlen(name);

	base = base ? base + 1 : m->path;
	if (strcmp(name, m->name) == 0 || strcmp(name, m->path) == 0 ||
	    strcmp(name, base) == 0)
		return true;
	if (name[0] == '/') {	/* a path through a symbolic link (/lib) */
		char *real = realpath(name, NULL);
		bool same = real != NULL && strcmp(real, m->path) == 0;

		free(real);
		return same;
	}
	/* "libc" or "libc.so" for libc.so.6: a prefix ending before a '.' */
	return len > 0 && strncmp(base, name, len) == 0 && base[len] == '.';
}
