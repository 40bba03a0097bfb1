/* SPDX-License-Identifier: MIT */
/*
 * test_usdt_decl.c: the .dtrace_prov declarations of libusdt, writer and
 * reader together.  An image written by usdt_decl_image (what `dtrace -G`
 * puts in the section) reads back as written through usdt_decls_parse
 * (what the usdt plugin and dtprobed's discovery read), its strings stored
 * once; two images in a row with the padding between them read as two;
 * every truncation of an image is refused or read whole, never past its
 * end (the sanitizer build checks every access).  A probe of 16 translated
 * arguments keeps the mappings past the 12th in the types table.
 */
#include <stdlib.h>
#include <string.h>

#include "usdt_decl.h"
#include "dtprobed_proto.h"
#include "unit_check.h"

static usdt_decl_probe_t probes[] = {
	{ .name = "tick", .nargs = 1, .native = { "int" }, .nxargs = 1,
	  .xlate = { "int" } },
	{ .name = "query__start", .nargs = 2, .native = { "int", "char *" },
	  .nxargs = 2, .xlate = { "char *", "int" }, .mapping = { 1, 0 } },
	{ .name = "noargs" },
};

static const usdt_decl_t decl = {
	.provider = "myapp",
	.attrs = { "Evolving/Evolving/Common", NULL, NULL, NULL,
		   "Evolving/Evolving/Common" },
	.nprobes = 3,
	.probes = probes,
};

static int same_str(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

static void check_probe(const usdt_decl_probe_t *got,
			const usdt_decl_probe_t *want)
{
	CHECK(same_str(got->name, want->name));
	CHECK(got->nargs == want->nargs && got->nxargs == want->nxargs);
	for (int a = 0; a < want->nargs; a++)
		CHECK(same_str(got->native[a], want->native[a]));
	for (int a = 0; a < want->nxargs; a++) {
		CHECK(same_str(got->xlate[a], want->xlate[a]));
		CHECK(got->mapping[a] == want->mapping[a]);
	}
}

static void check_decl(const usdt_decl_t *got)
{
	CHECK(same_str(got->provider, decl.provider));
	for (int i = 0; i < 5; i++)
		CHECK(same_str(got->attrs[i], decl.attrs[i]));
	CHECK(got->nprobes == decl.nprobes);
	for (int i = 0; i < decl.nprobes && i < got->nprobes; i++)
		check_probe(&got->probes[i], &decl.probes[i]);
}

/* The image's layout: header, aligned size, each string once. */
static void test_layout(const unsigned char *img, size_t len)
{
	dtpv_msg_t h;

	CHECK(len >= sizeof(h) && len % 8 == 0);
	memcpy(&h, img, sizeof(h));
	CHECK(memcmp(h.magic, DTPV_MAGIC, 4) == 0);
	CHECK(h.version == DTPV_VERSION && h.op == 0 && h.nsites == 0);
	CHECK(h.size == len && h.sites_off == h.size);
	CHECK(h.nprobes == 3 && h.ntypes == 6);
	/* "", myapp, the attributes once, 3 names, int, char *. */
	CHECK(h.strtab_size == 1 + 6 + 25 + 5 + 13 + 7 + 4 + 7);
}

static void test_round_trip(const unsigned char *img, size_t len)
{
	usdt_decl_t *d;
	int n = usdt_decls_parse(img, len, &d);

	CHECK(n == 1);
	if (n == 1)
		check_decl(&d[0]);
	usdt_decls_free(d, n > 0 ? n : 0);
}

/* Two images one after the other, as the linker concatenates the
 * sections of two -G objects (8-byte aligned, zeros between). */
static void test_two(const unsigned char *img, size_t len)
{
	size_t gap = 8, total = 2 * len + gap;
	unsigned char *two = calloc(1, total);
	usdt_decl_t *d;
	int n;

	memcpy(two, img, len);
	memcpy(two + len + gap, img, len);
	n = usdt_decls_parse(two, total, &d);
	CHECK(n == 2);
	for (int i = 0; i < n; i++)
		check_decl(&d[i]);
	usdt_decls_free(d, n > 0 ? n : 0);
	free(two);
}

/* Every shorter copy, each in a buffer of its own length. */
static void test_truncated(const unsigned char *img, size_t len)
{
	for (size_t k = 0; k < len; k++) {
		unsigned char *cut = malloc(k ? k : 1);
		usdt_decl_t *d;
		int n;

		memcpy(cut, img, k);
		n = usdt_decls_parse(cut, k, &d);
		CHECK(n == 0 && d == NULL);
		free(cut);
	}
}

/* 16 arguments translated in reverse: the mappings of args[12] ..
 * args[15] follow the translated types, one word each; one naming no
 * native argument makes the image refused. */
static void test_sixteen(void)
{
	usdt_decl_probe_t p = { .name = "sixteen", .nargs = 16,
				.nxargs = 16 };
	usdt_decl_t d16 = { .provider = "many", .nprobes = 1, .probes = &p };
	unsigned char *img = NULL;
	usdt_decl_t *d;
	size_t len = 0;
	dtpv_msg_t h;
	int n;

	for (int a = 0; a < 16; a++) {
		p.native[a] = a == 15 ? "char *" : "int";
		p.xlate[a] = a == 0 ? "char *" : "int";
		p.mapping[a] = 15 - a;
	}
	CHECK(usdt_decl_image(&d16, &img, &len) == 0);
	if (img == NULL)
		return;
	memcpy(&h, img, sizeof(h));
	CHECK(h.ntypes == 16 + 16 + 4);
	n = usdt_decls_parse(img, len, &d);
	CHECK(n == 1);
	if (n == 1)
		check_probe(&d[0].probes[0], &p);
	usdt_decls_free(d, n > 0 ? n : 0);

	uint32_t bad = 16;	/* args[15]'s mapping: no such native */
	memcpy(img + h.types_off + 4 * (h.ntypes - 1), &bad, 4);
	n = usdt_decls_parse(img, len, &d);
	CHECK(n == 0);
	usdt_decls_free(d, n > 0 ? n : 0);
	free(img);
}

int main(void)
{
	unsigned char *img = NULL;
	size_t len = 0;

	CHECK(usdt_decl_image(&decl, &img, &len) == 0);
	if (img == NULL)
		return 1;
	test_layout(img, len);
	test_round_trip(img, len);
	test_two(img, len);
	test_truncated(img, len);
	free(img);
	test_sixteen();
	return failures ? 1 : 0;
}
