/* SPDX-License-Identifier: MIT */
/*
 * usdt_notes.c: the <sys/sdt.h> probe sites of an ELF file, as the usdt
 * provider keeps them.
 *
 * The engine reads the notes (host->elf_stapsdt: sites, semaphores and
 * their file offsets, containing functions), as it does for dtprobed: one
 * ELF reader.  Here each site's argument specifications are decoded
 * (usdt_args.c; a specification naming a symbol asks host->elf_sym_value),
 * and the provider declarations of a `dtrace -G` object are read from the
 * section .dtrace_prov (usdt_decl.c).
 *
 * Invariant: a usdt_file_t is complete when returned and never changes; the
 * cache (keyed on dev, inode, size, mtime) lives for the session.  A file
 * that is not ELF or has no notes is cached too, with nnotes 0, so it is
 * opened once.
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
	return st->host->elf_sym_value(st->elf, name, addr);
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

/* A site as the engine read it, with its arguments decoded. */
static void note_from(usdt_note_t *n, const dtrace_stapsdt_t *sd, bool pie,
		      const usdt_symtab_t *st)
{
	memset(n, 0, sizeof(*n));
	n->provider = sd->provider;
	n->name = sd->name;
	n->argstr = sd->args;
	n->func = sd->func;
	n->pc = sd->pc;
	n->sema = sd->sema;
	n->offset = sd->offset;
	n->sema_offset = sd->sema_offset;
	note_parse_args(n, pie, st);
}

/* The file's .dtrace_prov section, if any, into f->decls. */
static int decls_read(const dtrace_host_t *h, usdt_file_t *f)
{
	uint64_t off, size;
	unsigned char *data;
	int n;

	if (h->elf_section(f->elf, ".dtrace_prov", &off, &size) != 0 ||
	    size == 0 || size > (uint64_t)f->size)
		return 0;
	if ((data = malloc(size)) == NULL)
		return -ENOMEM;
	n = h->elf_read(f->elf, off, data, size) == (ssize_t)size ?
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

	if ((err = h->elf_stapsdt(pv, f->elf, &sd, &n, msg, sizeof(msg))) != 0)
		return err;
	if (n == 0)
		return 0;
	f->pie = h->elf_type(f->elf) == ET_DYN;
	if (n > INT32_MAX || (f->notes = calloc(n, sizeof(*f->notes))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		note_from(&f->notes[f->nnotes++], &sd[i], f->pie, &st);
	return decls_read(h, f);
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
	*err = h->elf_open(pv, path, &f->elf, msg, sizeof(msg));
	if (*err == -ENOEXEC || *err == -EINVAL) {	/* not ELF: no notes */
		f->elf = NULL;
		*err = 0;
		return f;
	}
	if (*err == 0)
		*err = file_read_elf(h, pv, f);
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

usdt_file_t *usdt_file_get(usdt_filecache_t *fc, const dtrace_host_t *h,
			   dtrace_provider_t *pv, const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
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
	f->next = fc->files;
	fc->files = f;
	return f;
}

void usdt_file_free(usdt_file_t *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < f->nnotes; i++)
		free(f->notes[i].bad_spec);
	free(f->notes);
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
}
