/* SPDX-License-Identifier: MIT */
/*
 * usdt_decl.h: the provider declarations of section .dtrace_prov.
 *
 * `dtrace -G` keeps each provider's declaration in the section .dtrace_prov
 * of the program or library it is linked into: the registration message
 * image of dtprobed_proto.h with a zero header's op and no sites, one per
 * provider, each 8-byte aligned.  usdt_decl_image() writes one (the -G
 * linker, dtrace/cmd/dt_link.c); usdt_decls_parse() reads a section back
 * (the usdt plugin, with a file's notes, so that a probe is typed as
 * declared before its process registered; dtprobed's discovery, which
 * registers a process from it).  Writer and reader of the format live
 * side by side: usdt_decl_image.c and usdt_decl.c.
 */
#ifndef USDT_DECL_H
#define USDT_DECL_H

#include <stddef.h>

/* Arguments of a probe at most: DTPV_ARGS_MAX of the message. */
#define USDT_DECL_ARGS_MAX	16

/* A probe as a provider file declared it.  Parsed: its strings point into
 * the owning usdt_decl_t's strtab. */
typedef struct usdt_decl_probe {
	const char *name;	/* as declared: "query__start" */
	int nargs;		/* native arguments */
	const char *native[USDT_DECL_ARGS_MAX];
	int nxargs;		/* translated arguments (args[N]) */
	const char *xlate[USDT_DECL_ARGS_MAX];
	int mapping[USDT_DECL_ARGS_MAX];	/* args[i] is native mapping[i] */
} usdt_decl_probe_t;

/* A provider's declaration.  Stability attributes: "Name/Name/Class" or
 * NULL, indexed as USDT_REG_ATTR_* (provider, module, function, name,
 * args). */
typedef struct usdt_decl {
	const char *provider;
	const char *attrs[5];
	int nprobes;
	usdt_decl_probe_t *probes;
	char *strtab;		/* parsed: owned copy of the image's string
				   table; written: unused (NULL) */
} usdt_decl_t;

/* Parse the images of a .dtrace_prov section (len bytes, untrusted: every
 * offset is checked; a damaged image ends the walk).  Returns the number of
 * providers put in *out (an array to free with usdt_decls_free), 0 when
 * none, or -ENOMEM. */
int usdt_decls_parse(const unsigned char *data, size_t len, usdt_decl_t **out);
void usdt_decls_free(usdt_decl_t *d, int n);
/* The declaration of provider:name in a file's declarations, or NULL. */
const usdt_decl_probe_t *usdt_decl_find(const usdt_decl_t *d, int n,
					const char *provider, const char *name,
					const usdt_decl_t **prov);

/* The image of d (header, probes, types, string table, padded to 8
 * bytes), malloc'ed into *img and *len.  Strings appear once in the
 * string table; a NULL or empty one is offset 0 ("").  The caller checked
 * the counts (at most USDT_DECL_ARGS_MAX arguments, mapping[] within
 * nargs).  Returns 0 or -ENOMEM. */
int usdt_decl_image(const usdt_decl_t *d, unsigned char **img, size_t *len);

#endif /* USDT_DECL_H */
