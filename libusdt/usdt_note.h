/* SPDX-License-Identifier: MIT */
/*
 * usdt_note.h: a probe site's note, as the site macros write it and the
 * -G linker and the engine's ELF reader decode it.
 *
 * A probe site is one `nop` and one ELF note in section .note.stapsdt,
 * owner "stapsdt", type 3: the format <sys/sdt.h> documents, which the
 * installed include/dtrace/usdt.h writes too (application code includes
 * that header, which cannot include this folder: the layout is written
 * there in assembler, and here for the readers).  The descriptor holds
 * three addresses of the ELF class's width (4 or 8 bytes): the `nop`, the
 * link-time address of the .stapsdt.base marker (to undo prelinking) and
 * the probe's semaphore or 0; then three NUL-terminated strings: provider,
 * probe name, argument specifications ("-4@%edi 8@%rsi").
 *
 * Readers: dtrace/cmd/dt_link.c (`dtrace -G` checks the objects it links
 * against the declarations) and dtrace/symbols/dt_elf_stapsdt.c (the
 * engine's reader of a file's sites, for the usdt plugin through
 * host->elf->stapsdt and, in libdtcommon.a, for dtprobed's discovery).
 *
 * Each site also appends { nop address, semaphore address }, two 8-byte
 * words, to the allocated section dtrace_usdt_sites: the registration
 * code that -G generates walks it (through __start_/__stop_ symbols) to
 * send the sites in the registration message (dtprobed_proto.h).
 */
#ifndef USDT_NOTE_H
#define USDT_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_NOTE_SECTION	".note.stapsdt"
#define USDT_NOTE_OWNER		"stapsdt"	/* namesz 8, with its NUL */
#define USDT_NOTE_TYPE		3

/* A site's descriptor, decoded.  The strings point into the descriptor. */
typedef struct usdt_note_desc {
	uint64_t pc;		/* the nop, link-time address */
	uint64_t base;		/* .stapsdt.base, link-time address */
	uint64_t sema;		/* the semaphore, or 0 */
	const char *provider;
	const char *name;	/* as declared: "query__start" */
	const char *args;	/* the argument specifications */
} usdt_note_desc_t;

/* Is a note of this owner name (namesz bytes) and type a probe site's? */
bool usdt_note_is_site(const void *owner, size_t namesz, uint32_t type);

/* Decode a site's descriptor (len bytes, untrusted), its addresses width
 * bytes wide (4 or 8).  false when it is too short or a string is not
 * terminated inside it: the note is then skipped. */
bool usdt_note_decode(const void *desc, size_t len, int width,
		      usdt_note_desc_t *out);

#endif /* USDT_NOTE_H */
