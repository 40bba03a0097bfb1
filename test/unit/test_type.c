/* SPDX-License-Identifier: MIT */
/*
 * test_type.c: the type table (dt_type.c): built-in names and their C
 * spellings, provider-style type strings, pointer and array caching,
 * typedefs, tags, and struct/union layout checked against the C compiler's
 * own layout of the same declarations.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dt_type.h"

static int nfail, npass;

#define CHECK(cond) do { \
	if (cond) { npass++; } else { nfail++; \
		fprintf(stderr, "test_type.c:%d: %s\n", __LINE__, #cond); } \
	} while (0)

static dt_typetab_t *tt;

/* name parses (or looks up) to a type printed as want, of size size. */
static void name_is(const char *name, const char *want, uint64_t size,
		    int line)
{
	dt_type_t *t = dt_type_parse(tt, name);

	if (t == NULL || strcmp(t->name, want) != 0 || t->size != size) {
		fprintf(stderr, "test_type.c:%d: \"%s\": got %s (%llu)\n", line,
			name, t ? t->name : "NULL",
			t ? (unsigned long long)t->size : 0ull);
		nfail++;
	} else {
		npass++;
	}
}
#define NAME(n, w, s) name_is(n, w, s, __LINE__)

static void test_builtins(void)
{
	NAME("int", "int", 4);
	NAME("signed", "int", 4);
	NAME("unsigned", "unsigned int", 4);
	NAME("signed int", "int", 4);
	NAME("short int", "short", 2);
	NAME("unsigned short int", "unsigned short", 2);
	NAME("long int", "long", 8);
	NAME("long long", "long", 8);
	NAME("unsigned long long int", "unsigned long", 8);
	NAME("long unsigned", "unsigned long", 8);
	NAME("char", "char", 1);
	NAME("signed char", "char", 1);
	NAME("unsigned char", "unsigned char", 1);
	NAME("_Bool", "_Bool", 1);
	NAME("void", "void", 0);
	NAME("string", "string", 0);
	NAME("int8_t", "char", 1);
	NAME("uint16_t", "unsigned short", 2);
	NAME("int32_t", "int", 4);
	NAME("uint64_t", "unsigned long", 8);
	NAME("intptr_t", "long", 8);
	NAME("uintptr_t", "unsigned long", 8);
	NAME("size_t", "unsigned long", 8);
	NAME("ssize_t", "long", 8);
	NAME("off_t", "long", 8);
	NAME("pid_t", "int", 4);
	NAME("tid_t", "int", 4);
	NAME("uid_t", "unsigned int", 4);
	NAME("gid_t", "unsigned int", 4);
	NAME("id_t", "int", 4);
	NAME("time_t", "long", 8);
	NAME("uchar_t", "unsigned char", 1);
	NAME("ushort_t", "unsigned short", 2);
	NAME("uint_t", "unsigned int", 4);
	NAME("ulong_t", "unsigned long", 8);
	NAME("u_longlong_t", "unsigned long", 8);
	NAME("longlong_t", "long", 8);
	NAME("char *", "char *", 8);
	NAME("const char *", "char *", 8);
	NAME("char const * const", "char *", 8);
	NAME("volatile unsigned long", "unsigned long", 8);
	NAME("char**", "char **", 8);
	NAME("uint64_t *", "unsigned long *", 8);
	NAME("void *", "void *", 8);
	NAME("struct foo *", "struct foo *", 8);
	NAME("int [4]", "int [4]", 16);
	NAME("char[16]", "char [16]", 16);

	CHECK(dt_type_parse(tt, "long short") == NULL);
	CHECK(dt_type_parse(tt, "unsigned signed") == NULL);
	CHECK(dt_type_parse(tt, "nosuch_t") == NULL);
	CHECK(dt_type_parse(tt, "int int") == NULL);
	CHECK(dt_type_parse(tt, "char *)") == NULL);
	CHECK(dt_type_parse(tt, "") == NULL);
	CHECK(dt_type_parse(tt, "struct") == NULL);
	CHECK(dt_type_parse(tt, "unsigned string") == NULL);
	CHECK(dt_type_lookup(tt, "struct notyet") == NULL);
	CHECK(dt_type_lookup(tt, "unsigned long int") ==
	      dt_type_int(tt, 8, false));
	CHECK(dt_type_int(tt, 3, true) == NULL);
	CHECK(dt_type_int(tt, 1, true)->is_signed);
	CHECK(!dt_type_int(tt, 4, false)->is_signed);
	CHECK(dt_type_void(tt)->kind == DT_TK_VOID);
	CHECK(dt_type_string(tt)->kind == DT_TK_STRING);
	CHECK(dt_type_is_typedef_name(tt, "uint64_t"));
	CHECK(!dt_type_is_typedef_name(tt, "int"));
}

/* float, double and long double: one node each, the value of their
 * bytes as a long double. */
static void test_floats(void)
{
	const float f = -1.5f;
	const double d = 3.25;
	const long double ld = 1.0L / 3;
	long double v;

	NAME("float", "float", 4);
	NAME("double", "double", 8);
	NAME("long double", "long double", 16);
	NAME("double long", "long double", 16);
	NAME("const double *", "double *", 8);
	NAME("float [2]", "float [2]", 8);
	CHECK(dt_type_parse(tt, "long float") == NULL);
	CHECK(dt_type_parse(tt, "long long double") == NULL);
	CHECK(dt_type_parse(tt, "unsigned double") == NULL);
	CHECK(dt_type_parse(tt, "float double") == NULL);
	CHECK(dt_type_parse(tt, "short double") == NULL);
	CHECK(dt_type_float(tt, 8) == dt_type_lookup(tt, "double"));
	CHECK(dt_type_float(tt, 2) == NULL);
	CHECK(dt_type_c_float(tt, 16, "long double") ==
	      dt_type_float(tt, 16));
	CHECK(dt_type_c_float(tt, 16, "_Float128") == NULL);
	CHECK(dt_type_c_float(tt, 4, "_Float32") == dt_type_float(tt, 4));
	CHECK(dt_type_lookup(tt, "long double")->align == 16);
	CHECK(!dt_type_in_register(dt_type_float(tt, 16)) &&
	      dt_type_is_wide_float(dt_type_float(tt, 16)));
	CHECK(dt_type_in_register(dt_type_float(tt, 4)) &&
	      !dt_type_is_scalar(dt_type_float(tt, 4)));
	CHECK(dt_type_float_value(dt_type_float(tt, 4), &f, &v) && v == f);
	CHECK(dt_type_float_value(dt_type_float(tt, 8), &d, &v) && v == d);
	CHECK(dt_type_float_value(dt_type_float(tt, 16), &ld, &v) && v == ld);
	CHECK(!dt_type_float_value(dt_type_int(tt, 8, true), &d, &v));
}

static void test_constructors(void)
{
	dt_type_t *i = dt_type_int(tt, 4, true);
	dt_type_t *p = dt_type_ptr(tt, i), *a = dt_type_array(tt, i, 3);

	CHECK(p == dt_type_ptr(tt, i));
	CHECK(p->kind == DT_TK_PTR && p->base == i && p->size == 8);
	CHECK(dt_type_ptr(tt, p) == dt_type_parse(tt, "int **"));
	CHECK(strcmp(dt_type_ptr(tt, p)->name, "int **") == 0);
	CHECK(a == dt_type_array(tt, i, 3));
	CHECK(a != dt_type_array(tt, i, 4));
	CHECK(a->size == 12 && a->align == 4 && a->nelems == 3);
	CHECK(dt_type_parse(tt, "const int *") == p);
}

static void test_typedefs(void)
{
	dt_type_t *u = dt_type_int(tt, 8, false);

	CHECK(dt_type_typedef(tt, "my_t", u) == 0);
	CHECK(dt_type_is_typedef_name(tt, "my_t"));
	CHECK(dt_type_lookup(tt, "my_t") == u);
	CHECK(dt_type_parse(tt, "my_t *") == dt_type_ptr(tt, u));
	CHECK(dt_type_typedef(tt, "my_t", u) == 0);	/* same: fine */
	errno = 0;
	CHECK(dt_type_typedef(tt, "my_t", dt_type_int(tt, 4, true)) < 0 &&
	      errno == EEXIST);
	CHECK(dt_type_typedef(tt, "int", u) < 0);
}

static dt_member_t *mem(dt_member_t *m, const char *name, const char *type,
			int bits, dt_member_t *next)
{
	m->name = name;
	m->type = dt_type_parse(tt, type);
	m->bit_size = (uint8_t)bits;
	m->next = next;
	return m;
}

struct c_s1 { char a; int b; char c; };
struct c_s2 { char a; long b; short c; };
struct c_s3 { char a; char b[3]; struct c_s1 s; char *p; };
union c_u1 { char a; int b; char c[5]; };
struct c_b1 { int a : 3; int b : 5; int c : 30; char d; };
struct c_b2 { char a; unsigned short b : 9; unsigned short c : 9; };
struct c_b3 { char a : 3; long : 0; char b : 2; };
struct c_b4 { int : 5; char a; };

static void test_layout(void)
{
	dt_member_t m[8];
	dt_type_t *s1 = dt_type_tag(tt, DT_TK_STRUCT, "s1"), *t;

	CHECK(!s1->complete && s1->size == 0);
	CHECK(dt_type_tag(tt, DT_TK_STRUCT, "s1") == s1);
	CHECK(dt_type_lookup(tt, "struct s1") == s1);
	CHECK(dt_type_complete_sou(tt, s1, mem(&m[0], "a", "char", 0,
		mem(&m[1], "b", "int", 0, mem(&m[2], "c", "char", 0,
		NULL)))) == 0);
	CHECK(s1->complete && s1->size == sizeof(struct c_s1) &&
	      s1->align == 4);
	CHECK(dt_type_member(s1, "b")->offset == offsetof(struct c_s1, b));
	CHECK(dt_type_member(s1, "c")->offset == offsetof(struct c_s1, c));
	CHECK(dt_type_member(s1, "nope") == NULL);
	CHECK(dt_type_complete_sou(tt, s1, NULL) < 0 && errno == EEXIST);
	/* the caller's members may go away: the table keeps copies */
	memset(m, 0, sizeof(m));
	CHECK(strcmp(s1->members->name, "a") == 0);

	t = dt_type_tag(tt, DT_TK_STRUCT, "s2");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "char", 0,
		mem(&m[1], "b", "long", 0, mem(&m[2], "c", "short", 0,
		NULL)))) == 0);
	CHECK(t->size == sizeof(struct c_s2) && t->align == 8);
	CHECK(dt_type_member(t, "c")->offset == offsetof(struct c_s2, c));

	t = dt_type_tag(tt, DT_TK_STRUCT, "s3");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "char", 0,
		mem(&m[1], "b", "char [3]", 0, mem(&m[2], "s", "struct s1", 0,
		mem(&m[3], "p", "char *", 0, NULL))))) == 0);
	CHECK(t->size == sizeof(struct c_s3));
	CHECK(dt_type_member(t, "s")->offset == offsetof(struct c_s3, s));
	CHECK(dt_type_member(t, "p")->offset == offsetof(struct c_s3, p));

	t = dt_type_tag(tt, DT_TK_UNION, "u1");
	CHECK(strcmp(t->name, "union u1") == 0);
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "char", 0,
		mem(&m[1], "b", "int", 0, mem(&m[2], "c", "char [5]", 0,
		NULL)))) == 0);
	CHECK(t->size == sizeof(union c_u1) && t->align == 4);
	CHECK(dt_type_member(t, "c")->offset == 0);

	t = dt_type_tag(tt, DT_TK_STRUCT, "b1");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "int", 3,
		mem(&m[1], "b", "int", 5, mem(&m[2], "c", "int", 30,
		mem(&m[3], "d", "char", 0, NULL))))) == 0);
	CHECK(t->size == sizeof(struct c_b1));
	CHECK(dt_type_member(t, "b")->offset == 0 &&
	      dt_type_member(t, "b")->bit_offset == 3);
	CHECK(dt_type_member(t, "c")->offset == 4 &&
	      dt_type_member(t, "c")->bit_offset == 0);
	CHECK(dt_type_member(t, "d")->offset == offsetof(struct c_b1, d));

	t = dt_type_tag(tt, DT_TK_STRUCT, "b2");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "char", 0,
		mem(&m[1], "b", "unsigned short", 9, mem(&m[2], "c",
		"unsigned short", 9, NULL)))) == 0);
	CHECK(t->size == sizeof(struct c_b2));

	/* invalid members */
	t = dt_type_tag(tt, DT_TK_STRUCT, "bad");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "void", 0, NULL))
	      < 0 && errno == EINVAL);
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "struct nope", 0,
		NULL)) < 0);
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "int", 0,
		mem(&m[1], "a", "int", 0, NULL))) < 0);
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "int", 33, NULL))
	      < 0);
	CHECK(!t->complete);
}

/* `: 0` and unnamed bit-fields as GCC lays them; where DWARF or BTF put a
 * field, in its unit or, packed, across one; the bytes a read takes. */
static void test_bitfield_places(void)
{
	dt_member_t m[4];
	dt_type_t *t = dt_type_tag(tt, DT_TK_STRUCT, "b3");

	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], "a", "char", 3,
		mem(&m[1], NULL, "long", 0, mem(&m[2], "b", "char", 2,
		NULL)))) == 0);
	CHECK(t->size == sizeof(struct c_b3) && t->align == 1);
	CHECK(dt_member_is_zero_width(t->members->next));
	CHECK(dt_type_member(t, "b")->offset == 8);
	t = dt_type_tag(tt, DT_TK_STRUCT, "b4");
	CHECK(dt_type_complete_sou(tt, t, mem(&m[0], NULL, "int", 5,
		mem(&m[1], "a", "char", 0, NULL))) == 0);
	CHECK(t->size == sizeof(struct c_b4) && t->align == 1);
	CHECK(dt_type_member(t, "a")->offset == 1);

	mem(&m[0], "x", "int", 7, NULL);
	dt_type_place_bitfield(&m[0], 37);	/* in the int at 4 */
	CHECK(m[0].offset == 4 && m[0].bit_offset == 5 &&
	      dt_member_unit_size(&m[0]) == 4);
	mem(&m[0], "x", "unsigned int", 30, NULL);
	dt_type_place_bitfield(&m[0], 8);	/* packed: across two ints */
	CHECK(m[0].offset == 1 && m[0].bit_offset == 0 &&
	      dt_member_unit_size(&m[0]) == 4);
	mem(&m[0], "x", "char", 5, NULL);
	dt_type_place_bitfield(&m[0], 14);	/* packed: across two chars */
	CHECK(m[0].offset == 1 && m[0].bit_offset == 6 &&
	      dt_member_unit_size(&m[0]) == 2);
	mem(&m[0], "x", "long", 62, NULL);
	dt_type_place_bitfield(&m[0], 2);
	CHECK(m[0].offset == 0 && dt_member_unit_size(&m[0]) == 8);
	dt_type_place_bitfield(&m[0], 13);	/* no 8 bytes hold it */
	CHECK(m[0].offset == 1 && dt_member_unit_size(&m[0]) == 0);
}

static void test_enums(void)
{
	dt_type_t *e = dt_type_tag(tt, DT_TK_ENUM, "color"), *et;
	dt_enumval_t v[3] = {
		{ "RED", 0, &v[1] }, { "GREEN", 5, &v[2] }, { "BLUE", 6, NULL },
	};
	int64_t val;

	CHECK(e->size == 4 && e->kind == DT_TK_ENUM);
	CHECK(dt_type_complete_enum(tt, e, v) == 0);
	memset(v, 0, sizeof(v));
	CHECK(dt_type_enum_const(tt, "GREEN", &val, &et) && val == 5 &&
	      et == e);
	CHECK(!dt_type_enum_const(tt, "PURPLE", &val, NULL));
	CHECK(dt_type_parse(tt, "enum color") == e);
	CHECK(strcmp(e->name, "enum color") == 0);
	CHECK(dt_type_complete_enum(tt, e, NULL) < 0);
}

int main(void)
{
	tt = dt_typetab_create();
	test_builtins();
	test_floats();
	test_constructors();
	test_typedefs();
	test_layout();
	test_bitfield_places();
	test_enums();
	dt_typetab_destroy(tt);
	printf("test_type: %d passed, %d failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
