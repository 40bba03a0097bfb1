/* SPDX-License-Identifier: MIT */
/*
 * usdt_note.c: a probe site's note decoded (the format: usdt_note.h).
 * The note comes from a file anyone may have written: every length is
 * checked against the descriptor, and a string must end inside it.
 */
#include <string.h>

#include "usdt_note.h"

bool usdt_note_is_site(const void *owner, size_t namesz, uint32_t type)
{
	return type == USDT_NOTE_TYPE && namesz == sizeof(USDT_NOTE_OWNER) &&
	       memcmp(owner, USDT_NOTE_OWNER, sizeof(USDT_NOTE_OWNER)) == 0;
}

static uint64_t note_addr(const unsigned char *p, int width)
{
	uint32_t v32;
	uint64_t v64;

	if (width == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

/* The three strings after the addresses, each terminated inside the
 * descriptor. */
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

bool usdt_note_decode(const void *desc, size_t len, int width,
		      usdt_note_desc_t *out)
{
	const unsigned char *d = desc;
	const char *strs[3];

	if ((width != 4 && width != 8) || len < 3 * (size_t)width ||
	    !note_strings((const char *)d + 3 * width, (const char *)d + len,
			  strs))
		return false;
	out->pc = note_addr(d, width);
	out->base = note_addr(d + width, width);
	out->sema = note_addr(d + 2 * width, width);
	out->provider = strs[0];
	out->name = strs[1];
	out->args = strs[2];
	return true;
}
