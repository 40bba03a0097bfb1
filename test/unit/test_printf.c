/* SPDX-License-Identifier: MIT */
/*
 * test_printf.c: D's printf() at run time (every conversion, flag, width
 * and precision against the text DTrace prints) and dt_printf_check()'s
 * compile-time verdicts and messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_consume_impl.h"

static int failures;

#define EXPECT_STR(got, want) expect_str(__LINE__, (got), (want))

static void expect_str(int line, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "line %d: got \"%s\", want \"%s\"\n", line,
			got, want);
		failures++;
	}
}

/* Format with integer records of the given size and sign, all holding v:
 * as many as the format has conversions, up to 8 (nrecs < 0), or nrecs. */
static char *fmt_intn(const char *fmt, int64_t v, uint32_t size, bool sgn,
		      int nrecs)
{
	dt_recdesc_t recs[8];
	static char buf[512];
	uint8_t data[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int i, err;

	for (i = 0; i < 8; i++) {
		recs[i] = (dt_recdesc_t){ .kind = DT_RK_INT, .offset = 8 * i,
					  .size = size, .is_signed = sgn };
		memcpy(data + 8 * i, &v, 8);	/* little endian */
	}
	err = dt_printf_format(NULL, f, fmt, recs, nrecs < 0 ? 8 : nrecs,
			       data);
	fclose(f);
	if (err != 0)
		strcpy(buf, "<error>");
	return buf;
}

static char *fmt_int(const char *fmt, int64_t v, uint32_t size, bool sgn)
{
	return fmt_intn(fmt, v, size, sgn, -1);
}

static char *fmt_str(const char *fmt, const char *s, uint32_t size)
{
	dt_recdesc_t rec = { .kind = DT_RK_STRING, .offset = 0, .size = size };
	static char buf[512];
	char data[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int err;

	strncpy(data, s, sizeof(data) - 1);
	err = dt_printf_format(NULL, f, fmt, &rec, 1, data);
	fclose(f);
	if (err != 0)
		strcpy(buf, "<error>");
	return buf;
}

static void test_integers(void)
{
	EXPECT_STR(fmt_int("%d", -1, 4, true), "-1");
	EXPECT_STR(fmt_int("%i", -7, 8, true), "-7");
	EXPECT_STR(fmt_int("%u", -1, 4, true), "4294967295");
	EXPECT_STR(fmt_int("%u", -1, 8, true), "18446744073709551615");
	EXPECT_STR(fmt_int("%x", -1, 1, true), "ff");
	EXPECT_STR(fmt_int("%x", -1, 2, true), "ffff");
	EXPECT_STR(fmt_int("%d", -1, 1, true), "-1");
	/* %d of an unsigned argument prints it unsigned, as DTrace does */
	EXPECT_STR(fmt_int("%d", 0xffffffff, 4, false), "4294967295");
	EXPECT_STR(fmt_int("%d", 200, 1, false), "200");
	EXPECT_STR(fmt_int("%lld", -5, 8, true), "-5");
	/* DTrace's length modifiers are accepted; the record's size
	 * decides, but h and hh cut to a short or a char as C's printf
	 * does; j, z and t are none of DTrace's, nor is h with %s */
	EXPECT_STR(fmt_int("%hhd|%hd|%ld|%lld", 3, 8, true), "3|3|3|3");
	EXPECT_STR(fmt_int("%jd", 3, 8, true), "<error>");
	EXPECT_STR(fmt_int("%zu", 3, 8, true), "<error>");
	EXPECT_STR(fmt_int("%td", 3, 8, true), "<error>");
	EXPECT_STR(fmt_int("%hs", 3, 8, true), "<error>");
	EXPECT_STR(fmt_intn("%d %d", 3, 8, true, 1), "<error>");
	EXPECT_STR(fmt_int("%hhd", 300, 8, true), "44");
	EXPECT_STR(fmt_int("%hd|%hx", 65537, 8, true), "1|1");
	EXPECT_STR(fmt_int("%lx", 255, 1, false), "ff");
	EXPECT_STR(fmt_int("%llu", 7, 2, false), "7");
}

static void test_flags(void)
{
	EXPECT_STR(fmt_int("[%5d|%-5d|%05d|%+d|% d]", 42, 4, true),
		   "[   42|42   |00042|+42| 42]");
	EXPECT_STR(fmt_int("%#x %#o %X %o", 255, 4, true),
		   "0xff 0377 FF 377");
	EXPECT_STR(fmt_int("%.3d", 7, 4, true), "007");
	EXPECT_STR(fmt_int("%8.3x|", 10, 4, true), "     00a|");
	EXPECT_STR(fmt_int("%c", 'A', 1, true), "A");
	EXPECT_STR(fmt_int("%3c|", 'z', 4, true), "  z|");
	EXPECT_STR(fmt_int("100%%", 0, 4, true), "100%");
	EXPECT_STR(fmt_int("%p", 0x1234, 8, false), "1234");
	EXPECT_STR(fmt_int("%a", 0x1234, 8, false), "0x1234");
	EXPECT_STR(fmt_int("%?d|", 1, 8, true), "               1|");
	EXPECT_STR(fmt_int("%@d", 1, 8, true), "<error>");
	EXPECT_STR(fmt_int("no conversions\n", 1, 8, true),
		   "no conversions\n");
}

static void test_strings(void)
{
	EXPECT_STR(fmt_str("%s", "hello", 16), "hello");
	EXPECT_STR(fmt_str("[%10s|%-10s|%.3s]", "hi", 16), "<error>");
	EXPECT_STR(fmt_str("[%10s]", "hi", 16), "[        hi]");
	EXPECT_STR(fmt_str("[%-10s]", "hi", 16), "[hi        ]");
	EXPECT_STR(fmt_str("[%.3s]", "hello", 16), "[hel]");
	/* not NUL-terminated within its size: bounded by the size */
	EXPECT_STR(fmt_str("%s", "abcdef", 3), "abc");
	EXPECT_STR(fmt_str("%S", "a\nb\t\"\\\001", 16), "a\\nb\\t\\\"\\\\\\001");
}

static void test_dynamic(void)
{
	dt_recdesc_t recs[3] = {
		{ .kind = DT_RK_INT, .offset = 0, .size = 4, .is_signed = true },
		{ .kind = DT_RK_INT, .offset = 8, .size = 8, .is_signed = true },
		{ .kind = DT_RK_STRING, .offset = 16, .size = 16 },
	};
	uint8_t data[32] = { 0 };
	int32_t w = 6;
	int64_t v = 42;
	char buf[128];
	FILE *f;

	memcpy(data, &w, 4);
	memcpy(data + 8, &v, 8);
	strcpy((char *)data + 16, "xyz");
	f = fmemopen(buf, sizeof(buf), "w");
	dt_printf_format(NULL, f, "[%*d]", recs, 2, data);
	fclose(f);
	EXPECT_STR(buf, "[    42]");
	w = -6;
	memcpy(data, &w, 4);
	f = fmemopen(buf, sizeof(buf), "w");
	dt_printf_format(NULL, f, "[%*d]", recs, 2, data);
	fclose(f);
	EXPECT_STR(buf, "[42    ]");
	w = 2;
	memcpy(data, &w, 4);
	recs[1] = recs[2];
	f = fmemopen(buf, sizeof(buf), "w");
	dt_printf_format(NULL, f, "[%.*s]", recs, 2, data);
	fclose(f);
	EXPECT_STR(buf, "[xy]");
}

static void test_time(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT_STR(fmt_int("%Y", 0, 8, false), "1970 Jan  1 00:00:00");
	EXPECT_STR(fmt_int("%Y", 1700000000ll * 1000000000ll, 8, false),
		   "2023 Nov 14 22:13:20");
}

/* --- compile-time checks --- */

static dt_type_t t_int = { .kind = DT_TK_INT, .name = "int", .size = 4,
			   .is_signed = true };
static dt_type_t t_long = { .kind = DT_TK_INT, .name = "long", .size = 8,
			    .is_signed = true };
static dt_type_t t_char = { .kind = DT_TK_INT, .name = "char", .size = 1,
			    .is_signed = true };
static dt_type_t t_str = { .kind = DT_TK_STRING, .name = "string",
			   .size = 256 };
static dt_type_t t_vptr = { .kind = DT_TK_PTR, .name = "void *", .size = 8 };
static dt_type_t t_carr = { .kind = DT_TK_ARRAY, .name = "char [10]",
			    .size = 10, .base = &t_char, .nelems = 10 };

static int check(const char *fmt, int n, dt_type_t *a, dt_type_t *b,
		 char *msg)
{
	dt_type_t *types[2] = { a, b };

	msg[0] = '\0';
	return dt_printf_check(fmt, n, types, msg, 512);
}

static void expect_tag(int line, int got, int want, const char *msg)
{
	if (got != want) {
		fprintf(stderr, "line %d: tag %s, want %s (%s)\n", line,
			dt_errtag_name(got), dt_errtag_name(want), msg);
		failures++;
	}
}

#define EXPECT_TAG(got, want) expect_tag(__LINE__, (got), (want), msg)

static void test_check(void)
{
	char msg[512];

	EXPECT_TAG(check("%d %s\n", 2, &t_int, &t_str, msg), 0);
	EXPECT_TAG(check("%x %p", 2, &t_vptr, &t_vptr, msg), 0);
	EXPECT_TAG(check("%s", 1, &t_carr, NULL, msg), 0);
	EXPECT_TAG(check("%c%lld%%", 2, &t_char, &t_long, msg), 0);
	EXPECT_TAG(check("%Y", 1, &t_long, NULL, msg), 0);
	EXPECT_TAG(check("%*d", 2, &t_int, &t_int, msg), 0);

	EXPECT_TAG(check("%d", 1, &t_str, NULL, msg), D_PRINTF_ARG_TYPE);
	EXPECT_STR(msg, "argument #2 is incompatible with "
		   "conversion #1 prototype:\n\tconversion: %d\n"
		   "\t prototype: char, short, int, long, or long long\n"
		   "\t  argument: string");
	EXPECT_TAG(check("%d %s", 2, &t_int, &t_int, msg), D_PRINTF_ARG_TYPE);
	EXPECT_STR(msg, "argument #3 is incompatible with "
		   "conversion #2 prototype:\n\tconversion: %s\n"
		   "\t prototype: char [] or string (or use stringof)\n"
		   "\t  argument: int");
	EXPECT_TAG(check("%c", 1, &t_long, NULL, msg), D_PRINTF_ARG_TYPE);
	EXPECT_TAG(check("%Y", 1, &t_int, NULL, msg), D_PRINTF_ARG_TYPE);
	EXPECT_TAG(check("%*d", 2, &t_str, &t_int, msg), D_PRINTF_DYN_TYPE);
	EXPECT_TAG(check("%.*s", 0, NULL, NULL, msg), D_PRINTF_DYN_PROTO);
	EXPECT_TAG(check("%d %d", 1, &t_int, NULL, msg), D_PRINTF_ARG_PROTO);
	EXPECT_STR(msg, "prototype mismatch: conversion #2 (%d) "
		   "is missing a corresponding value argument");
	EXPECT_TAG(check("%d", 2, &t_int, &t_int, msg), D_PRINTF_ARG_EXTRA);
	EXPECT_STR(msg, "prototype mismatch: only 1 arguments "
		   "required by this format string");
	EXPECT_TAG(check("%q", 1, &t_int, NULL, msg), D_SYNTAX);
	EXPECT_STR(msg, "format conversion #1 is undefined: %q");
	EXPECT_TAG(check("%f", 1, &t_int, NULL, msg), D_PRINTF_ARG_TYPE);
	EXPECT_STR(msg, "argument #2 is incompatible with conversion #1 "
		   "prototype:\n\tconversion: %f\n\t prototype: float, "
		   "double, or long double\n\t  argument: int");
	EXPECT_TAG(check("%f", 0, NULL, NULL, msg), D_PRINTF_ARG_PROTO);
	EXPECT_TAG(check("abc %", 0, NULL, NULL, msg), D_SYNTAX);
	EXPECT_STR(msg, "format conversion #1 name expected before end of "
		   "format string");
	EXPECT_TAG(check("%1.2.3d", 1, &t_int, NULL, msg), D_SYNTAX);
}

int main(void)
{
	test_integers();
	test_flags();
	test_strings();
	test_dynamic();
	test_time();
	test_check();
	if (failures) {
		fprintf(stderr, "test_printf: %d failures\n", failures);
		return 1;
	}
	printf("test_printf: ok\n");
	return 0;
}
