/* SPDX-License-Identifier: MIT */
/*
 * dt_dwarf.c: D types from the debugging information of traced programs.
 *
 * A pid probe's arguments are untyped registers to its provider.  When
 * the probed module has DWARF (in the file, or in a separate debug file
 * found by build-id or .gnu_debuglink under /usr/lib/debug: libdwfl's
 * standard search), the function's parameters give args[] their C types:
 * args[0]->x on f(struct point *p) reads the member from the process's
 * memory.  At a return probe, args[1] takes the function's return type.
 * A floating-point parameter or return value is not in the integer
 * register that its args[] reads: it, and the parameters after it, keep
 * the register's type (dt_dwarf_probe_args).
 *
 * DWARF types become D types of the session's table: base types by size
 * and signedness, pointers, arrays, enums, structs and unions with their
 * members (laid out by C's rules, then given DWARF's offsets and size so
 * that packed layouts read right), typedefs by the type they name (and
 * their names declared, so that casts and sizeof can use them).  Struct,
 * union and enum tags share the session's namespace: the first
 * definition of a tag wins.  Floating-point types are D's float, double
 * and long double (another, as _Float128 or a complex type, becomes bytes
 * of its size); function types stay opaque.
 *
 * The debugging information of a file is opened once per session
 * (dtp->dwarf); a file without any is remembered as such.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_debuginfo.h"
#include "dt_dwarf.h"
#include "dt_elf.h"
#include "dt_untrusted.h"

#define DT_DWARF_DEPTH	32	/* nesting of types followed at most */

/* A conversion in progress: the structs and unions being built (a member
 * that points back to one gets its incomplete tag, which the outer call
 * completes). */
typedef struct dw_ctx {
	dt_typetab_t *tt;
	Dwarf_Off busy[DT_DWARF_DEPTH];
	int nbusy;
	int depth;
} dw_ctx_t;

/* A function's definition, by name (the index of a file's functions). */
typedef struct dw_func {
	const char *name;	/* in the DWARF's string table */
	Dwarf_Off off;		/* of its DIE */
} dw_func_t;

typedef struct dw_file {
	char *path;
	Dwfl *dwfl;		/* NULL: the file has no DWARF */
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;	/* libdwfl's address - the file's address */
	dw_func_t *funcs;	/* sorted by name, built on first use */
	size_t nfuncs, cap;
	bool indexed;
	struct dw_file *next;
} dw_file_t;

/* The session's state (dtp->dwarf): the files opened, and the modules of
 * the last process whose probes were typed. */
struct dt_dwarf {
	dw_file_t *files;
	dt_elf_cache_t *elf;
	dt_elf_proc_t *proc;
};

static Dwfl_Callbacks dt_dwarf_callbacks = {
	.find_debuginfo = dt_debuginfo_find,
	.section_address = dwfl_offline_section_address,
};

/* The DWARF of the file at path, opened once; NULL without any. */
static struct dt_dwarf *state(dtrace_hdl_t *dtp)
{
	if (dtp->dwarf == NULL)
		dtp->dwarf = dt_zalloc(sizeof(struct dt_dwarf));
	return dtp->dwarf;
}

static dw_file_t *dwarf_of(dtrace_hdl_t *dtp, const char *path)
{
	struct dt_dwarf *st = state(dtp);
	dw_file_t *d;

	for (d = st->files; d != NULL; d = d->next)
		if (strcmp(d->path, path) == 0)
			return d->dwfl ? d : NULL;
	d = dt_zalloc(sizeof(*d));
	d->path = dt_strdup(path);
	d->next = st->files;
	st->files = d;
	dt_dwarf_callbacks.debuginfo_path = dt_elf_debuginfo_path();
	d->dwfl = dwfl_begin(&dt_dwarf_callbacks);
	if (d->dwfl == NULL)
		return NULL;
	/* a process's module: opened as another process names it, never
	 * blocking (dt_untrusted.h); the fd is consumed on success only */
	int fd = dt_open_untrusted(path, NULL);
	d->mod = fd < 0 ? NULL : dwfl_report_offline(d->dwfl, "", path, fd);
	if (fd >= 0 && d->mod == NULL)
		close(fd);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (d->mod == NULL ||
	    (d->dw = dwfl_module_getdwarf(d->mod, &d->bias)) == NULL) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return NULL;
	}
	return d;
}

int dt_dwarf_line(dtrace_hdl_t *dtp, const char *path, uint64_t addr,
		  const char **file)
{
	dw_file_t *d = dwarf_of(dtp, path);
	Dwfl_Line *l;
	int line = 0;

	if (d == NULL ||
	    (l = dwfl_module_getsrc(d->mod, addr + d->bias)) == NULL)
		return 0;
	*file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	return *file != NULL ? line : 0;
}

void dt_dwarf_fini(dtrace_hdl_t *dtp)
{
	struct dt_dwarf *st = dtp->dwarf;

	if (st == NULL)
		return;
	while (st->files != NULL) {
		dw_file_t *d = st->files;

		st->files = d->next;
		if (d->dwfl != NULL)
			dwfl_end(d->dwfl);
		free(d->funcs);
		free(d->path);
		free(d);
	}
	if (st->proc != NULL)
		dt_elf_proc_free(st->proc);
	if (st->elf != NULL)
		dt_elf_cache_destroy(st->elf);
	free(st);
	dtp->dwarf = NULL;
}

/* The file of module mod of process pid (read once per process). */
static const char *module_path(dtrace_hdl_t *dtp, pid_t pid, const char *mod)
{
	struct dt_dwarf *st = state(dtp);
	char msg[256];

	if (st->elf == NULL && (st->elf = dt_elf_cache_create()) == NULL)
		return NULL;
	if (st->proc == NULL || st->proc->pid != pid) {
		if (st->proc != NULL)
			dt_elf_proc_free(st->proc);
		st->proc = NULL;
		if (dt_elf_proc_modules(st->elf, pid, &st->proc, msg,
					sizeof(msg)) != 0)
			return NULL;
	}
	for (int i = 0; i < st->proc->nmods; i++)
		if (dt_elf_module_name_is(&st->proc->mods[i], mod))
			return st->proc->mods[i].file->path;
	return NULL;
}

/* --- types --- */

static dt_type_t *die_type(dw_ctx_t *cx, Dwarf_Die *die);

/* The type DW_AT_type of die refers to; void when it has none. */
static dt_type_t *type_of(dw_ctx_t *cx, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	dt_type_t *r;

	if (dwarf_attr_integrate(die, DW_AT_type, &a) == NULL ||
	    dwarf_formref_die(&a, &t) == NULL)
		return dt_type_void(cx->tt);
	if (cx->depth >= DT_DWARF_DEPTH)
		return NULL;
	cx->depth++;
	r = die_type(cx, &t);
	cx->depth--;
	return r;
}

static uint64_t udata(Dwarf_Die *die, unsigned attr, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (dwarf_attr_integrate(die, attr, &a) == NULL ||
	    dwarf_formudata(&a, &v) != 0)
		return dflt;
	return v;
}

static dt_type_t *base_type(dt_typetab_t *tt, Dwarf_Die *die)
{
	uint64_t size = udata(die, DW_AT_byte_size, 0);
	uint64_t enc = udata(die, DW_AT_encoding, DW_ATE_signed);

	if (enc == DW_ATE_float &&
	    dt_type_c_float(tt, size, dwarf_diename(die)) != NULL)
		return dt_type_c_float(tt, size, dwarf_diename(die));
	if (size != 1 && size != 2 && size != 4 && size != 8)	/* _Float128 */
		return size ? dt_type_array(tt, dt_type_int(tt, 1, true), size)
			    : NULL;
	return dt_type_int(tt, (unsigned)size, enc == DW_ATE_signed ||
			   enc == DW_ATE_signed_char);
}

static dt_type_t *array_type(dw_ctx_t *cx, Dwarf_Die *die)
{
	dt_type_t *elem = type_of(cx, die);
	Dwarf_Die sub;
	uint64_t n = 0;

	if (elem == NULL || dwarf_child(die, &sub) != 0)
		return NULL;
	if (dwarf_hasattr(&sub, DW_AT_count))
		n = udata(&sub, DW_AT_count, 0);
	else if (dwarf_hasattr(&sub, DW_AT_upper_bound))
		n = udata(&sub, DW_AT_upper_bound, 0) + 1;
	return dt_type_array(cx->tt, elem, n);
}

static dt_type_t *enum_type(dt_typetab_t *tt, Dwarf_Die *die)
{
	dt_type_t *t = dt_type_tag(tt, DT_TK_ENUM, dwarf_diename(die));
	dt_enumval_t *vals = NULL, **tail = &vals;
	Dwarf_Die c;

	if (t == NULL || t->complete || dwarf_hasattr(die, DW_AT_declaration))
		return t;
	for (int r = dwarf_child(die, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&c) != DW_TAG_enumerator || !dwarf_diename(&c))
			continue;
		if (dwarf_attr(&c, DW_AT_const_value, &a) != NULL)
			dwarf_formsdata(&a, &v);
		dt_enumval_t *e = dt_zalloc(sizeof(*e));
		e->name = dwarf_diename(&c);
		e->value = v;
		*tail = e;
		tail = &e->next;
	}
	dt_type_complete_enum(tt, t, vals);
	while (vals != NULL) {
		dt_enumval_t *n = vals->next;
		free(vals);
		vals = n;
	}
	return t;
}

/* The bit of its struct where bit-field member m (DIE die) starts: DWARF
 * 4's DW_AT_data_bit_offset, else DWARF 2's DW_AT_bit_offset, which counts
 * from the most significant bit of a unit of DW_AT_byte_size bytes (its
 * type's size when absent) at DW_AT_data_member_location. */
static uint64_t bitfield_pos(Dwarf_Die *die, const dt_member_t *m)
{
	uint64_t loc = udata(die, DW_AT_data_member_location, 0) * 8;
	uint64_t unit = udata(die, DW_AT_byte_size, m->type->size) * 8;

	if (dwarf_hasattr_integrate(die, DW_AT_data_bit_offset))
		return udata(die, DW_AT_data_bit_offset, 0);
	if (!dwarf_hasattr_integrate(die, DW_AT_bit_offset))
		return loc;
	return loc + unit - udata(die, DW_AT_bit_offset, 0) - m->bit_size;
}

/* The members of a struct or union DIE, in order; NULL when one has a type
 * D cannot hold. */
static dt_member_t *members_of(dw_ctx_t *cx, Dwarf_Die *die, bool *ok)
{
	dt_member_t *mems = NULL, **tail = &mems;
	Dwarf_Die c;

	*ok = true;
	for (int r = dwarf_child(die, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		dt_member_t *m = dt_zalloc(sizeof(*m));
		m->name = dwarf_diename(&c);
		m->type = type_of(cx, &c);
		m->offset = (uint32_t)udata(&c, DW_AT_data_member_location, 0);
		m->bit_size = (uint8_t)udata(&c, DW_AT_bit_size, 0);
		if (m->bit_size != 0 && m->type != NULL) {
			uint64_t pos = bitfield_pos(&c, m);

			m->offset = (uint32_t)(pos / 8);
			m->bit_offset = (uint8_t)(pos % 8);
		}
		*tail = m;
		tail = &m->next;
		if (m->type == NULL)
			*ok = false;
	}
	return mems;
}

static void members_free(dt_member_t *m)
{
	while (m != NULL) {
		dt_member_t *n = m->next;
		free(m);
		m = n;
	}
}

static dt_type_t *sou_type(dw_ctx_t *cx, Dwarf_Die *die)
{
	dt_typekind_t kind = dwarf_tag(die) == DW_TAG_union_type ?
			     DT_TK_UNION : DT_TK_STRUCT;
	dt_type_t *t = dt_type_tag(cx->tt, kind, dwarf_diename(die));
	Dwarf_Off off = dwarf_dieoffset(die);
	bool ok;

	if (t == NULL || t->complete || dwarf_hasattr(die, DW_AT_declaration))
		return t;
	for (int i = 0; i < cx->nbusy; i++)
		if (cx->busy[i] == off)
			return t;	/* being built: pointed to from inside */
	if (cx->nbusy == DT_DWARF_DEPTH)
		return NULL;
	cx->busy[cx->nbusy++] = off;
	dt_member_t *mems = members_of(cx, die, &ok);
	cx->nbusy--;
	if (ok && !t->complete && dt_type_complete_sou(cx->tt, t, mems) == 0) {
		/* DWARF's layout over C's (packed structs): same order */
		dt_member_t *d = t->members, *s = mems;
		for (; d != NULL && s != NULL; d = d->next, s = s->next)
			if (s->bit_size == 0)
				d->offset = s->offset;
			else	/* where DWARF puts it */
				dt_type_place_bitfield(d, (uint64_t)s->offset *
						       8 + s->bit_offset);
		t->size = udata(die, DW_AT_byte_size, t->size);
	}
	members_free(mems);
	return t;
}

static dt_type_t *die_type(dw_ctx_t *cx, Dwarf_Die *die)
{
	dt_typetab_t *tt = cx->tt;
	dt_type_t *t;

	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return base_type(tt, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		t = type_of(cx, die);
		if (t == NULL || t->kind == DT_TK_FUNC)
			t = dt_type_void(tt);	/* function pointers: void * */
		return dt_type_ptr(tt, t);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return type_of(cx, die);
	case DW_TAG_typedef:
		t = type_of(cx, die);
		if (t != NULL && dwarf_diename(die) != NULL &&
		    !dt_type_is_typedef_name(tt, dwarf_diename(die)) &&
		    dt_type_lookup(tt, dwarf_diename(die)) == NULL)
			dt_type_typedef(tt, dwarf_diename(die), t);
		return t;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return sou_type(cx, die);
	case DW_TAG_enumeration_type:
		return enum_type(tt, die);
	case DW_TAG_array_type:
		return array_type(cx, die);
	case DW_TAG_subroutine_type:
		return NULL;	/* as a pointer: void * */
	default:
		return NULL;
	}
}

/* --- functions --- */

static int index_cb(Dwarf_Die *fn, void *arg)
{
	dw_file_t *d = arg;
	const char *name = dwarf_diename(fn);

	if (name == NULL || dwarf_hasattr(fn, DW_AT_declaration))
		return DWARF_CB_OK;
	dt_array_room(d->funcs, d->nfuncs, d->cap);
	d->funcs[d->nfuncs++] = (dw_func_t){ name, dwarf_dieoffset(fn) };
	return DWARF_CB_OK;
}

static int func_cmp(const void *a, const void *b)
{
	return strcmp(((const dw_func_t *)a)->name,
		      ((const dw_func_t *)b)->name);
}

/* The DIE of the function named name in d: through an index of every
 * function of the file, built once (probes of a whole library are typed
 * one by one). */
static bool find_func(dw_file_t *d, const char *name, Dwarf_Die *out)
{
	dw_func_t key = { name, 0 }, *f;

	if (!d->indexed) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = NULL;

		while ((cu = dwfl_module_nextcu(d->mod, cu, &bias)) != NULL)
			dwarf_getfuncs(cu, index_cb, d, 0);
		if (d->nfuncs > 0)
			qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), func_cmp);
		d->indexed = true;
	}
	if (d->nfuncs == 0)
		return false;
	f = bsearch(&key, d->funcs, d->nfuncs, sizeof(*d->funcs), func_cmp);
	return f != NULL && dwarf_offdie(d->dw, f->off, out) != NULL;
}

int dt_dwarf_func_types(dtrace_hdl_t *dtp, const char *path,
			const char *func, dt_type_t **params, int max,
			dt_type_t **ret)
{
	dw_file_t *d = dwarf_of(dtp, path);
	dw_ctx_t cx = { .tt = dtp->types };
	Dwarf_Die fn, c;
	int n = 0;

	if (d == NULL || !find_func(d, func, &fn))
		return -1;
	if (ret != NULL)
		*ret = type_of(&cx, &fn);
	for (int r = dwarf_child(&fn, &c); r == 0 && n < max;
	     r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		params[n++] = type_of(&cx, &c);
	}
	return n;
}

int dt_dwarf_load_type(dtrace_hdl_t *dtp, const char *path, const char *name)
{
	dw_file_t *d = dwarf_of(dtp, path);
	const char *tag = name;
	int want = DW_TAG_typedef;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;

	if (d == NULL)
		return -1;
	if (strncmp(name, "struct ", 7) == 0)
		want = DW_TAG_structure_type, tag = name + 7;
	else if (strncmp(name, "union ", 6) == 0)
		want = DW_TAG_union_type, tag = name + 6;
	else if (strncmp(name, "enum ", 5) == 0)
		want = DW_TAG_enumeration_type, tag = name + 5;
	while ((cu = dwfl_module_nextcu(d->mod, cu, &bias)) != NULL) {
		Dwarf_Die c;

		for (int r = dwarf_child(cu, &c); r == 0;
		     r = dwarf_siblingof(&c, &c)) {
			const char *n = dwarf_diename(&c);

			if (dwarf_tag(&c) != want || n == NULL ||
			    strcmp(n, tag) != 0 ||
			    dwarf_hasattr(&c, DW_AT_declaration))
				continue;
			dw_ctx_t cx = { .tt = dtp->types };
			return die_type(&cx, &c) != NULL ? 0 : -1;
		}
	}
	return -1;
}

void dt_dwarf_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	dt_type_t *params[DTRACE_ARGS_MAX], *ret = NULL;
	bool entry = (prp->attr & DTRACE_PROBE_AT_ENTRY) != 0;
	int n;

	/* Its provider said which function of which file it is in. */
	if (prp->func_file == NULL || prp->fun == NULL ||
	    (!entry && !(prp->attr & DTRACE_PROBE_AT_RETURN)))
		return;
	n = dt_dwarf_func_types(dtp, prp->func_file, prp->fun, params,
				DTRACE_ARGS_MAX, &ret);
	if (n < 0)
		return;
	/* arg0 ... are the integer registers of the calling convention: a
	 * floating-point value is passed and returned in an SSE register
	 * instead, which a probe does not read, and the integer parameters
	 * after it take the registers it left.  So a floating-point return
	 * value, and a floating-point parameter and those after it, keep
	 * the registers' integer type. */
	if (!entry) {	/* arg0 the offset, arg1 the value returned */
		if (prp->nargs >= 2 && ret != NULL &&
		    ret->kind != DT_TK_VOID && !dt_type_is_float(ret))
			prp->argtypes[1] = ret;
		return;
	}
	for (int i = 0; i < n && i < prp->nargs; i++) {
		if (params[i] != NULL && dt_type_is_float(params[i]))
			break;
		if (params[i] != NULL)
			prp->argtypes[i] = params[i];
	}
	if (n < prp->nargs)	/* the parameters there are, no more */
		prp->nargs = n;
}

/* Whether a top-level DIE names a type scripts may use. */
static bool is_named_type(Dwarf_Die *c)
{
	switch (dwarf_tag(c)) {
	case DW_TAG_typedef:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return dwarf_diename(c) != NULL &&
		       !dwarf_hasattr(c, DW_AT_declaration);
	default:
		return false;
	}
}

int dt_dwarf_target_types(dtrace_hdl_t *dtp)
{
	const char *path;
	dw_file_t *d;
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	int n = 0;

	if (dtp->target <= 0 ||
	    (path = module_path(dtp, dtp->target, "a.out")) == NULL ||
	    (d = dwarf_of(dtp, path)) == NULL)
		return 0;
	while ((cu = dwfl_module_nextcu(d->mod, cu, &bias)) != NULL) {
		Dwarf_Die c;

		for (int r = dwarf_child(cu, &c); r == 0;
		     r = dwarf_siblingof(&c, &c)) {
			dw_ctx_t cx = { .tt = dtp->types };

			if (is_named_type(&c) && die_type(&cx, &c) != NULL)
				n++;
		}
	}
	return n;
}

dt_type_t *dt_dwarf_module_type(dtrace_hdl_t *dtp, const char *mod,
				dt_typekind_t kind, const char *tag)
{
	char name[512];
	const char *path = dtp->target > 0 ?
			   module_path(dtp, dtp->target, mod) : NULL;
	dt_type_t *t;

	snprintf(name, sizeof(name), "%s %s", kind == DT_TK_STRUCT ? "struct" :
		 kind == DT_TK_UNION ? "union" : "enum", tag);
	t = dt_type_lookup(dtp->types, name);
	if (t != NULL && t->complete)
		return t;
	if (path == NULL || dt_dwarf_load_type(dtp, path, name) != 0)
		return NULL;
	return dt_type_lookup(dtp->types, name);
}
