/* SPDX-License-Identifier: MIT */
/*
 * dt_btf.c: D types from the kernel's BTF.
 *
 * A kernel probe's provider names its argument types ("struct file *",
 * "size_t"); the engine finds the named type in the kernel's BTF
 * (/sys/kernel/btf/vmlinux, read once per session into dtp->kbtf) and
 * makes it a D type of the session's table, so that
 * args[0]->f_path.dentry->d_name.name reads the kernel's struct file.
 *
 * Types come over lazily: a struct or union is completed with its
 * members, and the structs it holds by value with theirs, but a member
 * that points to a named struct points to its tag, which is completed when
 * a script applies . or -> to it (dt_btf_complete, from the checker).
 * Members are laid out by C's rules, then given BTF's offsets and size;
 * the members of an anonymous struct or union member are the container's,
 * as C names them.
 * A member whose type D cannot hold becomes bytes of its size.  Struct,
 * union and enum tags share the session's namespace with the DWARF of
 * traced programs: the first definition of a tag wins.  Floating-point
 * types are D's float, double and long double; enums become integers of
 * their size (the enumerators are not made D constants).
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "dt_btf.h"
#include "dt_ksyms.h"
#include "dt_type.h"

#define DT_BTF_DEPTH	32	/* nesting of types followed at most */

/*
 * The session's index of the kernel's BTF (dtp->kbtf_names), made at the
 * first lookup: its named types (structs, unions, enums, typedefs) sorted
 * by name then kind, since libbpf's btf__find_by_name_kind() walks every
 * type; and the D type each BTF type became, so that a type is converted
 * once (an anonymous struct too), however many probes name it.
 */
typedef struct btf_name_ent {
	const char *name;
	uint32_t kind, id;
} btf_name_ent_t;

struct dt_btf_names {
	btf_name_ent_t *ents;
	size_t n;
	dt_type_t **done;	/* by BTF id */
	uint32_t ntypes;
};

static struct dt_btf_names *btf_names(dtrace_hdl_t *dtp);

static dt_type_t *btf_import(dtrace_hdl_t *dtp, uint32_t id, int depth);

struct btf *dt_btf_kernel(dtrace_hdl_t *dtp)
{
	if (dtp->kbtf == NULL)
		dtp->kbtf = btf__load_vmlinux_btf();
	return dtp->kbtf;
}

/* The byte offset of member in the struct or union t, looking into
 * anonymous members; -1 when it has none of that name. */
static int32_t btf_member_off(const struct btf *btf, const struct btf_type *t,
			      const char *member)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bits = btf_member_bit_offset(t, (uint32_t)i);
		const char *name = btf__name_by_offset(btf, m->name_off);
		if (name != NULL && strcmp(name, member) == 0)
			return (int32_t)(bits / 8);
		if (name == NULL || *name == '\0') {	/* anonymous union */
			const struct btf_type *u =
				btf__type_by_id(btf, m->type);
			while (u != NULL && (btf_is_mod(u) || btf_is_typedef(u)))
				u = btf__type_by_id(btf, u->type);
			if (u == NULL || !btf_is_composite(u))
				continue;
			int32_t o = btf_member_off(btf, u, member);
			if (o >= 0)
				return (int32_t)(bits / 8) + o;
		}
	}
	return -1;
}

int32_t dt_btf_member_offset(dtrace_hdl_t *dtp, const char *sou,
			     const char *member)
{
	const struct btf *btf = dt_btf_kernel(dtp);

	if (btf == NULL)
		return -1;
	int id = btf__find_by_name_kind(btf, sou, BTF_KIND_STRUCT);
	if (id <= 0)
		return -1;
	return btf_member_off(btf, btf__type_by_id(btf, (uint32_t)id), member);
}

/* The name of a BTF type, or NULL when it has none. */
static const char *btf_name(const struct btf *btf, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(btf, t->name_off);

	return s != NULL && s[0] != '\0' ? s : NULL;
}

/* Bytes of the size of BTF type id, for what D cannot hold. */
static dt_type_t *btf_bytes(dtrace_hdl_t *dtp, uint32_t id)
{
	__s64 size = btf__resolve_size(dtp->kbtf, id);

	return dt_type_array(dtp->types, dt_type_int(dtp->types, 1, true),
			     size > 0 ? (uint64_t)size : 0);
}

static dt_type_t *btf_int_type(dtrace_hdl_t *dtp, const struct btf_type *t)
{
	bool sign = (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED)) ||
		    ((btf_is_enum(t) || btf_is_enum64(t)) && btf_kflag(t));

	/* C's char is D's char, signed, even in a kernel built with
	 * -funsigned-char (Linux 6.2 and later): comm is a char[16] */
	if (btf_is_int(t) && ((btf_int_encoding(t) & BTF_INT_CHAR) ||
			      (t->size == 1 && btf_name(dtp->kbtf, t) != NULL &&
			       strcmp(btf_name(dtp->kbtf, t), "char") == 0)))
		sign = true;
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		return dt_type_array(dtp->types, dt_type_int(dtp->types, 1, true),
				     t->size);
	return dt_type_int(dtp->types, t->size, sign);
}

/* The members of a struct or union being filled: D's, and BTF's offset
 * of each in bytes. */
typedef struct btf_mems {
	dt_member_t *m;
	uint32_t *off;
	int n, cap, offcap;
} btf_mems_t;

/* The anonymous struct or union a member of type id is, or NULL. */
static const struct btf_type *btf_anon_sou(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t != NULL && (btf_is_mod(t) || btf_is_type_tag(t)))
		t = btf__type_by_id(btf, t->type);
	return t != NULL && btf_is_composite(t) && btf_name(btf, t) == NULL ?
	       t : NULL;
}

/* The width of member i of t as a bit-field (0: none), *bits moved to its
 * first bit: BTF with kind_flag says it in the member, older BTF in an int
 * type of fewer bits than its size (BTF_INT_BITS, BTF_INT_OFFSET). */
static uint8_t btf_bitfield(const struct btf *btf, const struct btf_type *t,
			    int i, uint32_t *bits)
{
	uint32_t size = btf_member_bitfield_size(t, (uint32_t)i);
	const struct btf_type *mt;

	if (size != 0 || btf_kflag(t))
		return (uint8_t)size;
	mt = btf__type_by_id(btf, btf_members(t)[i].type);
	if (mt == NULL || !btf_is_int(mt) ||
	    (btf_int_bits(mt) == mt->size * 8 && btf_int_offset(mt) == 0))
		return 0;
	*bits += btf_int_offset(mt);
	return btf_int_bits(mt);
}

/* Add the members of t at byte offset base; those of an unnamed member of
 * an anonymous struct or union type are added in its place, as C lets
 * them be named (a named member of such a type, as the kernel's
 * struct_group() makes, stays one member). */
static void btf_add_members(dtrace_hdl_t *dtp, btf_mems_t *ms,
			    const struct btf_type *t, uint32_t base, int depth)
{
	const struct btf_member *bm = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mname = btf__name_by_offset(dtp->kbtf,
							bm[i].name_off);
		const struct btf_type *anon = mname == NULL || mname[0] == '\0' ?
			btf_anon_sou(dtp->kbtf, bm[i].type) : NULL;
		uint32_t bits = btf_member_bit_offset(t, i);
		uint32_t off = base + bits / 8;
		if (anon != NULL && depth < DT_BTF_DEPTH) {
			btf_add_members(dtp, ms, anon, off, depth + 1);
			continue;
		}
		dt_array_room(ms->m, ms->n, ms->cap);
		dt_array_room(ms->off, ms->n, ms->offcap);
		dt_member_t *m = &ms->m[ms->n];
		m->name = mname != NULL && mname[0] != '\0' ? mname : NULL;
		m->type = btf_import(dtp, bm[i].type, depth + 1);
		m->bit_size = btf_bitfield(dtp->kbtf, t, i, &bits);
		if (m->type == NULL || (!m->type->complete &&
					m->type->kind != DT_TK_ENUM) ||
		    m->type->kind == DT_TK_VOID || m->type->kind == DT_TK_FUNC)
			m->type = btf_bytes(dtp, bm[i].type);
		if (m->bit_size != 0) {	/* its bit, in place of its byte */
			off = base + bits / 8;
			m->bit_offset = (uint8_t)(bits % 8);
		}
		ms->off[ms->n++] = off;
	}
}

/* Fill the struct or union tag s from BTF type t: laid out by C's rules,
 * then given BTF's offsets (members of a union, or of an anonymous union
 * flattened into a struct, share theirs) and size. */
static void btf_sou_fill(dtrace_hdl_t *dtp, dt_type_t *s,
			 const struct btf_type *t, int depth)
{
	btf_mems_t ms = { 0 };

	btf_add_members(dtp, &ms, t, 0, depth);
	for (int i = 0; i + 1 < ms.n; i++)
		ms.m[i].next = &ms.m[i + 1];
	if (dt_type_complete_sou(dtp->types, s, ms.n ? ms.m : NULL) == 0) {
		dt_member_t *d = s->members;
		for (int i = 0; d != NULL && i < ms.n; d = d->next, i++)
			if (ms.m[i].bit_size == 0)
				d->offset = ms.off[i];
			else	/* where BTF puts it */
				dt_type_place_bitfield(d, (uint64_t)ms.off[i] *
						       8 + ms.m[i].bit_offset);
		s->size = t->size;
	}
	free(ms.m);
	free(ms.off);
}

static dt_type_t *btf_sou(dtrace_hdl_t *dtp, const struct btf_type *t,
			  int depth)
{
	dt_typekind_t kind = btf_is_union(t) ? DT_TK_UNION : DT_TK_STRUCT;
	dt_type_t *s = dt_type_tag(dtp->types, kind, btf_name(dtp->kbtf, t));

	if (s != NULL && !s->complete && !btf_is_fwd(t) && depth < DT_BTF_DEPTH)
		btf_sou_fill(dtp, s, t, depth);
	return s;
}

/* A pointer: to the tag of a named struct or union (completed when used),
 * void * for a function, else to the type. */
static dt_type_t *btf_ptr(dtrace_hdl_t *dtp, uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(dtp->kbtf, id);
	uint32_t base = id;

	while (t != NULL && (btf_is_mod(t) || btf_is_type_tag(t)))
		t = btf__type_by_id(dtp->kbtf, base = t->type);
	if (t == NULL || btf_is_func_proto(t))
		return dt_type_ptr(dtp->types, dt_type_void(dtp->types));
	if ((btf_is_composite(t) || btf_is_fwd(t)) && btf_name(dtp->kbtf, t))
		return dt_type_ptr(dtp->types, dt_type_tag(dtp->types,
			btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ?
			DT_TK_UNION : DT_TK_STRUCT, btf_name(dtp->kbtf, t)));
	dt_type_t *b = btf_import(dtp, base, depth + 1);
	return dt_type_ptr(dtp->types, b ? b : dt_type_void(dtp->types));
}

/* The D type of BTF type id, or NULL for one D has no equivalent of. */
static dt_type_t *btf_convert(dtrace_hdl_t *dtp, uint32_t id, int depth)
{
	const struct btf_type *t = btf__type_by_id(dtp->kbtf, id);
	dt_type_t *b;

	if (id == 0)
		return dt_type_void(dtp->types);
	if (t == NULL || depth >= DT_BTF_DEPTH)
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		return btf_int_type(dtp, t);
	case BTF_KIND_FLOAT:
		b = dt_type_c_float(dtp->types, t->size,
				    btf_name(dtp->kbtf, t));
		return b != NULL ? b : btf_int_type(dtp, t);
	case BTF_KIND_PTR:
		return btf_ptr(dtp, t->type, depth);
	case BTF_KIND_ARRAY:
		b = btf_import(dtp, btf_array(t)->type, depth + 1);
		return b && b->complete ? dt_type_array(dtp->types, b,
						btf_array(t)->nelems) : NULL;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FWD:
		return btf_sou(dtp, t, depth);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		/* an integer of its size: the kernel's thousands of
		 * enumerators are not made D constants */
		return btf_int_type(dtp, t);
	case BTF_KIND_TYPEDEF:
		b = btf_import(dtp, t->type, depth + 1);
		if (b != NULL && btf_name(dtp->kbtf, t) &&
		    !dt_type_is_typedef_name(dtp->types, btf_name(dtp->kbtf, t)) &&
		    dt_type_lookup(dtp->types, btf_name(dtp->kbtf, t)) == NULL)
			dt_type_typedef(dtp->types, btf_name(dtp->kbtf, t), b);
		return b;
	case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return btf_import(dtp, t->type, depth + 1);
	default:
		return NULL;
	}
}

static int name_ent_cmp(const void *a, const void *b)
{
	const btf_name_ent_t *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static struct dt_btf_names *btf_names(dtrace_hdl_t *dtp)
{
	struct dt_btf_names *ix = dtp->kbtf_names;

	if (ix != NULL)
		return ix;
	ix = dtp->kbtf_names = dt_zalloc(sizeof(*ix));
	uint32_t cnt = btf__type_cnt(dtp->kbtf);
	ix->ents = dt_zalloc(cnt * sizeof(*ix->ents));
	ix->done = dt_zalloc(cnt * sizeof(*ix->done));
	ix->ntypes = cnt;
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(dtp->kbtf, id);
		int k = btf_kind(t);
		const char *name = btf_name(dtp->kbtf, t);
		if (name != NULL && (k == BTF_KIND_STRUCT || k == BTF_KIND_UNION ||
				     k == BTF_KIND_ENUM || k == BTF_KIND_TYPEDEF))
			ix->ents[ix->n++] = (btf_name_ent_t){ name, (uint32_t)k, id };
	}
	qsort(ix->ents, ix->n, sizeof(*ix->ents), name_ent_cmp);
	return ix;
}

/* The id of the type of that kind and name, or 0. */
static uint32_t btf_find(dtrace_hdl_t *dtp, const char *name, int kind)
{
	struct dt_btf_names *ix = btf_names(dtp);
	btf_name_ent_t key = { name, (uint32_t)kind, 0 };
	btf_name_ent_t *e = bsearch(&key, ix->ents, ix->n, sizeof(*ix->ents),
				    name_ent_cmp);

	return e ? e->id : 0;
}

void dt_btf_fini(dtrace_hdl_t *dtp)
{
	if (dtp->kbtf_names != NULL) {
		free(dtp->kbtf_names->ents);
		free(dtp->kbtf_names->done);
	}
	free(dtp->kbtf_names);
	dtp->kbtf_names = NULL;
	btf__free(dtp->kbtf);
	dtp->kbtf = NULL;
}

/* btf_convert() once per type: a struct is remembered before its members
 * are converted, which may point back to it. */
static dt_type_t *btf_import(dtrace_hdl_t *dtp, uint32_t id, int depth)
{
	struct dt_btf_names *ix = btf_names(dtp);
	const struct btf_type *t = btf__type_by_id(dtp->kbtf, id);

	if (id >= ix->ntypes || t == NULL)
		return btf_convert(dtp, id, depth);
	if (ix->done[id] != NULL)
		return ix->done[id];	/* a struct may be being filled */
	if (btf_is_composite(t)) {
		dt_typekind_t kind = btf_is_union(t) ? DT_TK_UNION : DT_TK_STRUCT;
		dt_type_t *s = dt_type_tag(dtp->types, kind, btf_name(dtp->kbtf, t));
		ix->done[id] = s;
		if (s != NULL && !s->complete && depth < DT_BTF_DEPTH)
			btf_sou_fill(dtp, s, t, depth);
		return s;
	}
	return ix->done[id] = btf_convert(dtp, id, depth);
}

/* The D type a provider's name gives, from BTF: "struct file *",
 * "loff_t *", "umode_t"; NULL when BTF does not name its base. */
static dt_type_t *btf_named(dtrace_hdl_t *dtp, const char *text)
{
	static const struct { const char *kw; int kind; } kws[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	char name[256];
	int kind = BTF_KIND_TYPEDEF, stars = 0;

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (strncmp(text, kws[i].kw, strlen(kws[i].kw)) == 0) {
			text += strlen(kws[i].kw);
			kind = kws[i].kind;
		}
	size_t len = strcspn(text, " *");
	if (len == 0 || len >= sizeof(name))
		return NULL;
	memcpy(name, text, len);
	name[len] = '\0';
	for (const char *p = text + len; *p; p++)
		stars += *p == '*';
	uint32_t id = btf_find(dtp, name, kind);
	if (id == 0)
		return NULL;
	dt_type_t *t = btf_import(dtp, (uint32_t)id, 0);
	for (int i = 0; t != NULL && i < stars; i++)
		t = dt_type_ptr(dtp->types, t);
	return t;
}

dt_type_t *dt_btf_type(dtrace_hdl_t *dtp, const char *name)
{
	return dt_btf_kernel(dtp) != NULL ? btf_named(dtp, name) : NULL;
}

dt_type_t *dt_btf_scoped_typedef(dtrace_hdl_t *dtp, const char *ref)
{
	static const char mod[] = "vmlinux`";
	const char *name = ref + sizeof(mod) - 1;

	if (strncmp(ref, mod, sizeof(mod) - 1) != 0 || *name == '\0' ||
	    strpbrk(name, "` *") != NULL || dt_btf_kernel(dtp) == NULL ||
	    btf_find(dtp, name, BTF_KIND_TYPEDEF) == 0)
		return NULL;
	return btf_named(dtp, name);
}

void dt_btf_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	if (!(prp->attr & DTRACE_PROBE_KERNEL) || dt_btf_kernel(dtp) == NULL)
		return;
	for (int i = 0; i < prp->nargs; i++) {
		const dtrace_argdesc_t *a = &prp->args[i];
		dt_type_t *n = a->native ? btf_named(dtp, a->native) : NULL;
		dt_type_t *t = a->xlate ? btf_named(dtp, a->xlate) : n;
		if (n != NULL)
			prp->nativetypes[i] = n;
		/* a translated type that no D library defined: the native */
		if (t == NULL && a->xlate != NULL &&
		    dt_type_parse(dtp->types, a->xlate) == NULL)
			t = n;
		if (t != NULL)
			prp->argtypes[i] = t;
	}
}

/* The section of the kernel's per-CPU variables, or NULL */
static const struct btf_type *btf_percpu_sec(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);

	return id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
}

/* The per-CPU variable name: its D type and place in the per-CPU area */
static bool btf_percpu_var(dtrace_hdl_t *dtp, const char *name,
			   dt_type_t **type, uint32_t *off)
{
	const struct btf *btf = dt_btf_kernel(dtp);
	const struct btf_type *sec = btf ? btf_percpu_sec(btf) : NULL;

	if (sec == NULL)
		return false;
	const struct btf_var_secinfo *v = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);
		if (var == NULL || !btf_is_var(var) ||
		    strcmp(btf__name_by_offset(btf, var->name_off), name) != 0)
			continue;
		*type = btf_import(dtp, var->type, 0);
		*off = v->offset;
		return *type != NULL;
	}
	return false;
}

dt_ksym_kind_t dt_btf_kernel_symbol(dtrace_hdl_t *dtp, const char *name,
				    dt_type_t **type, int64_t *from_rq)
{
	dt_type_t *rqt;
	uint32_t off, rq;

	if (btf_percpu_var(dtp, name, type, &off) &&
	    btf_percpu_var(dtp, "runqueues", &rqt, &rq)) {
		*from_rq = (int64_t)off - (int64_t)rq;
		return DT_KSYM_PERCPU;
	}
	return dt_ksym_exists(name) ? DT_KSYM_UNTYPED : DT_KSYM_UNKNOWN;
}

bool dt_btf_complete(dtrace_hdl_t *dtp, dt_type_t *t)
{
	const char *tag = strchr(t->name, ' ');

	if (t->complete || dtp->kbtf == NULL || tag == NULL ||
	    (t->kind != DT_TK_STRUCT && t->kind != DT_TK_UNION))
		return t->complete;
	uint32_t id = btf_find(dtp, tag + 1, t->kind == DT_TK_UNION ?
					     BTF_KIND_UNION : BTF_KIND_STRUCT);
	if (id > 0)
		btf_sou_fill(dtp, t, btf__type_by_id(dtp->kbtf, id), 0);
	return t->complete;
}
