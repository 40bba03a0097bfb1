/* SPDX-License-Identifier: MIT */
/*
 * usdt_notes.c: reading the <sys/sdt.h> probe notes of an ELF file.
 *
 * Each probe site is one note in the section .note.stapsdt, owner "stapsdt",
 * type 3.  Its descriptor holds three addresses of the ELF class's width
 * (the site, the link-time address of .stapsdt.base, the semaphore or 0)
 * then three strings: provider, name, argument specifications.  When the
 * file was moved after linking (prelink), .stapsdt.base's address differs
 * from the recorded one, and the site and semaphore move by the difference.
 *
 * The kernel places uprobes and reference counters by file offset, so each
 * address is turned into one through the PT_LOAD segment that holds it.  The
 * function holding a site is the FUNC symbol (.symtab, else .dynsym) whose
 * range covers it.
 *
 * A program or library linked with a `dtrace -G` object also carries the
 * declarations of its providers (argument types, mapping, stability) in
 * the section .dtrace_prov: one registration message image per provider
 * (dtprobed/dtprobed_proto.h, with no sites), each 8-byte aligned.  They
 * are read with the notes, so a probe is typed as declared even before its
 * process registered with dtprobed, or when no dtprobed runs.  The section
 * is data from a file anyone may have written: every count, offset and
 * string is checked before use.
 *
 * Invariant: a usdt_file_t is complete when returned and never changes; the
 * cache (keyed on dev, inode) lives for the session.  A file that is not ELF
 * or has no notes is cached too, with nnotes 0, so it is opened once.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usdt_impl.h"
#include "../../dtprobed/dtprobed_proto.h"

#define NT_STAPSDT	3

typedef struct usdt_sym {
	const char *name;	/* in the ELF file's string table */
	uint64_t addr, size;
	int rank;		/* preference among aliases: global > weak > local */
} usdt_sym_t;

struct usdt_symtab {
	usdt_sym_t *syms;	/* every named symbol, for argument specs */
	size_t nsyms;
	usdt_sym_t **funcs;	/* function symbols by address */
	size_t nfuncs;
};

int usdt_sym_lookup(const usdt_symtab_t *st, const char *name,
		    uint64_t *addr)
{
	for (size_t i = 0; i < st->nsyms; i++)
		if (strcmp(st->syms[i].name, name) == 0 &&
		    st->syms[i].addr != 0) {
			*addr = st->syms[i].addr;
			return 0;
		}
	return -ENOENT;
}

static int sym_rank(unsigned bind)
{
	return bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
}

/* Add the defined symbols of one symbol table section. */
static int symtab_add(usdt_symtab_t *st, Elf *elf, Elf_Scn *scn,
		      const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (data == NULL || sh->sh_entsize == 0)
		return 0;
	/* the bytes there are, not what the header claims; none: nothing
	 * to grow (realloc to 0 bytes would free the table) */
	size_t n = data->d_size / sh->sh_entsize;
	if (n == 0)
		return 0;
	if (n > SIZE_MAX / sizeof(usdt_sym_t) - st->nsyms)
		return -EFBIG;
	usdt_sym_t *syms = realloc(st->syms, (st->nsyms + n) * sizeof(*syms));
	if (syms == NULL)
		return -ENOMEM;
	st->syms = syms;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (gelf_getsym(data, (int)i, &sym) == NULL ||
		    sym.st_shndx == SHN_UNDEF || sym.st_name == 0)
			continue;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name == NULL || *name == '\0')
			continue;
		usdt_sym_t *s = &st->syms[st->nsyms++];
		s->name = name;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		/* Only functions name a site; others resolve arguments. */
		s->rank = (type == STT_FUNC || type == STT_GNU_IFUNC) ?
			  sym_rank(GELF_ST_BIND(sym.st_info)) : -1;
	}
	return 0;
}

static int func_cmp(const void *a, const void *b)
{
	const usdt_sym_t *x = *(usdt_sym_t *const *)a;
	const usdt_sym_t *y = *(usdt_sym_t *const *)b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank;	/* preferred alias first */
}

/* Read .symtab, and .dynsym too (a stripped file has only that). */
static int symtab_load(usdt_symtab_t *st, Elf *elf)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			int err = symtab_add(st, elf, scn, &sh);
			if (err)
				return err;
		}
	}
	st->funcs = calloc(st->nsyms + 1, sizeof(*st->funcs));
	if (st->funcs == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < st->nsyms; i++)
		if (st->syms[i].rank >= 0)
			st->funcs[st->nfuncs++] = &st->syms[i];
	qsort(st->funcs, st->nfuncs, sizeof(*st->funcs), func_cmp);
	return 0;
}

static void symtab_free(usdt_symtab_t *st)
{
	free(st->syms);
	free(st->funcs);
}

/* The function whose range holds addr, or "". */
static const char *symtab_func(const usdt_symtab_t *st, uint64_t addr)
{
	size_t lo = 0, hi = st->nfuncs;
	while (lo < hi) {	/* first function starting after addr */
		size_t mid = (lo + hi) / 2;
		if (st->funcs[mid]->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back over functions starting at or before addr: the closest
	 * one whose range holds addr wins (aliases: the preferred first). */
	for (size_t i = lo; i-- > 0;) {
		const usdt_sym_t *f = st->funcs[i];
		if (addr < f->addr + (f->size ? f->size : 1)) {
			while (i > 0 && st->funcs[i - 1]->addr == f->addr)
				f = st->funcs[--i];
			return f->name;
		}
		if (lo - i > 64)
			break;	/* nested ranges are rare; stay bounded */
	}
	return "";
}

/* The file offset of a link-time address through the PT_LOAD segments;
 * false when no segment holds it in its file contents. */
static bool vaddr_to_offset(Elf *elf, uint64_t addr, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* The address of a section by name, or 0. */
static uint64_t section_addr(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *s;
		if (gelf_getshdr(scn, &sh) != NULL &&
		    (s = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(s, name) == 0)
			return sh.sh_addr;
	}
	return 0;
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

/* The strings after the three addresses: provider, name, arguments. */
static bool note_strings(const char *p, const char *end, const char *out[3])
{
	for (int i = 0; i < 3; i++) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		if (z == NULL)
			return false;
		out[i] = p;
		p = z + 1;
	}
	return true;
}

static uint64_t read_addr(const unsigned char *p, int width)
{
	if (width == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Decode one note's descriptor into a new entry of f->notes. */
static int note_add(usdt_file_t *f, Elf *elf, const usdt_symtab_t *st,
		    const unsigned char *desc, size_t len, int width,
		    uint64_t base_actual)
{
	if (len < 3 * (size_t)width)
		return -EINVAL;
	const char *strs[3];
	if (!note_strings((const char *)desc + 3 * width,
			  (const char *)desc + len, strs))
		return -EINVAL;
	usdt_note_t n;
	memset(&n, 0, sizeof(n));
	n.pc = read_addr(desc, width);
	uint64_t base = read_addr(desc + width, width);
	n.sema = read_addr(desc + 2 * width, width);
	if (base_actual && base) {	/* prelinked: follow the move */
		n.pc += base_actual - base;
		if (n.sema)
			n.sema += base_actual - base;
	}
	if (!vaddr_to_offset(elf, n.pc, &n.offset))
		return -EINVAL;
	if (n.sema && !vaddr_to_offset(elf, n.sema, &n.sema_offset))
		n.sema = 0;	/* in .bss: the kernel cannot count it */
	n.provider = strdup(strs[0]);
	n.name = strdup(strs[1]);
	n.argstr = strdup(strs[2]);
	n.func = strdup(symtab_func(st, n.pc));
	if (!n.provider || !n.name || !n.argstr || !n.func) {
		free(n.provider), free(n.name), free(n.argstr), free(n.func);
		return -ENOMEM;
	}
	note_parse_args(&n, f->pie, st);
	usdt_note_t *notes = realloc(f->notes, (f->nnotes + 1) * sizeof(n));
	if (notes == NULL) {
		free(n.provider), free(n.name), free(n.argstr), free(n.func);
		free(n.bad_spec);
		return -ENOMEM;
	}
	f->notes = notes;
	f->notes[f->nnotes++] = n;
	return 0;
}

/* Walk one note section. */
static int notes_scan(usdt_file_t *f, Elf *elf, Elf_Scn *scn,
		      const usdt_symtab_t *st, uint64_t base_actual)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	int width = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	if (data == NULL)
		return 0;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp(owner, "stapsdt", 8) != 0)
			continue;
		int err = note_add(f, elf, st,
				   (const unsigned char *)data->d_buf + desc_off,
				   nh.n_descsz, width, base_actual);
		if (err == -ENOMEM)
			return err;	/* a malformed note is skipped */
	}
	return 0;
}

/* Does the file have a section named .note.stapsdt?  Sets *scn. */
static Elf_Scn *find_note_section(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *s;
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_NOTE &&
		    (s = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(s, ".note.stapsdt") == 0)
			return scn;
	}
	return NULL;
}

/* ---- provider declarations (.dtrace_prov) ---- */

/* A string of the image's string table, or NULL when off is outside it or
 * the string is not terminated inside it. */
static const char *decl_str(const usdt_decl_t *d, uint32_t off, uint32_t size)
{
	if (off >= size || memchr(d->strtab + off, '\0', size - off) == NULL)
		return NULL;
	return d->strtab + off;
}

/* A type name through the types table: index idx of ntypes. */
static const char *decl_type(const usdt_decl_t *d, const unsigned char *img,
			     const dtpv_msg_t *h, uint64_t idx)
{
	uint32_t off;
	if (idx >= h->ntypes)
		return NULL;
	memcpy(&off, img + h->types_off + 4 * idx, 4);
	return decl_str(d, off, h->strtab_size);
}

static bool decl_table_ok(uint64_t off, uint64_t n, uint64_t esz,
			  uint64_t size)
{
	return off <= size && n <= (size - off) / esz;
}

static int decl_probe(usdt_decl_t *d, const unsigned char *img,
		      const dtpv_msg_t *h, uint32_t i, usdt_decl_probe_t *p)
{
	dtpv_probe_t rp;
	memcpy(&rp, img + h->probes_off + (size_t)i * sizeof(rp), sizeof(rp));
	if (rp.nargs > USDT_DECL_ARGS_MAX || rp.nxargs > USDT_DECL_ARGS_MAX)
		return -EINVAL;
	p->name = decl_str(d, rp.name, h->strtab_size);
	p->nargs = rp.nargs;
	p->nxargs = rp.nxargs;
	if (p->name == NULL || *p->name == '\0')
		return -EINVAL;
	for (int a = 0; a < p->nargs; a++)
		if ((p->native[a] = decl_type(d, img, h,
					      (uint64_t)rp.native + a)) == NULL)
			return -EINVAL;
	for (int a = 0; a < p->nxargs; a++) {
		p->xlate[a] = decl_type(d, img, h, (uint64_t)rp.xlate + a);
		p->mapping[a] = rp.mapping[a];
		if (p->xlate[a] == NULL || p->mapping[a] >= p->nargs)
			return -EINVAL;
	}
	return 0;
}

/* One image of size bytes at img into d; -EINVAL when damaged. */
static int decl_image(const unsigned char *img, size_t size, usdt_decl_t *d)
{
	dtpv_msg_t h;
	memcpy(&h, img, sizeof(h));
	if (!decl_table_ok(h.probes_off, h.nprobes, sizeof(dtpv_probe_t), size) ||
	    !decl_table_ok(h.types_off, h.ntypes, 4, size) ||
	    !decl_table_ok(h.strtab_off, h.strtab_size, 1, size) ||
	    h.strtab_size == 0 || h.nprobes > DTPV_PROBES_MAX)
		return -EINVAL;
	d->strtab = malloc(h.strtab_size);
	d->probes = calloc(h.nprobes ? h.nprobes : 1, sizeof(*d->probes));
	if (d->strtab == NULL || d->probes == NULL)
		return -ENOMEM;
	memcpy(d->strtab, img + h.strtab_off, h.strtab_size);
	d->strtab[h.strtab_size - 1] = '\0';
	d->provider = decl_str(d, h.provider, h.strtab_size);
	if (d->provider == NULL || *d->provider == '\0')
		return -EINVAL;
	for (int i = 0; i < 5; i++)
		d->attrs[i] = h.attrs[i] ?
			decl_str(d, h.attrs[i], h.strtab_size) : NULL;
	for (uint32_t i = 0; i < h.nprobes; i++) {
		int err = decl_probe(d, img, &h, i, &d->probes[i]);
		if (err < 0)
			return err;
		d->nprobes++;
	}
	return 0;
}

static void decl_clear(usdt_decl_t *d)
{
	free(d->strtab);
	free(d->probes);
	memset(d, 0, sizeof(*d));
}

int usdt_decls_parse(const unsigned char *data, size_t len, usdt_decl_t **out)
{
	usdt_decl_t *v = NULL;
	int n = 0;
	size_t off = 0;

	*out = NULL;
	while (off + sizeof(dtpv_msg_t) <= len) {
		dtpv_msg_t h;
		memcpy(&h, data + off, sizeof(h));
		if (memcmp(h.magic, DTPV_MAGIC, 4) != 0) {
			off += 8;	/* alignment padding between objects */
			continue;
		}
		if (h.version != DTPV_VERSION || h.size < sizeof(h) ||
		    h.size > len - off)
			break;
		usdt_decl_t *nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (nv == NULL) {
			usdt_decls_free(v, n);
			return -ENOMEM;
		}
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		int err = decl_image(data + off, h.size, &v[n]);
		if (err == -ENOMEM) {
			decl_clear(&v[n]);
			usdt_decls_free(v, n);
			return err;
		}
		if (err < 0) {
			decl_clear(&v[n]);
			break;		/* damaged: what follows is suspect */
		}
		n++;
		off += (h.size + 7) & ~(size_t)7;
	}
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}

void usdt_decls_free(usdt_decl_t *d, int n)
{
	for (int i = 0; i < n; i++)
		decl_clear(&d[i]);
	free(d);
}

const usdt_decl_probe_t *usdt_decl_find(const usdt_decl_t *d, int n,
					const char *provider, const char *name,
					const usdt_decl_t **prov)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(d[i].provider, provider) != 0)
			continue;
		for (int j = 0; j < d[i].nprobes; j++)
			if (strcmp(d[i].probes[j].name, name) == 0) {
				if (prov != NULL)
					*prov = &d[i];
				return &d[i].probes[j];
			}
	}
	return NULL;
}

/* The file's .dtrace_prov section, if any, into f->decls. */
Elf_Data *usdt_elf_progbits(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *s;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
		    (s = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL ||
		    strcmp(s, name) != 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		return data != NULL && data->d_buf != NULL ? data : NULL;
	}
	return NULL;
}

static int decls_read(usdt_file_t *f, Elf *elf)
{
	Elf_Data *data = usdt_elf_progbits(elf, ".dtrace_prov");
	if (data == NULL)
		return 0;
	int n = usdt_decls_parse(data->d_buf, data->d_size, &f->decls);
	if (n < 0)
		return n;
	f->ndecls = n;
	return 0;
}

static int file_read_elf(usdt_file_t *f, int fd)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL)
		return 0;
	int err = 0;
	GElf_Ehdr eh;
	Elf_Scn *scn;
	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    (scn = find_note_section(elf)) == NULL)
		goto out;
	f->pie = eh.e_type == ET_DYN;
	usdt_symtab_t st;
	memset(&st, 0, sizeof(st));
	err = symtab_load(&st, elf);
	if (err == 0)
		err = notes_scan(f, elf, scn, &st,
				 section_addr(elf, ".stapsdt.base"));
	symtab_free(&st);
	if (err == 0)
		err = decls_read(f, elf);
out:
	elf_end(elf);
	return err;
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

/* Open path and read its notes; *sb gets its identity. */
static usdt_file_t *file_open_read(const char *path, struct stat *sb, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, sb) != 0) {
		*err = -errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	usdt_file_t *f = file_new(path, sb);
	if (f == NULL) {
		*err = -ENOMEM;
	} else if (S_ISREG(sb->st_mode) && (*err = file_read_elf(f, fd)) != 0) {
		usdt_file_free(f);
		f = NULL;
	}
	close(fd);
	return f;
}

usdt_file_t *usdt_file_read(const char *path, int *err)
{
	struct stat sb;
	*err = 0;
	return file_open_read(path, &sb, err);
}

usdt_file_t *usdt_file_get(usdt_filecache_t *fc, const char *path)
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
	usdt_file_t *f = file_open_read(path, &sb, &err);
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
	for (int i = 0; i < f->nnotes; i++) {
		usdt_note_t *n = &f->notes[i];
		free(n->provider);
		free(n->name);
		free(n->argstr);
		free(n->func);
		free(n->bad_spec);
	}
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
