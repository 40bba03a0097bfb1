/* SPDX-License-Identifier: MIT */
/*
 * usdt_notes.c: the <sys/sdt.h> probe sites of an ELF file, as the usdt
 * provider keeps them.
 *
 * The engine reads the notes (host->elf->stapsdt: sites, semaphores and
 * their file offsets, containing functions), as it does for dtprobed: one
 * ELF reader.  Here each site's argument specifications are decoded
 * (usdt_args.c; a specification naming a symbol asks host->elf->sym_value),
 * and the provider declarations of a `dtrace -G` object are read from the
 * section .dtrace_prov (usdt_decl.c).  The strings are then copied and the
 * engine's file released (host->elf->release): a usdt_file_t holds no
 * descriptor, and the engine keeps nothing of a file only usdt looked at.
 *
 * Invariant: a usdt_file_t is complete when returned and never changes.
 * The cache (keyed on dev, inode, size, mtime) holds two kinds of files:
 *  - files with notes, in a list: each stays for the session once the
 *    provider kept it (usdt_file_t.kept, since probes may point into it);
 *    one it did not keep goes with usdt_filecache_forget();
 *  - files known to hold nothing to trace (not ELF, no notes, or
 *    forgotten: notes that no description matches), by identity only, in
 *    a set of USDT_IGNORED_MAX entries that starts over when full (a
 *    file it forgot costs one more read when seen again).
 * At start-up, before tracing, a file a process maps is looked up by the
 * (dev, inode) its maps line shows, without a stat, when the cache knows
 * it (usdt_file_get_known): scanning thousands of processes that map the
 * same few hundred files stats and reads each of them once.
 * So a machine that makes fresh programs (a build, a CI runner, a user
 * copying binaries) costs a session a few dozen bytes per file at most,
 * and a bounded amount in all, for files it has no use for.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "usdt_impl.h"

/* What an argument specification that names a symbol looks it up in. */
struct usdt_symtab {
	const dtrace_host_t *host;
	const dtrace_elf_t *elf;
};

int usdt_sym_lookup(const usdt_symtab_t *st, const char *name,
		    uint64_t *addr)
{
	if (st->elf == NULL)
		return -ENOENT;		/* no file: no symbols */
	return st->host->elf->sym_value(st->elf, name, addr);
}

char *usdt_probe_name(const char *note_name)
{
	size_t n = strlen(note_name);
	char *s = malloc(n + 1), *d = s;
	if (s == NULL)
		return NULL;
	for (const char *p = note_name; *p; p++) {
		if (p[0] == '_' && p[1] == '_') {
			*d++ = '-';
			p++;
		} else {
			*d++ = *p;
		}
	}
	*d = '\0';
	return s;
}

/* Split and decode the argument specifications of note. */
static void note_parse_args(usdt_note_t *note, bool pie,
			    const usdt_symtab_t *st)
{
	char *copy = strdup(note->argstr), *save = NULL;
	note->bad_arg = -1;
	if (copy == NULL)
		return;
	for (char *tok = strtok_r(copy, " \t", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (note->nargs == USDT_NOTE_ARGS_MAX)
			break;
		usdt_arg_t *arg = &note->args[note->nargs];
		if (usdt_arg_parse(tok, note->pc, pie, st, arg) != 0 &&
		    note->bad_arg < 0) {
			note->bad_arg = note->nargs;
			note->bad_spec = strdup(tok);
		}
		note->nargs++;
	}
	free(copy);
}

/* The room the strings of the engine's sites take, each with its NUL. */
static size_t sites_text_size(const dtrace_stapsdt_t *sd, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += strlen(sd[i].provider) + strlen(sd[i].name) +
		       strlen(sd[i].args) + strlen(sd[i].func) + 4;
	return len;
}

/* s copied at *cursor, which moves past it. */
static const char *text_put(char **cursor, const char *s)
{
	size_t len = strlen(s) + 1;
	char *at = *cursor;

	memcpy(at, s, len);
	*cursor += len;
	return at;
}

/* Whether the site at file offset off is a nop and a 5-byte nop, which
 * <dtrace/usdt.h> makes (usdt_place.c). */
static bool site_has_nop5(const usdt_symtab_t *st, uint64_t off)
{
	unsigned char code[6];

	return st->host->elf->read(st->elf, off, code, sizeof(code)) ==
	       (ssize_t)sizeof(code) && usdt_site_has_nop5(code, sizeof(code));
}

/* A site as the engine read it, with its arguments decoded; its strings
 * copied at *text. */
static void note_from(usdt_note_t *n, const dtrace_stapsdt_t *sd, bool pie,
		      const usdt_symtab_t *st, char **text)
{
	memset(n, 0, sizeof(*n));
	n->provider = text_put(text, sd->provider);
	n->name = text_put(text, sd->name);
	n->argstr = text_put(text, sd->args);
	n->func = text_put(text, sd->func);
	n->pc = sd->pc;
	n->sema = sd->sema;
	n->offset = sd->offset;
	n->sema_offset = sd->sema_offset;
	n->nop5 = site_has_nop5(st, sd->offset);
	note_parse_args(n, pie, st);
}

/* The file's .dtrace_prov section, if any, into f->decls. */
static int decls_read(const dtrace_host_t *h, usdt_file_t *f)
{
	uint64_t off, size;
	unsigned char *data;
	int n;

	if (h->elf->section(f->elf, ".dtrace_prov", &off, &size) != 0 ||
	    size == 0 || size > (uint64_t)f->size)
		return 0;
	if ((data = malloc(size)) == NULL)
		return -ENOMEM;
	n = h->elf->read(f->elf, off, data, size) == (ssize_t)size ?
	    usdt_decls_parse(data, size, &f->decls) : 0;
	free(data);
	if (n < 0)
		return n;
	f->ndecls = n;
	return 0;
}

/* The sites and declarations of f->elf. */
static int file_read_elf(const dtrace_host_t *h, dtrace_provider_t *pv,
			 usdt_file_t *f)
{
	const dtrace_stapsdt_t *sd;
	usdt_symtab_t st = { h, f->elf };
	char msg[256];
	size_t n;
	int err;

	if ((err = h->elf->stapsdt(pv, f->elf, &sd, &n, msg, sizeof(msg))) != 0)
		return err;
	if (n == 0)
		return 0;
	f->pie = h->elf->type(f->elf) == ET_DYN;
	if (n > INT32_MAX || (f->notes = calloc(n, sizeof(*f->notes))) == NULL ||
	    (f->text = malloc(sites_text_size(sd, n))) == NULL)
		return -ENOMEM;
	char *cursor = f->text;
	for (size_t i = 0; i < n; i++)
		note_from(&f->notes[f->nnotes++], &sd[i], f->pie, &st, &cursor);
	return decls_read(h, f);
}

/* The engine's file goes when no one else holds it. */
static void file_release_elf(const dtrace_host_t *h, dtrace_provider_t *pv,
			     usdt_file_t *f)
{
	if (f->elf != NULL)
		h->elf->release(pv, f->elf);
	f->elf = NULL;
}

static usdt_file_t *file_new(const char *path, const struct stat *sb)
{
	usdt_file_t *f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->dev = sb->st_dev;
	f->ino = sb->st_ino;
	f->size = sb->st_size;
	f->mtime = sb->st_mtim;
	f->path = strdup(path);
	const char *slash = strrchr(path, '/');
	f->module = strdup(slash ? slash + 1 : path);
	if (f->path == NULL || f->module == NULL) {
		usdt_file_free(f);
		return NULL;
	}
	return f;
}

/* Read path's notes; sb is its identity.  A file that is not ELF has
 * none. */
static usdt_file_t *file_open_read(const dtrace_host_t *h,
				   dtrace_provider_t *pv, const char *path,
				   const struct stat *sb, int *err)
{
	char msg[256];
	usdt_file_t *f = file_new(path, sb);
	if (f == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!S_ISREG(sb->st_mode))
		return f;
	*err = h->elf->open(pv, path, &f->elf, msg, sizeof(msg));
	if (*err == -ENOEXEC || *err == -EINVAL) {	/* not ELF: no notes */
		f->elf = NULL;
		*err = 0;
		return f;
	}
	if (*err == 0)
		*err = file_read_elf(h, pv, f);
	file_release_elf(h, pv, f);
	if (*err != 0) {
		usdt_file_free(f);
		return NULL;
	}
	return f;
}

usdt_file_t *usdt_file_read(const dtrace_host_t *h, dtrace_provider_t *pv,
			    const char *path, int *err)
{
	struct stat sb;
	*err = 0;
	if (stat(path, &sb) != 0) {
		*err = -errno;
		return NULL;
	}
	return file_open_read(h, pv, path, &sb, err);
}

/* --- the set of files with nothing to trace --- */

/* The file of (dev, ino) as the set knows it, whatever its size and
 * mtime, or NULL. */
static const usdt_fileid_t *ignored_id(const usdt_filecache_t *fc, dev_t dev,
				       ino_t ino)
{
	usdt_devino_t key = { dev, ino };

	return dtrace_htab_find(&fc->ignored, usdt_devino_hash(dev, ino), &key);
}

static bool is_ignored_id(const usdt_filecache_t *fc, dev_t dev, ino_t ino)
{
	return ignored_id(fc, dev, ino) != NULL;
}

/* Whether the file of identity sb is in the set: a file rewritten in
 * place since (another size or mtime) is read again. */
static bool is_ignored(const usdt_filecache_t *fc, const struct stat *sb)
{
	const usdt_fileid_t *id = ignored_id(fc, sb->st_dev, sb->st_ino);

	return id != NULL && id->size == sb->st_size &&
	       id->mtime.tv_sec == sb->st_mtim.tv_sec &&
	       id->mtime.tv_nsec == sb->st_mtim.tv_nsec;
}

/* Remember that the file of identity sb has nothing to trace.  Out of
 * memory, it is merely read again next time. */
static void ignore(usdt_filecache_t *fc, const struct stat *sb)
{
	usdt_devino_t key = { sb->st_dev, sb->st_ino };

	if (fc->ignored.esize == 0)
		dtrace_htab_init(&fc->ignored, sizeof(usdt_fileid_t),
				 usdt_devino_eq);
	if (dtrace_htab_count(&fc->ignored) >= USDT_IGNORED_MAX)
		dtrace_htab_clear(&fc->ignored);
	usdt_fileid_t *id = dtrace_htab_insert(&fc->ignored,
			usdt_devino_hash(key.dev, key.ino), &key, NULL);
	if (id != NULL)
		*id = (usdt_fileid_t){ .id = key, .size = sb->st_size,
				       .mtime = sb->st_mtim };
}

static void unignore(usdt_filecache_t *fc, const struct stat *sb)
{
	usdt_devino_t key = { sb->st_dev, sb->st_ino };

	dtrace_htab_remove(&fc->ignored, usdt_devino_hash(key.dev, key.ino),
			   &key);
}

static struct stat identity_of(const usdt_file_t *f)
{
	struct stat sb = { .st_dev = f->dev, .st_ino = f->ino,
			   .st_size = f->size, .st_mtim = f->mtime };
	return sb;
}

/* --- the cache --- */

usdt_file_t *usdt_file_get(usdt_filecache_t *fc, const dtrace_host_t *h,
			   dtrace_provider_t *pv, const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return NULL;
	errno = 0;
	if (is_ignored(fc, &sb))
		return NULL;
	for (usdt_file_t *f = fc->files; f != NULL; f = f->next)
		if (f->dev == sb.st_dev && f->ino == sb.st_ino &&
		    f->size == sb.st_size &&
		    f->mtime.tv_sec == sb.st_mtim.tv_sec &&
		    f->mtime.tv_nsec == sb.st_mtim.tv_nsec)
			return f;
	int err = 0;
	usdt_file_t *f = file_open_read(h, pv, path, &sb, &err);
	if (f == NULL) {
		errno = -err;
		return NULL;
	}
	if (f->nnotes == 0) {
		ignore(fc, &sb);
		usdt_file_free(f);
		errno = 0;
		return NULL;
	}
	unignore(fc, &sb);	/* rewritten in place since, with notes now */
	f->next = fc->files;
	fc->files = f;
	return f;
}

usdt_file_t *usdt_file_get_known(usdt_filecache_t *fc,
				 const dtrace_host_t *h, dtrace_provider_t *pv,
				 const char *path, dev_t dev, ino_t ino)
{
	errno = 0;
	if (is_ignored_id(fc, dev, ino))
		return NULL;
	for (usdt_file_t *f = fc->files; f != NULL; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	return usdt_file_get(fc, h, pv, path);
}

void usdt_filecache_forget(usdt_filecache_t *fc, usdt_file_t *f)
{
	for (usdt_file_t **pp = &fc->files; *pp != NULL; pp = &(*pp)->next) {
		if (*pp != f)
			continue;
		struct stat sb = identity_of(f);
		*pp = f->next;
		ignore(fc, &sb);
		usdt_file_free(f);
		return;
	}
}

void usdt_file_free(usdt_file_t *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < f->nnotes; i++)
		free(f->notes[i].bad_spec);
	free(f->notes);
	free(f->text);
	usdt_decls_free(f->decls, f->ndecls);
	free(f->path);
	free(f->module);
	free(f);
}

void usdt_filecache_free(usdt_filecache_t *fc)
{
	while (fc->files) {
		usdt_file_t *f = fc->files;
		fc->files = f->next;
		usdt_file_free(f);
	}
	dtrace_htab_fini(&fc->ignored);
}
