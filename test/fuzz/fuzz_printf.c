/* SPDX-License-Identifier: MIT */
/*
 * fuzz_printf.c: printf() formats, as the compiler checks them
 * (dt_printf_check) and, when accepted, as the consumer runs them
 * (dt_printf_format) on records of the types the check was given.
 *
 * Input: one byte choosing the argument types, then the format.  The
 * consumer only ever runs formats the check accepted for the records it
 * holds, so the format is run only then: any crash or sanitizer report is
 * a bug, a refusal is not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_consume_impl.h"
#include "dt_type.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NARGS	4
#define STRSZ	32

static dt_typetab_t *types;

/* The types of argument slot i for selector sel: int of 1..8 bytes,
 * signed or not, a string, or a pointer. */
static dt_type_t *arg_type(unsigned sel, int i, dt_recdesc_t *rec)
{
	unsigned k = (sel >> (2 * i)) & 3;

	memset(rec, 0, sizeof(*rec));
	rec->offset = (uint32_t)(i * STRSZ);
	switch (k) {
	case 0:
		rec->kind = DT_RK_INT;
		rec->size = 4;
		rec->is_signed = true;
		return dt_type_int(types, 4, true);
	case 1:
		rec->kind = DT_RK_INT;
		rec->size = 8;
		return dt_type_int(types, 8, false);
	case 2:
		rec->kind = DT_RK_STRING;
		rec->size = STRSZ;
		return dt_type_string(types);
	default:
		rec->kind = DT_RK_INT;
		rec->size = 8;
		return dt_type_ptr(types, dt_type_int(types, 1, true));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dt_type_t *argt[NARGS];
	dt_recdesc_t recs[NARGS];
	uint8_t vals[NARGS * STRSZ];
	char err[256];

	if (size < 1)
		return 0;
	if (types == NULL)
		types = dt_typetab_create();
	char *fmt = malloc(size);
	if (fmt == NULL)
		return 0;
	memcpy(fmt, data + 1, size - 1);
	fmt[size - 1] = '\0';
	int nargs = data[0] % (NARGS + 1);
	for (int i = 0; i < NARGS; i++)
		argt[i] = arg_type(data[0] >> 3, i, &recs[i]);
	/* values: bytes of the input, and strings that end */
	for (size_t i = 0; i < sizeof(vals); i++)
		vals[i] = (uint8_t)(size > 1 ? data[1 + i % (size - 1)] : 0);
	for (int i = 0; i < NARGS; i++)
		vals[i * STRSZ + STRSZ - 1] = '\0';
	if (dt_printf_check(fmt, nargs, argt, err, sizeof(err)) == 0) {
		/* a small stream: a width of 2^31 from the data (a legal
		 * "%*d") ends at its end instead of writing 2 GB */
		static char out[4096];
		FILE *sink = fmemopen(out, sizeof(out), "w");

		if (sink != NULL) {
			dt_printf_format(NULL, sink, fmt, recs, nargs, vals);
			fclose(sink);
		}
	}
	free(fmt);
	return 0;
}
