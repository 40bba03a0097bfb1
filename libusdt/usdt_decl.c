/* SPDX-License-Identifier: MIT */
/*
 * usdt_decl.c: the provider declarations a `dtrace -G` object puts in the
 * section .dtrace_prov of the program or library it is linked into: one
 * registration message image per provider (dtprobed_proto.h, with no
 * sites), each 8-byte aligned.  Written by the -G linker
 * (usdt_decl_image.c); read here for the usdt plugin with a file's notes,
 * so a probe is typed as declared even before its process registered, and
 * for dtprobed's discovery (usdt_decls_parse).  The section is data from a
 * file anyone may have written: every count, offset and string is checked
 * before use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usdt_decl.h"
#include "dtprobed_proto.h"

/* A string of the image's string table, or NULL when off is outside it or
 * the string is not terminated inside it. */
static const char *decl_str(const usdt_decl_t *d, uint32_t off, uint32_t size)
{
	if (off >= size || memchr(d->strtab + off, '\0', size - off) == NULL)
		return NULL;
	return d->strtab + off;
}

/* Word idx of types[] in *w; false past its end. */
static bool decl_word(const unsigned char *img, const dtpv_msg_t *h,
		      uint64_t idx, uint32_t *w)
{
	if (idx >= h->ntypes)
		return false;
	memcpy(w, img + h->types_off + 4 * idx, 4);
	return true;
}

/* A type name through the types table: index idx of ntypes. */
static const char *decl_type(const usdt_decl_t *d, const unsigned char *img,
			     const dtpv_msg_t *h, uint64_t idx)
{
	uint32_t off;
	if (!decl_word(img, h, idx, &off))
		return NULL;
	return decl_str(d, off, h->strtab_size);
}

/* The native argument translated argument a is taken from; -1 when the
 * image does not say. */
static int decl_mapping(const unsigned char *img, const dtpv_msg_t *h,
			const dtpv_probe_t *rp, int a)
{
	uint32_t map;
	if (a < DTPV_MAPPING_INLINE)
		return rp->mapping[a];
	if (!decl_word(img, h, dtpv_mapping_index(rp, (uint32_t)a), &map) ||
	    map >= USDT_DECL_ARGS_MAX)
		return -1;
	return (int)map;
}

static bool decl_table_ok(uint64_t off, uint64_t n, uint64_t esz,
			  uint64_t size)
{
	return off <= size && n <= (size - off) / esz;
}

static int decl_probe(usdt_decl_t *d, const unsigned char *img,
		      const dtpv_msg_t *h, uint32_t i, usdt_decl_probe_t *p)
{
	dtpv_probe_t rp;
	memcpy(&rp, img + h->probes_off + (size_t)i * sizeof(rp), sizeof(rp));
	if (rp.nargs > USDT_DECL_ARGS_MAX || rp.nxargs > USDT_DECL_ARGS_MAX)
		return -EINVAL;
	p->name = decl_str(d, rp.name, h->strtab_size);
	p->nargs = rp.nargs;
	p->nxargs = rp.nxargs;
	if (p->name == NULL || *p->name == '\0')
		return -EINVAL;
	for (int a = 0; a < p->nargs; a++)
		if ((p->native[a] = decl_type(d, img, h,
					      (uint64_t)rp.native + a)) == NULL)
			return -EINVAL;
	for (int a = 0; a < p->nxargs; a++) {
		p->xlate[a] = decl_type(d, img, h, (uint64_t)rp.xlate + a);
		p->mapping[a] = decl_mapping(img, h, &rp, a);
		if (p->xlate[a] == NULL || p->mapping[a] < 0 ||
		    p->mapping[a] >= p->nargs)
			return -EINVAL;
	}
	return 0;
}

/* One image of size bytes at img into d; -EINVAL when damaged. */
static int decl_image(const unsigned char *img, size_t size, usdt_decl_t *d)
{
	dtpv_msg_t h;
	memcpy(&h, img, sizeof(h));
	if (!decl_table_ok(h.probes_off, h.nprobes, sizeof(dtpv_probe_t), size) ||
	    !decl_table_ok(h.types_off, h.ntypes, 4, size) ||
	    !decl_table_ok(h.strtab_off, h.strtab_size, 1, size) ||
	    h.strtab_size == 0 || h.nprobes > DTPV_PROBES_MAX)
		return -EINVAL;
	d->strtab = malloc(h.strtab_size);
	d->probes = calloc(h.nprobes ? h.nprobes : 1, sizeof(*d->probes));
	if (d->strtab == NULL || d->probes == NULL)
		return -ENOMEM;
	memcpy(d->strtab, img + h.strtab_off, h.strtab_size);
	d->strtab[h.strtab_size - 1] = '\0';
	d->provider = decl_str(d, h.provider, h.strtab_size);
	if (d->provider == NULL || *d->provider == '\0')
		return -EINVAL;
	for (int i = 0; i < 5; i++)
		d->attrs[i] = h.attrs[i] ?
			decl_str(d, h.attrs[i], h.strtab_size) : NULL;
	for (uint32_t i = 0; i < h.nprobes; i++) {
		int err = decl_probe(d, img, &h, i, &d->probes[i]);
		if (err < 0)
			return err;
		d->nprobes++;
	}
	return 0;
}

static void decl_clear(usdt_decl_t *d)
{
	free(d->strtab);
	free(d->probes);
	memset(d, 0, sizeof(*d));
}

int usdt_decls_parse(const unsigned char *data, size_t len, usdt_decl_t **out)
{
	usdt_decl_t *v = NULL;
	int n = 0;
	size_t off = 0;

	*out = NULL;
	while (off + sizeof(dtpv_msg_t) <= len) {
		dtpv_msg_t h;
		memcpy(&h, data + off, sizeof(h));
		if (memcmp(h.magic, DTPV_MAGIC, 4) != 0) {
			off += 8;	/* alignment padding between objects */
			continue;
		}
		if (h.version != DTPV_VERSION || h.size < sizeof(h) ||
		    h.size > len - off)
			break;
		usdt_decl_t *nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (nv == NULL) {
			usdt_decls_free(v, n);
			return -ENOMEM;
		}
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		int err = decl_image(data + off, h.size, &v[n]);
		if (err == -ENOMEM) {
			decl_clear(&v[n]);
			usdt_decls_free(v, n);
			return err;
		}
		if (err < 0) {
			decl_clear(&v[n]);
			break;		/* damaged: what follows is suspect */
		}
		n++;
		off += (h.size + 7) & ~(size_t)7;
	}
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}

void usdt_decls_free(usdt_decl_t *d, int n)
{
	for (int i = 0; i < n; i++)
		decl_clear(&d[i]);
	free(d);
}

const usdt_decl_probe_t *usdt_decl_find(const usdt_decl_t *d, int n,
					const char *provider, const char *name,
					const usdt_decl_t **prov)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(d[i].provider, provider) != 0)
			continue;
		for (int j = 0; j < d[i].nprobes; j++)
			if (strcmp(d[i].probes[j].name, name) == 0) {
				if (prov != NULL)
					*prov = &d[i];
				return &d[i].probes[j];
			}
	}
	return NULL;
}
