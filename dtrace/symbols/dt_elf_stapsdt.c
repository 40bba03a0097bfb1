/* SPDX-License-Identifier: MIT */
/*
 * dt_elf_stapsdt.c: the <sys/sdt.h> probe sites of an ELF file, and the
 * value of any symbol (for argument specifications that name one).
 *
 * Each site is one note in the section .note.stapsdt, owner "stapsdt",
 * type 3.  Its descriptor holds three addresses of the ELF class's width
 * (the site, the link-time address of .stapsdt.base, the semaphore or 0)
 * then three strings: provider, name, argument specifications; the format
 * and its decoder are the USDT contract's (libusdt/usdt_note.h).  When the
 * file was moved after linking (prelink), .stapsdt.base's address differs
 * from the recorded one, and the site and semaphore move by the difference.
 * The kernel places uprobes and reference counters by file offset, so each
 * address is turned into one through the PT_LOAD segments (dt_elf.c).
 *
 * The notes are data from a file anyone may have written: every length is
 * checked against the section, and a malformed note is skipped.  They are
 * read with pread(), like every byte of a file's contents here, and kept
 * in the file's cache entry: one read per file and session.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_array.h"
#include "dt_elf.h"
#include "usdt_note.h"	/* libusdt: the note's format, decoded */

/* The sites as they are decoded; strings as offsets into text until the
 * end, when the text stops moving. */
typedef struct notebuf {
	dt_elf_stapsdt_t *v;
	size_t n, cap;
	char *text;
	size_t len, tcap;
} notebuf_t;

static int text_add(notebuf_t *nb, const char *s, const char **slot)
{
	size_t n = strlen(s) + 1;

	if (DT_ARRAY_NEED(nb->text, nb->tcap, nb->len + n) != 0)
		return -ENOMEM;
	memcpy(nb->text + nb->len, s, n);
	*slot = (const char *)(uintptr_t)nb->len;
	nb->len += n;
	return 0;
}

/* Decode one descriptor into a new site; a malformed one is skipped. */
static int note_add(notebuf_t *nb, const dt_elf_file_t *f,
		    const unsigned char *desc, size_t len, uint64_t base_actual)
{
	int width = f->elfclass == ELFCLASS32 ? 4 : 8;
	const dt_elf_sym_t *sym;
	dt_elf_stapsdt_t n = { 0 };
	usdt_note_desc_t d;

	if (!usdt_note_decode(desc, len, width, &d))
		return 0;
	n.pc = d.pc;
	n.sema = d.sema;
	if (base_actual && d.base) {	/* prelinked: follow the move */
		n.pc += base_actual - d.base;
		if (n.sema)
			n.sema += base_actual - d.base;
	}
	if (dt_elf_vaddr_to_offset(f, n.pc, &n.offset) != 0)
		return 0;
	if (n.sema && dt_elf_vaddr_to_offset(f, n.sema, &n.sema_offset) != 0)
		n.sema = 0;	/* in .bss: the kernel cannot count it */
	sym = f->syms_loaded ? dt_elf_sym_by_addr(f, n.pc) : NULL;
	n.func = sym ? sym->name : "";
	if (DT_ARRAY_ROOM(nb->v, nb->n, nb->cap) != 0)
		return -ENOMEM;
	if (text_add(nb, d.provider, &n.provider) != 0 ||
	    text_add(nb, d.name, &n.name) != 0 ||
	    text_add(nb, d.args, &n.args) != 0)
		return -ENOMEM;
	nb->v[nb->n++] = n;
	return 0;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Walk the notes of the section's bytes. */
static int notes_walk(notebuf_t *nb, const dt_elf_file_t *f,
		      const unsigned char *data, size_t size,
		      uint64_t base_actual)
{
	size_t off = 0;

	while (size - off >= 3 * sizeof(uint32_t)) {
		uint32_t hdr[3];	/* namesz, descsz, type */
		size_t name, desc;
		int err;

		memcpy(hdr, data + off, sizeof(hdr));
		name = off + sizeof(hdr);
		if (hdr[0] > size - name ||
		    align4(hdr[0]) > size - name)
			break;
		desc = name + align4(hdr[0]);
		if (hdr[1] > size - desc)
			break;
		if (usdt_note_is_site(data + name, hdr[0], hdr[2]) &&
		    (err = note_add(nb, f, data + desc, hdr[1],
				    base_actual)) != 0)
			return err;
		if (align4(hdr[1]) > size - desc)
			break;
		off = desc + align4(hdr[1]);
	}
	return 0;
}

/* The text's offsets into pointers, and the sites into f. */
static void notes_keep(dt_elf_file_t *f, notebuf_t *nb)
{
	for (size_t i = 0; i < nb->n; i++) {
		dt_elf_stapsdt_t *n = &nb->v[i];

		n->provider = nb->text + (uintptr_t)n->provider;
		n->name = nb->text + (uintptr_t)n->name;
		n->args = nb->text + (uintptr_t)n->args;
	}
	f->stapsdt = nb->v;
	f->nstapsdt = nb->n;
	f->stapsdt_text = nb->text;
}

static int notes_read(dt_elf_cache_t *cache, dt_elf_file_t *f, char *msg,
		      size_t msglen)
{
	const dt_elf_scn_t *scn = dt_elf_section(f, ".note.stapsdt");
	const dt_elf_scn_t *base = dt_elf_section(f, ".stapsdt.base");
	notebuf_t nb = { 0 };
	unsigned char *data;
	ssize_t got;
	int err;

	if (scn == NULL || scn->type != SHT_NOTE || scn->size == 0)
		return 0;
	if (scn->size > (uint64_t)f->size || (data = malloc(scn->size)) == NULL)
		return scn->size > (uint64_t)f->size ? 0 : -ENOMEM;
	got = dt_elf_read(f, scn->offset, data, scn->size);
	/* the functions holding the sites: without symbols, "" */
	(void)dt_elf_symbols(cache, f, NULL, 0);
	err = got == (ssize_t)scn->size ?
	      notes_walk(&nb, f, data, scn->size, base ? base->addr : 0) : 0;
	free(data);
	if (err != 0) {
		if (msg != NULL && msglen > 0)
			snprintf(msg, msglen, "%s: cannot read its probe "
				 "notes: %s", f->path, strerror(-err));
		free(nb.v);
		free(nb.text);
		return err;
	}
	notes_keep(f, &nb);
	return 0;
}

int dt_elf_stapsdt(dt_elf_cache_t *cache, const dt_elf_file_t *cf,
		   const dt_elf_stapsdt_t **notes, size_t *n, char *msg,
		   size_t msglen)
{
	dt_elf_file_t *f = (dt_elf_file_t *)cf;	/* the cache owns it */
	int err;

	if (!f->stapsdt_loaded) {
		if ((err = notes_read(cache, f, msg, msglen)) != 0)
			return err;
		f->stapsdt_loaded = true;
	}
	*notes = f->stapsdt;
	*n = f->nstapsdt;
	return 0;
}

/* The value of name in the symbol table section of type, or -ENOENT. */
static int symtab_value(Elf *e, uint32_t type, const char *name,
			uint64_t *valuep)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value == 0 ||
			    (s = elf_strptr(e, sh.sh_link, sym.st_name)) == NULL ||
			    strcmp(s, name) != 0)
				continue;
			*valuep = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

int dt_elf_sym_value(const dt_elf_file_t *f, const char *name,
		     uint64_t *valuep)
{
	Elf *e = elf_begin(f->fd, ELF_C_READ, NULL);
	int err;

	if (e == NULL)
		return -ENOENT;
	err = symtab_value(e, SHT_SYMTAB, name, valuep);
	if (err != 0)
		err = symtab_value(e, SHT_DYNSYM, name, valuep);
	elf_end(e);
	return err;
}
