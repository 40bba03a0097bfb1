/* SPDX-License-Identifier: MIT */
/*
 * test_usdt_note.c: a probe site's note decoded by libusdt
 * (usdt_note_decode, which the -G linker and the engine's ELF reader
 * call).  A descriptor of either width decodes to its addresses and
 * strings; every truncation of one is refused, never read past (the
 * sanitizer build checks each access, every copy in a buffer of its own
 * length); only owner "stapsdt" and type 3 is a site's note.
 */
#include <stdlib.h>
#include <string.h>

#include "usdt_note.h"
#include "unit_check.h"

static const char strs[] = "myapp\0query__start\0-4@%edi 8@%rsi";

/* A descriptor of width-byte addresses pc, base, sema, then strs. */
static size_t make_desc(unsigned char *d, int width)
{
	uint64_t a[3] = { 0x401136, 0x402010, 0x404028 };

	for (int i = 0; i < 3; i++) {
		uint32_t a32 = (uint32_t)a[i];

		memcpy(d + i * width, width == 4 ? (void *)&a32 : (void *)&a[i],
		       (size_t)width);
	}
	memcpy(d + 3 * width, strs, sizeof(strs));
	return 3 * (size_t)width + sizeof(strs);
}

static void test_width(int width)
{
	unsigned char d[128];
	size_t len = make_desc(d, width);
	usdt_note_desc_t n;

	CHECK(usdt_note_decode(d, len, width, &n));
	CHECK(n.pc == 0x401136 && n.base == 0x402010 && n.sema == 0x404028);
	CHECK(strcmp(n.provider, "myapp") == 0);
	CHECK(strcmp(n.name, "query__start") == 0);
	CHECK(strcmp(n.args, "-4@%edi 8@%rsi") == 0);
	for (size_t k = 0; k < len; k++) {
		unsigned char *cut = malloc(k ? k : 1);

		memcpy(cut, d, k);
		CHECK(!usdt_note_decode(cut, k, width, &n));
		free(cut);
	}
}

int main(void)
{
	unsigned char d[128];
	usdt_note_desc_t n;

	test_width(8);
	test_width(4);
	CHECK(!usdt_note_decode(d, make_desc(d, 8), 2, &n));
	CHECK(usdt_note_is_site("stapsdt", 8, 3));
	CHECK(!usdt_note_is_site("stapsdt", 8, 1));
	CHECK(!usdt_note_is_site("stapsdx", 8, 3));
	CHECK(!usdt_note_is_site("stapsdt", 7, 3));
	return failures ? 1 : 0;
}
