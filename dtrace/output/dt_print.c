/* SPDX-License-Identifier: MIT */
/*
 * dt_print.c: print(x), the value of x laid out by its D type, which the
 * program description carries in the record's descriptor (rec->type).
 *
 * The layout is the one the DTrace guide documents for print(): the type's
 * name, then the value.  A struct or union is a block of its members, one
 * a line as "name = value", indented four columns per level of nesting;
 * integers print in hexadecimal (a bit-field its bits, not sign-extended,
 * unnamed ones not at all), null pointers as NULL, enums by the name
 * of their constant, strings and char arrays quoted, other arrays as
 * "[ a, b ]":
 *
 *	struct point {
 *	    x = 0x1
 *	    name = "origin"
 *	    next = NULL
 *	    v = [ 0x1, 0x2 ]
 *	}
 *
 * The value is the bytes BPF copied when the probe fired (a DT_RK_MEM
 * record for structs, unions and arrays, DT_RK_INT and DT_RK_STRING
 * otherwise); nothing is read from the traced process afterwards, so a
 * pointer prints as its address, as in DTrace, but for a struct's char *
 * member: the string it points to was recorded too (the first
 * DT_PRINT_STRINGS_MAX of them) and prints quoted, as DTrace's print
 * shows such a member.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dt_output.h"

#define PRINT_INDENT	4

/* The strings recorded for the char * members of a printed struct, in
 * the order of its members (dt_rec.h, DT_ACT_PRINT): pairs of records, the
 * read's result and the string, from recs[next]. */
typedef struct print_strings {
	const dt_recdesc_t *recs;
	int nrecs, next;
	const uint8_t *data;	/* the record's data */
	/* -x printsize: the first member (in the order they print, not
	 * within arrays) at that offset or beyond ends the print, a "..."
	 * line in its place at the depth of the member printed before it */
	uint64_t limit;
	bool cut;
} print_strings_t;

/* Where a member lies: its offset in the printed object, and that of the
 * member that prints after the last of its own (SIZE_MAX: none). */
typedef struct print_at {
	size_t base, after;
} print_at_t;

static void print_value(FILE *out, const dt_type_t *t, const uint8_t *p,
			size_t avail, int indent, print_strings_t *ps,
			print_at_t at);

/* The unsigned value of the size bytes at p (little endian). */
static uint64_t load_uint(const uint8_t *p, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size < sizeof(v) ? size : sizeof(v));
	return v;
}

static void print_enum(FILE *out, const dt_type_t *t, uint64_t raw)
{
	int64_t v = (int32_t)(uint32_t)raw;

	for (const dt_enumval_t *e = t->enums; e != NULL; e = e->next)
		if (e->value == v) {
			fputs(e->name, out);
			return;
		}
	fprintf(out, "0x%" PRIx64, raw);
}

static void print_scalar(FILE *out, const dt_type_t *t, uint64_t v)
{
	if (t->kind == DT_TK_PTR && v == 0)
		fputs("NULL", out);
	else if (t->kind == DT_TK_ENUM)
		print_enum(out, t, v);
	else
		fprintf(out, "0x%" PRIx64, v);
}

void dt_print_float(FILE *out, const dt_type_t *t, const uint8_t *p)
{
	long double v;

	if (!dt_type_float_value(t, p, &v))
		fputs("<unknown encoding>", out);
	else if (t->size > 8)
		fprintf(out, "%+.16LE", v);
	else
		fprintf(out, "%+.7e", (double)v);
}

static void print_quoted(FILE *out, const uint8_t *p, size_t n)
{
	size_t len = strnlen((const char *)p, n);

	fprintf(out, "\"%.*s\"", (int)len, (const char *)p);
}

static bool is_char(const dt_type_t *t)
{
	return t != NULL && t->kind == DT_TK_INT && t->size == 1;
}

static void print_array(FILE *out, const dt_type_t *t, const uint8_t *p,
			size_t avail, int indent)
{
	size_t esize = t->base != NULL ? (size_t)t->base->size : 0;
	uint64_t n = t->nelems;

	if (is_char(t->base)) {
		print_quoted(out, p, n < avail ? (size_t)n : avail);
		return;
	}
	fputs("[ ", out);
	for (uint64_t i = 0; i < n && esize != 0 && (i + 1) * esize <= avail;
	     i++) {
		if (i > 0)
			fputs(", ", out);
		print_value(out, t->base, p + i * esize, esize, indent, NULL,
			    (print_at_t){ 0, SIZE_MAX });
	}
	fputs(" ]", out);
}

/* The bytes bit-field m's bits take from its offset (9 at most). */
static size_t bitfield_bytes(const dt_member_t *m)
{
	return ((size_t)m->bit_offset + m->bit_size + 7) / 8;
}

/* A bit-field's value, as DTrace prints it: its bit_size bits from
 * bit_offset of its unit, never sign-extended; also one of a packed
 * struct that no 8 bytes hold. */
static uint64_t bitfield(const dt_member_t *m, const uint8_t *p)
{
	unsigned __int128 bits = 0;

	memcpy(&bits, p, bitfield_bytes(m));
	uint64_t v = (uint64_t)(bits >> m->bit_offset);

	return m->bit_size < 64 ? v & ((1ULL << m->bit_size) - 1) : v;
}

/* The next char * member's string: *s and its record's size *n, when it
 * was read; false when there is none (its address prints). */
static bool take_string(print_strings_t *ps, const uint8_t **s, size_t *n)
{
	if (ps == NULL || ps->next + 1 >= ps->nrecs)
		return false;
	const dt_recdesc_t *res = &ps->recs[ps->next];
	const dt_recdesc_t *str = &ps->recs[ps->next + 1];
	int64_t rc;

	ps->next += 2;
	memcpy(&rc, ps->data + res->offset, sizeof(rc));
	if (rc < 0)
		return false;
	*s = ps->data + str->offset;
	*n = str->size;
	return true;
}

static bool print_member_string(FILE *out, print_strings_t *ps)
{
	const uint8_t *str;
	size_t n;

	if (!take_string(ps, &str, &n))
		return false;
	print_quoted(out, str, n);
	return true;
}

/* The bytes member m takes from its offset. */
static size_t member_bytes(const dt_member_t *m)
{
	return m->bit_size != 0 ? bitfield_bytes(m) : (size_t)m->type->size;
}

/* Whether the member at offset off is cut by -x printsize: the "..."
 * line, once, at this depth. */
static bool cut_at(FILE *out, print_strings_t *ps, size_t off, int indent)
{
	if (ps == NULL || ps->cut || off == SIZE_MAX || off < ps->limit)
		return ps != NULL && ps->cut;
	fprintf(out, "%*s...\n", indent, "");
	ps->cut = true;
	return true;
}

static void print_members(FILE *out, const dt_type_t *t, const uint8_t *p,
			  size_t avail, int indent, print_strings_t *ps,
			  print_at_t at)
{
	for (const dt_member_t *m = t->members; m != NULL; m = m->next) {
		size_t off = m->offset;
		print_at_t in = { at.base + off, m->next != NULL ?
				  at.base + m->next->offset : at.after };

		if (off + member_bytes(m) > avail)
			break;	/* past what was recorded */
		if (m->name == NULL && (m->bit_size != 0 ||
					dt_member_is_zero_width(m)))
			continue;	/* padding */
		if (cut_at(out, ps, in.base, indent))
			return;
		if (m->name == NULL) {	/* anonymous: its members are ours */
			print_members(out, m->type, p + off, avail - off,
				      indent, ps, in);
			continue;
		}
		fprintf(out, "%*s%s = ", indent, "", m->name);
		if (m->bit_size != 0)
			print_scalar(out, m->type, bitfield(m, p + off));
		else if (!dt_print_is_strptr(m->type) ||
			 !print_member_string(out, ps))
			print_value(out, m->type, p + off, avail - off, indent,
				    ps, in);
		fputc('\n', out);
	}
	if (t->members != NULL)	/* the member after ours, at our depth */
		cut_at(out, ps, at.after, indent);
}

static void print_value(FILE *out, const dt_type_t *t, const uint8_t *p,
			size_t avail, int indent, print_strings_t *ps,
			print_at_t at)
{
	switch (t->kind) {
	case DT_TK_INT:
	case DT_TK_ENUM:
	case DT_TK_PTR:
		if (t->size > avail)
			break;
		print_scalar(out, t, load_uint(p, (size_t)t->size));
		return;
	case DT_TK_FLOAT:
		if (t->size > avail)
			break;
		dt_print_float(out, t, p);
		return;
	case DT_TK_STRING:
		print_quoted(out, p, avail);
		return;
	case DT_TK_ARRAY:
		print_array(out, t, p, avail, indent);
		return;
	case DT_TK_STRUCT:
	case DT_TK_UNION:
		fputs("{\n", out);
		print_members(out, t, p, avail, indent + PRINT_INDENT, ps,
			      at);
		fprintf(out, "%*s}", indent, "");
		return;
	default:
		break;
	}
	fputs("?", out);
}

void dt_print_typed(dtrace_hdl_t *dtp, FILE *out, const dt_actdesc_t *act,
		    const dt_value_t *v, const uint8_t *data)
{
	const dt_recdesc_t *rec = &act->recs[0];
	const dt_type_t *t = rec->type;
	const uint8_t *p = data + rec->offset;
	print_strings_t ps = { act->recs, act->nrecs, 1, data,
			       dtp->opt.printsize, false };
	print_at_t whole = { 0, SIZE_MAX };
	uint8_t word[8];

	if (t == NULL) {
		dt_text_trace(dtp, out, v);
		return;
	}
	fprintf(out, "%s ", t->name);
	if (rec->kind == DT_RK_INT && t->kind != DT_TK_STRING) {
		/* recorded in 8 bytes whatever its size */
		memcpy(word, p, sizeof(word));
		print_value(out, t, word, sizeof(word), 0, NULL, whole);
	} else {
		print_value(out, t, p, rec->size, 0, &ps, whole);
	}
	/* one value a line, after the probe line too: values printed one
	 * after another must not run together */
	fputc('\n', out);
}

/*
 * The strings of the char * members, in the order print_members() meets
 * them (nested structs and unions included, not array elements): fn gets
 * each one read, with its member's path ("a.b") and up to n bytes.
 */
static void walk_strings(const dt_type_t *t, size_t avail, const char *path,
			 print_strings_t *ps, dt_print_string_fn *fn, void *arg)
{
	char sub[512];

	for (const dt_member_t *m = t->members; m != NULL; m = m->next) {
		size_t off = m->offset;
		const uint8_t *str;
		size_t n;

		if (off + m->type->size > avail)
			break;
		if (m->name == NULL) {
			walk_strings(m->type, avail - off, path, ps, fn, arg);
			continue;
		}
		if (m->bit_size != 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			 m->name);
		if (dt_print_is_strptr(m->type)) {
			if (take_string(ps, &str, &n))
				fn(arg, sub, str, n);
		} else if (m->type->kind == DT_TK_STRUCT ||
			   m->type->kind == DT_TK_UNION) {
			walk_strings(m->type, avail - off, sub, ps, fn, arg);
		}
	}
}

void dt_print_strings(const dt_actdesc_t *act, const uint8_t *data,
		      dt_print_string_fn *fn, void *arg)
{
	const dt_recdesc_t *rec = &act->recs[0];
	print_strings_t ps = { act->recs, act->nrecs, 1, data };

	if (rec->type == NULL || rec->kind == DT_RK_INT ||
	    (rec->type->kind != DT_TK_STRUCT && rec->type->kind != DT_TK_UNION))
		return;
	walk_strings(rec->type, rec->size, "", &ps, fn, arg);
}
