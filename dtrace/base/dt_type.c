/* SPDX-License-Identifier: MIT */
/*
 * dt_type.c: the session's table of D types.
 *
 * Invariants:
 *  - Every type node, name string, member and enum constant is allocated
 *    through tt_alloc() and recorded on the table's owned list, so
 *    dt_typetab_destroy() frees everything in one pass; nothing handed in by
 *    a caller (parser nodes live in a compile's arena) is kept by reference.
 *  - A name maps to exactly one type.  Typedef names, the built-in typedefs
 *    (uint64_t, size_t, ...) and the C spellings of integer types all map
 *    straight to the canonical node, so the checker compares types by
 *    identity.  `long long` is the same node as `long` (LP64); float,
 *    double and long double are one node each.
 *  - Pointer types are cached on their base (ptr_cache); array types are
 *    found again by (element, count) so they are unique too.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_type.h"
#include "dt_strmap.h"

#define TT_NBUCKETS 256

/* One name of the table: a built-in spelling, a typedef or a tag. */
typedef struct dt_tname {
	const char *name;
	dt_type_t *type;
	bool is_typedef;	/* a single identifier usable as a type name */
	struct dt_tname *next;
} dt_tname_t;

/* Every allocation of the table, freed at destroy. */
typedef struct dt_owned {
	struct dt_owned *next;
	max_align_t data[];
} dt_owned_t;

struct dt_typetab {
	dt_owned_t *owned;
	dt_type_t *all;
	dt_tname_t *buckets[TT_NBUCKETS];
	dt_type_t *void_t, *string_t, *bool_t;
	dt_type_t *sints[9], *uints[9];	/* indexed by size 1, 2, 4, 8 */
	dt_type_t *float_t, *double_t, *ldouble_t;
	dt_type_t *stack_t, *usymaddr_t;	/* see dt_type_stack() */
	dt_strmap_t enums;	/* the enumerators of complete enums, by name:
				   tag ENUM_VAL their dt_enumval_t, ENUM_TYPE
				   their type */
};

enum { ENUM_VAL, ENUM_TYPE };

static void *tt_alloc(dt_typetab_t *tt, size_t size)
{
	dt_owned_t *o = calloc(1, sizeof(*o) + size);

	if (o == NULL)
		abort();	/* like dt_zalloc: out of memory is fatal */
	o->next = tt->owned;
	tt->owned = o;
	return o->data;
}

static char *tt_strdup(dt_typetab_t *tt, const char *s)
{
	size_t n = strlen(s);
	char *p = tt_alloc(tt, n + 1);

	memcpy(p, s, n);
	return p;
}

static unsigned name_hash(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % TT_NBUCKETS;
}

static dt_tname_t *name_find(dt_typetab_t *tt, const char *name)
{
	dt_tname_t *n;

	for (n = tt->buckets[name_hash(name)]; n != NULL; n = n->next)
		if (strcmp(n->name, name) == 0)
			return n;
	return NULL;
}

static void name_add(dt_typetab_t *tt, const char *name, dt_type_t *t,
		     bool is_typedef)
{
	dt_tname_t *n = tt_alloc(tt, sizeof(*n));
	unsigned h = name_hash(name);

	n->name = tt_strdup(tt, name);
	n->type = t;
	n->is_typedef = is_typedef;
	n->next = tt->buckets[h];
	tt->buckets[h] = n;
}

static dt_type_t *type_new(dt_typetab_t *tt, dt_typekind_t kind,
			   const char *name, uint64_t size, uint32_t align)
{
	dt_type_t *t = tt_alloc(tt, sizeof(*t));

	t->kind = kind;
	t->name = tt_strdup(tt, name);
	t->size = size;
	t->align = align ? align : 1;
	t->complete = true;
	t->next_all = tt->all;
	tt->all = t;
	return t;
}

static dt_type_t *int_new(dt_typetab_t *tt, const char *name, unsigned size,
			  bool is_signed)
{
	dt_type_t *t = type_new(tt, DT_TK_INT, name, size, size);

	t->is_signed = is_signed;
	name_add(tt, name, t, false);
	return t;
}

static dt_type_t *float_new(dt_typetab_t *tt, const char *name,
			    unsigned size)
{
	dt_type_t *t = type_new(tt, DT_TK_FLOAT, name, size, size);

	name_add(tt, name, t, false);
	return t;
}

/* The built-in typedefs of D (and of the C headers providers use). */
static const struct {
	const char *name;
	const char *target;
} builtin_typedefs[] = {
	{ "int8_t", "char" }, { "int16_t", "short" }, { "int32_t", "int" },
	{ "int64_t", "long" }, { "uint8_t", "unsigned char" },
	{ "uint16_t", "unsigned short" }, { "uint32_t", "unsigned int" },
	{ "uint64_t", "unsigned long" }, { "intptr_t", "long" },
	{ "uintptr_t", "unsigned long" }, { "size_t", "unsigned long" },
	{ "ssize_t", "long" }, { "off_t", "long" }, { "off64_t", "long" },
	{ "pid_t", "int" }, { "tid_t", "int" }, { "uid_t", "unsigned int" },
	{ "gid_t", "unsigned int" }, { "id_t", "int" }, { "time_t", "long" },
	{ "uchar_t", "unsigned char" }, { "ushort_t", "unsigned short" },
	{ "uint_t", "unsigned int" }, { "ulong_t", "unsigned long" },
	{ "u_longlong_t", "unsigned long" }, { "longlong_t", "long" },
	{ "ptrdiff_t", "long" }, { "dev_t", "unsigned long" },
	{ "ino_t", "unsigned long" }, { "mode_t", "unsigned int" },
	{ "ipaddr_t", "unsigned int" },	/* inet_ntoa()'s, as in DTrace */
};

/*
 * struct in6_addr and its typedef in6_addr_t, the type inet_ntoa6() takes,
 * laid out as Linux declares it (a union of the address as 16 bytes, 8
 * shorts or 4 ints), so that scripts name it without a header; the
 * kernel's BTF, when read, finds the tag complete and keeps it.
 */
static void in6_addr_new(dt_typetab_t *tt)
{
	dt_member_t u[3] = {
		{ .name = "u6_addr8",
		  .type = dt_type_array(tt, tt->uints[1], 16), .next = &u[1] },
		{ .name = "u6_addr16",
		  .type = dt_type_array(tt, tt->uints[2], 8), .next = &u[2] },
		{ .name = "u6_addr32",
		  .type = dt_type_array(tt, tt->uints[4], 4) },
	};
	dt_type_t *un = dt_type_tag(tt, DT_TK_UNION, NULL);
	dt_type_t *st = dt_type_tag(tt, DT_TK_STRUCT, "in6_addr");

	dt_type_complete_sou(tt, un, u);
	dt_member_t s = { .name = "in6_u", .type = un };
	dt_type_complete_sou(tt, st, &s);
	st->builtin = true;	/* <netinet/in.h> has its own */
	name_add(tt, "in6_addr_t", st, true);
}

dt_typetab_t *dt_typetab_create(void)
{
	dt_typetab_t *tt = calloc(1, sizeof(*tt));
	size_t i;

	if (tt == NULL)
		return NULL;
	tt->void_t = type_new(tt, DT_TK_VOID, "void", 0, 1);
	name_add(tt, "void", tt->void_t, false);
	tt->string_t = type_new(tt, DT_TK_STRING, "string", 0, 1);
	name_add(tt, "string", tt->string_t, false);

	tt->sints[1] = int_new(tt, "char", 1, true);
	tt->uints[1] = int_new(tt, "unsigned char", 1, false);
	tt->sints[2] = int_new(tt, "short", 2, true);
	tt->uints[2] = int_new(tt, "unsigned short", 2, false);
	tt->sints[4] = int_new(tt, "int", 4, true);
	tt->uints[4] = int_new(tt, "unsigned int", 4, false);
	tt->sints[8] = int_new(tt, "long", 8, true);
	tt->uints[8] = int_new(tt, "unsigned long", 8, false);
	tt->float_t = float_new(tt, "float", 4);
	tt->double_t = float_new(tt, "double", 8);
	tt->ldouble_t = float_new(tt, "long double", 16);
	/* not in the namespace: no script can name them */
	tt->stack_t = type_new(tt, DT_TK_VOID, "stack", 0, 1);
	tt->usymaddr_t = type_new(tt, DT_TK_VOID, "_usymaddr", 0, 1);
	tt->bool_t = type_new(tt, DT_TK_INT, "_Bool", 1, 1);
	name_add(tt, "_Bool", tt->bool_t, true);

	for (i = 0; i < sizeof(builtin_typedefs) / sizeof(builtin_typedefs[0]);
	     i++) {
		dt_type_t *t = dt_type_parse(tt, builtin_typedefs[i].target);

		name_add(tt, builtin_typedefs[i].name, t, true);
	}
	in6_addr_new(tt);
	return tt;
}

void dt_typetab_destroy(dt_typetab_t *tt)
{
	dt_owned_t *o, *next;

	if (tt == NULL)
		return;
	for (o = tt->owned; o != NULL; o = next) {
		next = o->next;
		free(o);
	}
	dt_strmap_fini(&tt->enums);
	free(tt);
}

dt_type_t *dt_type_void(dt_typetab_t *tt)
{
	return tt->void_t;
}

dt_type_t *dt_type_stack(dt_typetab_t *tt, bool usym)
{
	return usym ? tt->usymaddr_t : tt->stack_t;
}

bool dt_type_is_action_value(const dt_type_t *t)
{
	return t->kind == DT_TK_VOID && (strcmp(t->name, "stack") == 0 ||
					 strcmp(t->name, "_usymaddr") == 0);
}

dt_type_t *dt_type_string(dt_typetab_t *tt)
{
	return tt->string_t;
}

dt_type_t *dt_type_int(dt_typetab_t *tt, unsigned size, bool is_signed)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return NULL;
	return is_signed ? tt->sints[size] : tt->uints[size];
}

dt_type_t *dt_type_float(dt_typetab_t *tt, unsigned size)
{
	return size == 4 ? tt->float_t : size == 8 ? tt->double_t :
	       size == 16 ? tt->ldouble_t : NULL;
}

bool dt_type_float_value(const dt_type_t *t, const void *p, long double *v)
{
	float f;
	double d;

	if (t == NULL || t->kind != DT_TK_FLOAT)
		return false;
	switch (t->size) {
	case 4:
		memcpy(&f, p, sizeof(f));
		*v = f;
		return true;
	case 8:
		memcpy(&d, p, sizeof(d));
		*v = d;
		return true;
	case 16:
		memcpy(v, p, sizeof(*v));
		return true;
	default:
		return false;
	}
}

dt_type_t *dt_type_c_float(dt_typetab_t *tt, uint64_t size, const char *name)
{
	if (size == 16 && (name == NULL || strcmp(name, "long double") != 0))
		return NULL;
	return size <= 16 ? dt_type_float(tt, (unsigned)size) : NULL;
}

dt_type_t *dt_type_ptr(dt_typetab_t *tt, dt_type_t *base)
{
	char *name;
	size_t n;

	if (base->ptr_cache != NULL)
		return base->ptr_cache;
	/* "char" -> "char *", "char *" -> "char **" */
	n = strlen(base->name);
	name = malloc(n + 3);
	if (name == NULL)
		abort();
	snprintf(name, n + 3, "%s%s", base->name,
		 n > 0 && base->name[n - 1] == '*' ? "*" : " *");
	base->ptr_cache = type_new(tt, DT_TK_PTR, name, 8, 8);
	base->ptr_cache->base = base;
	free(name);
	return base->ptr_cache;
}

dt_type_t *dt_type_array(dt_typetab_t *tt, dt_type_t *elem, uint64_t n)
{
	dt_type_t *t;
	char buf[512];

	for (t = tt->all; t != NULL; t = t->next_all)
		if (t->kind == DT_TK_ARRAY && t->base == elem &&
		    t->nelems == n)
			return t;
	snprintf(buf, sizeof(buf), "%s [%llu]", elem->name,
		 (unsigned long long)n);
	t = type_new(tt, DT_TK_ARRAY, buf, elem->size * n, elem->align);
	t->base = elem;
	t->nelems = n;
	return t;
}

/*
 * Type-name parsing for provider argument strings and lookups: a list of
 * specifier words, then '*'s, then optional "[N]" suffixes.  Tags are
 * created (incomplete) when create_tags is set.
 */
typedef struct tp_spec {
	int nsigned, nunsigned, nshort, nlong, nint, nchar, nvoid;
	int nfloat, ndouble;
	dt_type_t *named;	/* string, typedef name or tag */
	int nnamed;
} tp_spec_t;

static const char *tp_word(const char *p, char *word, size_t size)
{
	size_t n = 0;

	while (isalnum((unsigned char)*p) || *p == '_') {
		if (n + 1 < size)
			word[n++] = *p;
		p++;
	}
	word[n] = '\0';
	return p;
}

static const char *tp_skip(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* float, double and long double: with no other word but one long of a
 * double. */
static dt_type_t *tp_float(dt_typetab_t *tt, const tp_spec_t *s, int nbasic)
{
	if (s->nfloat + s->ndouble > 1 || s->nsigned + s->nunsigned > 0 ||
	    nbasic != s->nlong || s->nlong > s->ndouble)
		return NULL;
	return s->nfloat ? tt->float_t : s->nlong ? tt->ldouble_t :
	       tt->double_t;
}

static dt_type_t *tp_resolve(dt_typetab_t *tt, const tp_spec_t *s)
{
	int nbasic = s->nshort + s->nlong + s->nint + s->nchar + s->nvoid;
	unsigned size = 4;

	if (s->nnamed > 1 || (s->nnamed == 1 &&
	    nbasic + s->nsigned + s->nunsigned + s->nfloat + s->ndouble > 0))
		return NULL;
	if (s->nnamed == 1)
		return s->named;
	if (s->nfloat + s->ndouble > 0)
		return tp_float(tt, s, nbasic);
	if (s->nsigned + s->nunsigned > 1 || s->nint > 1 || s->nchar > 1 ||
	    s->nshort > 1 || s->nlong > 2 || s->nvoid > 1)
		return NULL;
	if (s->nvoid)
		return nbasic + s->nsigned + s->nunsigned == 1 ? tt->void_t :
		       NULL;
	if (s->nchar) {
		if (s->nshort || s->nlong || s->nint)
			return NULL;
		return s->nunsigned ? tt->uints[1] : tt->sints[1];
	}
	if (s->nshort && s->nlong)
		return NULL;
	if (nbasic + s->nsigned + s->nunsigned == 0)
		return NULL;
	if (s->nshort)
		size = 2;
	else if (s->nlong)
		size = 8;
	return s->nunsigned ? tt->uints[size] : tt->sints[size];
}

static const char *tp_tag(dt_typetab_t *tt, const char *p, const char *kw,
			  tp_spec_t *s, bool create_tags)
{
	char word[256], name[300];
	dt_typekind_t kind = strcmp(kw, "struct") == 0 ? DT_TK_STRUCT :
			     strcmp(kw, "union") == 0 ? DT_TK_UNION :
			     DT_TK_ENUM;
	dt_tname_t *n;

	p = tp_word(tp_skip(p), word, sizeof(word));
	if (word[0] == '\0') {
		s->nnamed = 99;	/* error */
		return p;
	}
	snprintf(name, sizeof(name), "%.8s %.255s", kw, word);
	n = name_find(tt, name);
	s->nnamed++;
	if (n != NULL)
		s->named = n->type;
	else if (create_tags)
		s->named = dt_type_tag(tt, kind, word);
	else
		s->nnamed = 99;
	return p;
}

static dt_type_t *tp_parse(dt_typetab_t *tt, const char *text,
			   bool create_tags)
{
	tp_spec_t s = { 0 };
	const char *p = tp_skip(text);
	char word[256];
	dt_type_t *t;

	while (isalpha((unsigned char)*p) || *p == '_') {
		p = tp_word(p, word, sizeof(word));
		if (!strcmp(word, "const") || !strcmp(word, "volatile") ||
		    !strcmp(word, "restrict") || !strcmp(word, "userland"))
			;
		else if (!strcmp(word, "signed"))
			s.nsigned++;
		else if (!strcmp(word, "unsigned"))
			s.nunsigned++;
		else if (!strcmp(word, "short"))
			s.nshort++;
		else if (!strcmp(word, "long"))
			s.nlong++;
		else if (!strcmp(word, "int"))
			s.nint++;
		else if (!strcmp(word, "char"))
			s.nchar++;
		else if (!strcmp(word, "void"))
			s.nvoid++;
		else if (!strcmp(word, "float"))
			s.nfloat++;
		else if (!strcmp(word, "double"))
			s.ndouble++;
		else if (!strcmp(word, "struct") || !strcmp(word, "union") ||
			 !strcmp(word, "enum"))
			p = tp_tag(tt, p, word, &s, create_tags);
		else {
			dt_tname_t *n = name_find(tt, word);

			if (n == NULL || (!n->is_typedef &&
			    n->type != tt->string_t))
				return NULL;
			s.named = n->type;
			s.nnamed++;
		}
		p = tp_skip(p);
	}
	if ((t = tp_resolve(tt, &s)) == NULL)
		return NULL;
	for (;;) {
		p = tp_skip(p);
		if (*p == '*') {
			t = dt_type_ptr(tt, t);
			p++;
		} else if (!strncmp(p, "const", 5) || !strncmp(p, "volatile", 8)
			   || !strncmp(p, "restrict", 8)) {
			p = tp_word(p, word, sizeof(word));
			if (strcmp(word, "const") && strcmp(word, "volatile") &&
			    strcmp(word, "restrict"))
				return NULL;
		} else {
			break;
		}
	}
	while (*p == '[') {
		char *end;
		unsigned long long n = strtoull(p + 1, &end, 0);

		end = (char *)tp_skip(end);
		if (*end != ']' || t->kind == DT_TK_VOID)
			return NULL;
		t = dt_type_array(tt, t, n);
		p = tp_skip(end + 1);
	}
	return *p == '\0' ? t : NULL;
}

dt_type_t *dt_type_parse(dt_typetab_t *tt, const char *text)
{
	if (text == NULL)
		return NULL;
	return tp_parse(tt, text, true);
}

dt_type_t *dt_type_lookup(dt_typetab_t *tt, const char *name)
{
	dt_tname_t *n;

	if (name == NULL)
		return NULL;
	if ((n = name_find(tt, name)) != NULL)
		return n->type;
	return tp_parse(tt, name, false);
}

int dt_type_typedef(dt_typetab_t *tt, const char *name, dt_type_t *type)
{
	dt_tname_t *n = name_find(tt, name);

	if (n != NULL) {
		/* a compatible redeclaration: the same type, or an integer
		 * of the same size (C's headers and D's own typedefs name
		 * the same types: glibc's id_t is unsigned, D's signed);
		 * the first one stays */
		if (n->is_typedef && (n->type == type ||
		    (dt_type_is_integer(n->type) && dt_type_is_integer(type) &&
		     n->type->size == type->size)))
			return 0;
		errno = EEXIST;
		return -1;
	}
	if (name[0] == '\0' || type == NULL) {
		errno = EINVAL;
		return -1;
	}
	name_add(tt, name, type, true);
	return 0;
}

bool dt_type_is_typedef_name(dt_typetab_t *tt, const char *name)
{
	dt_tname_t *n = name_find(tt, name);

	return n != NULL && n->is_typedef;
}

static const char *kind_keyword(dt_typekind_t kind)
{
	return kind == DT_TK_STRUCT ? "struct" :
	       kind == DT_TK_UNION ? "union" : "enum";
}

dt_type_t *dt_type_tag(dt_typetab_t *tt, dt_typekind_t kind, const char *tag)
{
	char name[512];
	dt_tname_t *n;
	dt_type_t *t;

	if (kind != DT_TK_STRUCT && kind != DT_TK_UNION && kind != DT_TK_ENUM)
		return NULL;
	snprintf(name, sizeof(name), "%s %s", kind_keyword(kind),
		 tag != NULL ? tag : "<anon>");
	if (tag != NULL && (n = name_find(tt, name)) != NULL)
		return n->type;
	t = type_new(tt, kind, name, kind == DT_TK_ENUM ? 4 : 0,
		     kind == DT_TK_ENUM ? 4 : 1);
	t->complete = false;
	t->is_signed = kind == DT_TK_ENUM;
	if (tag != NULL)
		name_add(tt, name, t, false);
	return t;
}

static bool member_ok(const dt_member_t *m, const dt_member_t *all)
{
	const dt_member_t *o;

	if (m->type == NULL || m->type->kind == DT_TK_VOID ||
	    m->type->kind == DT_TK_FUNC ||
	    (!m->type->complete && m->type->kind != DT_TK_ENUM))
		return false;
	if (m->bit_size > 0 && (!dt_type_is_integer(m->type) ||
	    m->bit_size > m->type->size * 8))
		return false;
	if (m->name == NULL)
		return true;
	for (o = all; o != m; o = o->next)
		if (o->name != NULL && strcmp(o->name, m->name) == 0)
			return false;
	return true;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

void dt_type_place_bitfield(dt_member_t *m, uint64_t bitpos)
{
	uint64_t unit = (uint64_t)m->type->size * 8;

	if (unit != 0 && unit <= 64 &&
	    bitpos / unit == (bitpos + m->bit_size - 1) / unit) {
		m->offset = (uint32_t)(bitpos / unit * m->type->size);
		m->bit_offset = (uint8_t)(bitpos % unit);
		return;
	}
	m->offset = (uint32_t)(bitpos / 8);
	m->bit_offset = (uint8_t)(bitpos % 8);
}

unsigned dt_member_unit_size(const dt_member_t *m)
{
	unsigned size = m->type->size >= 1 && m->type->size <= 8 ?
			(unsigned)m->type->size : 1;

	while (size < 8 && m->bit_offset + m->bit_size > size * 8)
		size *= 2;
	return m->bit_offset + m->bit_size <= size * 8 ? size : 0;
}

/*
 * Place member m of a struct at bit position *bitpos with the System V
 * rules GCC follows: a member starts at its type's alignment; a bit-field
 * is packed into the current storage unit of its type when it fits there,
 * else it starts the next unit; an unnamed `: 0` moves to the next
 * boundary of its type's alignment.
 */
static void layout_member(dt_member_t *m, uint64_t *bitpos,
			  uint32_t string_room)
{
	uint64_t unit = (uint64_t)m->type->size * 8;
	uint64_t abits = (uint64_t)m->type->align * 8;

	if (dt_member_is_zero_width(m)) {
		*bitpos = round_up(*bitpos, abits);
		m->offset = (uint32_t)(*bitpos / 8);
		return;
	}
	if (m->bit_size == 0) {
		uint64_t size = m->type->size;

		if (m->type->kind == DT_TK_STRING)
			size = m->str_room = string_room;
		*bitpos = round_up(*bitpos, abits);
		m->offset = (uint32_t)(*bitpos / 8);
		*bitpos += size * 8;
		return;
	}
	if (*bitpos / unit != (*bitpos + m->bit_size - 1) / unit)
		*bitpos = round_up(*bitpos, unit);
	dt_type_place_bitfield(m, *bitpos);
	*bitpos += m->bit_size;
}

/* Whether m counts in its struct's alignment: an unnamed bit-field, as a
 * `: 0`, does not (System V ABI). */
static bool aligns_struct(const dt_member_t *m)
{
	return m->name != NULL || (m->bit_size == 0 &&
				   !dt_member_is_zero_width(m));
}

int dt_type_complete_sou(dt_typetab_t *tt, dt_type_t *sou, dt_member_t *mems)
{
	return dt_type_complete_d_sou(tt, sou, mems, 0);	/* no strings */
}

int dt_type_complete_d_sou(dt_typetab_t *tt, dt_type_t *sou,
			   dt_member_t *mems, uint32_t string_room)
{
	dt_member_t *m, *copy = NULL, **tail = &copy;
	uint64_t bitpos = 0, maxbits = 0;
	uint32_t align = 1;

	if (sou == NULL || (sou->kind != DT_TK_STRUCT &&
	    sou->kind != DT_TK_UNION)) {
		errno = EINVAL;
		return -1;
	}
	if (sou->complete) {
		errno = EEXIST;
		return -1;
	}
	for (m = mems; m != NULL; m = m->next)
		if (!member_ok(m, mems)) {
			errno = EINVAL;
			return -1;
		}
	for (m = mems; m != NULL; m = m->next) {
		dt_member_t *c = tt_alloc(tt, sizeof(*c));

		*c = *m;
		c->next = NULL;
		c->name = m->name != NULL ? tt_strdup(tt, m->name) : NULL;
		if (sou->kind == DT_TK_UNION)
			bitpos = 0;
		layout_member(c, &bitpos, string_room);
		if (bitpos > maxbits)
			maxbits = bitpos;
		if (aligns_struct(c) && c->type->align > align)
			align = c->type->align;
		*tail = c;
		tail = &c->next;
	}
	sou->members = copy;
	sou->align = align;
	sou->size = round_up((maxbits + 7) / 8, align);
	sou->complete = true;
	return 0;
}

int dt_type_complete_enum(dt_typetab_t *tt, dt_type_t *e, dt_enumval_t *vals)
{
	dt_enumval_t *v, *copy = NULL, **tail = &copy;

	if (e == NULL || e->kind != DT_TK_ENUM) {
		errno = EINVAL;
		return -1;
	}
	if (e->complete) {
		errno = EEXIST;
		return -1;
	}
	for (v = vals; v != NULL; v = v->next) {
		dt_enumval_t *c = tt_alloc(tt, sizeof(*c));

		if (dt_type_enum_const(tt, v->name, NULL, NULL)) {
			errno = EEXIST;
			return -1;
		}
		c->name = tt_strdup(tt, v->name);
		c->value = v->value;
		*tail = c;
		tail = &c->next;
	}
	for (v = copy; v != NULL; v = v->next) {
		dt_strmap_put(&tt->enums, ENUM_VAL, v->name, v);
		dt_strmap_put(&tt->enums, ENUM_TYPE, v->name, e);
	}
	e->enums = copy;
	e->complete = true;
	return 0;
}

bool dt_type_enum_const(dt_typetab_t *tt, const char *name, int64_t *value,
			dt_type_t **type)
{
	dt_enumval_t *v = dt_strmap_get(&tt->enums, ENUM_VAL, name);

	if (v == NULL)
		return false;
	if (value != NULL)
		*value = v->value;
	if (type != NULL)
		*type = dt_strmap_get(&tt->enums, ENUM_TYPE, name);
	return true;
}

dt_member_t *dt_type_member(const dt_type_t *sou, const char *name)
{
	dt_member_t *m;

	if (sou == NULL)
		return NULL;
	for (m = sou->members; m != NULL; m = m->next)
		if (m->name != NULL && strcmp(m->name, name) == 0)
			return m;
	return NULL;
}
