/* SPDX-License-Identifier: MIT */
/*
 * fuzz_usdt_notes.c: the usdt provider's readers of what programs carry:
 * the ELF file as the plugin reads it through the engine's reader
 * (dt_elf.c: headers, .note.stapsdt notes, .stapsdt.base, the symbol
 * table; the -G declaration section), the argument specifications of the
 * notes ("-4@%edi", "8@-16(%rbp)", ...) and the declaration image alone.
 *
 * Input: a selector byte, then
 *   0: an ELF file, read from a memfd as any traced file is read;
 *   1: an argument specification (text up to the input's end);
 *   2: a declaration image as the -G section holds it.
 * Any of them may refuse the input; none may crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/unit_elfhost.h"
#include "../../plugins/usdt/usdt_args.c"
#include "../../plugins/usdt/usdt_notes.c"
#include "../../plugins/usdt/usdt_place.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The engine's ELF services, as the plugin has them. */
static const dtrace_host_t elf_host = {
	.major = DTRACE_PROVIDER_MAJOR, .minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_host_t),
	.elf = &unit_host_elf, .proc = &unit_host_proc,
};

static void fuzz_elf(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	int err;

	if (fd < 0 && (fd = memfd_create("fuzz", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	usdt_file_free(usdt_file_read(&elf_host, NULL, path, &err));
	unit_elf_cache_drop();	/* the next input is another file */
}

static void fuzz_arg(const uint8_t *data, size_t size)
{
	usdt_symtab_t st = { &elf_host, NULL };
	usdt_arg_t arg;
	char *spec = malloc(size + 1);

	if (spec == NULL)
		return;
	memcpy(spec, data, size);
	spec[size] = '\0';
	usdt_arg_parse(spec, 0x401000, true, &st, &arg);
	usdt_arg_parse(spec, 0x401000, false, NULL, &arg);
	free(spec);
}

static void fuzz_decls(const uint8_t *data, size_t size)
{
	usdt_decl_t *d = NULL;
	unsigned char *img = malloc(size ? size : 1);

	if (img == NULL)
		return;
	memcpy(img, data, size);
	int n = usdt_decls_parse(img, size, &d);
	if (n > 0)
		usdt_decls_free(d, n);
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: fuzz_elf(data + 1, size - 1); break;
	case 1: fuzz_arg(data + 1, size - 1); break;
	default: fuzz_decls(data + 1, size - 1); break;
	}
	return 0;
}
