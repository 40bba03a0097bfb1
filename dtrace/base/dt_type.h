/* SPDX-License-Identifier: MIT */
/*
 * dt_type.h: D types.
 *
 * A type is an immutable node owned by the session's type table (dt_typetab),
 * freed with the session.  Types are compared by identity after resolving
 * typedefs, which the table does at creation: a typedef name maps straight to
 * the type it names, so no typedef node ever reaches the checker.
 *
 * D's model is LP64: char 1 (signed), short 2, int 4, long 8, long long 8,
 * pointers 8; float 4, double 8, long double 16 (x86_64's 80-bit extended
 * precision in 16 bytes).  `string` is its own kind: a NUL-terminated
 * value of at most strsize bytes, stored inline wherever a string lives.
 */
#ifndef DT_TYPE_H
#define DT_TYPE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum dt_typekind {
	DT_TK_VOID,
	DT_TK_INT,		/* also char, _Bool and enums' underlying int */
	DT_TK_PTR,		/* base: the pointed-to type */
	DT_TK_ARRAY,		/* base: element type; nelems */
	DT_TK_STRUCT,
	DT_TK_UNION,
	DT_TK_ENUM,		/* an int of size 4 with named constants */
	DT_TK_STRING,		/* D string */
	DT_TK_FUNC,		/* only as a pointed-to type; opaque */
	DT_TK_FLOAT,		/* float, double, long double: loaded, stored,
				   traced and printed, never computed with */
} dt_typekind_t;

typedef struct dt_type dt_type_t;

typedef struct dt_member {
	const char *name;
	dt_type_t *type;
	uint32_t offset;	/* bytes; of a bit-field, its unit's */
	uint8_t bit_offset, bit_size; /* bit-fields: bit_size bits from bit
				   bit_offset (0 the least significant) of
				   the unit at offset; bit_size 0 if none.
				   An unnamed integer member of bit_size 0 is
				   C's `: 0`, which only closes the unit. */
	uint32_t str_room;	/* a string member: its bytes (the strsize of
				   its declaration) */
	struct dt_member *next;
} dt_member_t;

typedef struct dt_enumval {
	const char *name;
	int64_t value;
	struct dt_enumval *next;
} dt_enumval_t;

struct dt_type {
	dt_typekind_t kind;
	const char *name;	/* as printed: "int", "char *", "struct foo" */
	uint64_t size;		/* sizeof; 0 for void, func, incomplete */
	uint32_t align;
	bool is_signed;		/* DT_TK_INT, DT_TK_ENUM */
	bool complete;		/* struct/union/enum has a body */
	bool builtin;		/* a body of D's own, which a script's (a C
				   header's, under -C) replaces */
	dt_type_t *base;	/* PTR, ARRAY */
	uint64_t nelems;	/* ARRAY */
	dt_member_t *members;	/* STRUCT, UNION, in declaration order */
	dt_enumval_t *enums;	/* ENUM */
	dt_type_t *ptr_cache;	/* the pointer-to-this type, made on demand */
	dt_type_t *next_all;	/* every type of the table, for freeing */
};

typedef struct dt_typetab dt_typetab_t;

dt_typetab_t *dt_typetab_create(void);
void dt_typetab_destroy(dt_typetab_t *tt);

/* Built-in types, always present. */
dt_type_t *dt_type_void(dt_typetab_t *tt);
dt_type_t *dt_type_int(dt_typetab_t *tt, unsigned size, bool is_signed);
dt_type_t *dt_type_string(dt_typetab_t *tt);
/* The values of stack() and ustack() ("stack") and of the user address
 * actions (ufunc()..., "_usymaddr"), as DTrace types them: like void, no
 * operator applies to them, but a variable or trace() takes them, and
 * only then is the action refused in an expression (D_CG_EXPR). */
dt_type_t *dt_type_stack(dt_typetab_t *tt, bool usym);
bool dt_type_is_action_value(const dt_type_t *t);
/* float, double or long double by size (4, 8, 16); NULL for another. */
dt_type_t *dt_type_float(dt_typetab_t *tt, unsigned size);
/* The D type of a C floating-point base type (DWARF's, BTF's) of size
 * bytes named name: float, double, and long double, x86's extended
 * precision; NULL for another (_Float128 and __float128 are IEEE
 * binary128 in 16 bytes too). */
dt_type_t *dt_type_c_float(dt_typetab_t *tt, uint64_t size, const char *name);
dt_type_t *dt_type_ptr(dt_typetab_t *tt, dt_type_t *base);
dt_type_t *dt_type_array(dt_typetab_t *tt, dt_type_t *elem, uint64_t n);

/* Named types: "int", "unsigned long", "uint64_t", "struct foo", "foo_t"
 * (typedefs).  NULL if unknown. */
dt_type_t *dt_type_lookup(dt_typetab_t *tt, const char *name);
/* Parse a type name as providers give it ("char *", "const char *",
 * "unsigned int", "struct foo *").  NULL if it does not name a type. */
dt_type_t *dt_type_parse(dt_typetab_t *tt, const char *text);

/* Declarations made by scripts.  Return NULL (errno EEXIST/EINVAL) on a
 * conflicting redeclaration. */
int dt_type_typedef(dt_typetab_t *tt, const char *name, dt_type_t *type);
bool dt_type_is_typedef_name(dt_typetab_t *tt, const char *name);
/* Get or create an incomplete struct/union/enum tag. */
dt_type_t *dt_type_tag(dt_typetab_t *tt, dt_typekind_t kind, const char *tag);
/* Complete a struct or union from its members (offsets computed here with
 * C's layout rules), or an enum from its constants. */
int dt_type_complete_sou(dt_typetab_t *tt, dt_type_t *sou, dt_member_t *mems);
/* The same for one declared in D, whose string members take string_room
 * bytes each (strsize: a string has no size of its own). */
int dt_type_complete_d_sou(dt_typetab_t *tt, dt_type_t *sou,
			   dt_member_t *mems, uint32_t string_room);
int dt_type_complete_enum(dt_typetab_t *tt, dt_type_t *e, dt_enumval_t *vals);
/* An enum constant by name, across all enums; false if none. */
bool dt_type_enum_const(dt_typetab_t *tt, const char *name, int64_t *value,
			dt_type_t **type);
dt_member_t *dt_type_member(const dt_type_t *sou, const char *name);
/* Give bit-field m the place at bit bitpos of its struct that DWARF or BTF
 * names: the unit of its type that holds it when one does (C's layout),
 * else the bytes from the one holding its first bit (a packed struct). */
void dt_type_place_bitfield(dt_member_t *m, uint64_t bitpos);
/* The bytes to load for bit-field m from its offset (1, 2, 4 or 8): its
 * type's size, more when the field reaches past it; 0 when no load of 8
 * bytes or fewer holds it. */
unsigned dt_member_unit_size(const dt_member_t *m);

/* Whether m is C's unnamed `: 0`, which closes a bit-field unit. */
static inline bool dt_member_is_zero_width(const dt_member_t *m)
{
	return m->name == NULL && m->bit_size == 0 && m->type != NULL &&
	       (m->type->kind == DT_TK_INT || m->type->kind == DT_TK_ENUM);
}

/* The value of float type t whose bytes are at p (as the machine stores
 * it), widened to a long double; false if t is no floating-point type of
 * a size D knows. */
bool dt_type_float_value(const dt_type_t *t, const void *p, long double *v);

static inline bool dt_type_is_integer(const dt_type_t *t)
{
	return t->kind == DT_TK_INT || t->kind == DT_TK_ENUM;
}
static inline bool dt_type_is_scalar(const dt_type_t *t)
{
	return dt_type_is_integer(t) || t->kind == DT_TK_PTR;
}
static inline bool dt_type_is_float(const dt_type_t *t)
{
	return t->kind == DT_TK_FLOAT;
}
/* A value that lives in a register: an integer, a pointer, or the bits of
 * a float or a double. */
static inline bool dt_type_in_register(const dt_type_t *t)
{
	return dt_type_is_scalar(t) || (t->kind == DT_TK_FLOAT && t->size <= 8);
}
/* A floating-point value too wide for a register (long double): like a
 * struct, it is handled by its address and copied by its bytes. */
static inline bool dt_type_is_wide_float(const dt_type_t *t)
{
	return t->kind == DT_TK_FLOAT && t->size > 8;
}

#endif /* DT_TYPE_H */
