/* SPDX-License-Identifier: MIT */
/*
 * usdt_decl_image.c: the image of a provider's declaration that the -G
 * linker (dtrace/cmd/dt_link.c) puts in section .dtrace_prov: a
 * registration message (dtprobed_proto.h) with no sites, its strings
 * stored once, padded to 8 bytes.  usdt_decl.c reads it back; the format
 * is usdt_decl.h's.
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usdt_decl.h"
#include "dtprobed_proto.h"

_Static_assert(USDT_DECL_ARGS_MAX == DTPV_ARGS_MAX, "arguments of a probe");

/* Bytes appended to a stream that libc grows (open_memstream(3)); len
 * counts them, so that an offset is known as it is written.  A failed
 * write stays in the stream's error flag, seen when it closes. */
typedef struct decl_buf {
	FILE *f;
	char *p;		/* the bytes, once closed */
	size_t plen;		/* their count as the stream tells it */
	size_t len;
} decl_buf_t;

static bool decl_buf_open(decl_buf_t *b)
{
	b->f = open_memstream(&b->p, &b->plen);
	return b->f != NULL;
}

/* Close b (opened or not); false if a write failed. */
static bool decl_buf_close(decl_buf_t *b)
{
	bool ok = b->f != NULL && !ferror(b->f);

	if (b->f != NULL && fclose(b->f) != 0)
		ok = false;
	b->f = NULL;
	return ok;
}

/* Append n bytes; returns the offset they start at. */
static uint32_t decl_buf_add(decl_buf_t *b, const void *data, size_t n)
{
	size_t at = b->len;

	if (n > 0)
		fwrite(data, 1, n, b->f);
	b->len += n;
	return (uint32_t)at;
}

/* The string table being written, and each string's offset once added
 * (a tsearch(3) tree of decl_strent_t, so that a string is stored once
 * however many probes name it). */
typedef struct decl_strent {
	const char *s;
	uint32_t off;
} decl_strent_t;

typedef struct decl_strtab {
	decl_buf_t buf;
	void *offsets;
	bool nomem;
} decl_strtab_t;

static int decl_strent_cmp(const void *a, const void *b)
{
	return strcmp(((const decl_strent_t *)a)->s,
		      ((const decl_strent_t *)b)->s);
}

/* A string's offset in the string table, adding it if new (offset 0: ""). */
static uint32_t decl_str_add(decl_strtab_t *st, const char *s)
{
	decl_strent_t key = { .s = s }, *e, **found;
	uint32_t off;

	if (s == NULL || *s == '\0')
		return 0;
	found = tfind(&key, &st->offsets, decl_strent_cmp);
	if (found != NULL)
		return (*found)->off;
	e = malloc(sizeof(*e));
	if (e == NULL) {
		st->nomem = true;
		return 0;
	}
	e->s = s;
	e->off = off = decl_buf_add(&st->buf, s, strlen(s) + 1);
	if (tsearch(e, &st->offsets, decl_strent_cmp) == NULL) {
		free(e);
		st->nomem = true;
	}
	return off;
}

/* One probe's record, its types appended to types. */
static dtpv_probe_t decl_probe_record(const usdt_decl_probe_t *p,
				      decl_strtab_t *st, decl_buf_t *types)
{
	dtpv_probe_t rp = { .name = decl_str_add(st, p->name) };

	rp.nargs = (uint8_t)p->nargs;
	rp.nxargs = (uint8_t)p->nxargs;
	rp.native = (uint32_t)(types->len / 4);
	for (int i = 0; i < p->nargs; i++) {
		uint32_t s = decl_str_add(st, p->native[i]);

		decl_buf_add(types, &s, 4);
	}
	rp.xlate = (uint32_t)(types->len / 4);
	for (int i = 0; i < p->nxargs; i++) {
		uint32_t s = decl_str_add(st, p->xlate[i]);

		decl_buf_add(types, &s, 4);
		if (i < DTPV_MAPPING_INLINE)
			rp.mapping[i] = (uint8_t)p->mapping[i];
	}
	for (int i = DTPV_MAPPING_INLINE; i < p->nxargs; i++) {
		uint32_t map = (uint32_t)p->mapping[i];

		decl_buf_add(types, &map, 4);
	}
	return rp;
}

/* The header's strings and the tables of probes, types and strings. */
static void decl_write_tables(const usdt_decl_t *d, dtpv_msg_t *h,
			      decl_buf_t *probes, decl_buf_t *types,
			      decl_strtab_t *st)
{
	decl_buf_add(&st->buf, "", 1);
	h->provider = decl_str_add(st, d->provider);
	for (int i = 0; i < 5; i++)
		h->attrs[i] = decl_str_add(st, d->attrs[i]);
	for (int i = 0; i < d->nprobes; i++) {
		dtpv_probe_t rp = decl_probe_record(&d->probes[i], st, types);

		decl_buf_add(probes, &rp, sizeof(rp));
	}
	h->nprobes = (uint32_t)d->nprobes;
}

/* The image: the header, then the closed tables, padded to 8 bytes. */
static void decl_write_image(dtpv_msg_t *h, const decl_buf_t *probes,
			     const decl_buf_t *types, const decl_buf_t *strtab,
			     decl_buf_t *out)
{
	static const char pad[8];

	h->probes_off = sizeof(*h);
	h->ntypes = (uint32_t)(types->len / 4);
	h->types_off = h->probes_off + (uint32_t)probes->len;
	h->strtab_off = h->types_off + (uint32_t)types->len;
	h->strtab_size = (uint32_t)strtab->len;
	h->size = (uint32_t)((h->strtab_off + strtab->len + 7) & ~(size_t)7);
	h->sites_off = h->size;
	decl_buf_add(out, h, sizeof(*h));
	decl_buf_add(out, probes->p, probes->len);
	decl_buf_add(out, types->p, types->len);
	decl_buf_add(out, strtab->p, strtab->len);
	decl_buf_add(out, pad, h->size - out->len);
}

int usdt_decl_image(const usdt_decl_t *d, unsigned char **img, size_t *len)
{
	decl_buf_t probes = { 0 }, types = { 0 }, out = { 0 };
	decl_strtab_t st = { 0 };
	dtpv_msg_t h = { .magic = "DTPV", .version = DTPV_VERSION };
	bool ok = decl_buf_open(&probes) && decl_buf_open(&types) &&
		  decl_buf_open(&st.buf) && decl_buf_open(&out);

	if (ok)
		decl_write_tables(d, &h, &probes, &types, &st);
	/* Every stream is closed, whichever failed (the close comes first). */
	ok = decl_buf_close(&probes) && ok;
	ok = decl_buf_close(&types) && ok;
	ok = decl_buf_close(&st.buf) && ok && !st.nomem;
	if (ok)
		decl_write_image(&h, &probes, &types, &st.buf, &out);
	ok = decl_buf_close(&out) && ok;
	tdestroy(st.offsets, free);
	free(probes.p);
	free(types.p);
	free(st.buf.p);
	*img = ok ? (unsigned char *)out.p : NULL;
	*len = ok ? out.len : 0;
	if (!ok)
		free(out.p);
	return ok ? 0 : -ENOMEM;
}
