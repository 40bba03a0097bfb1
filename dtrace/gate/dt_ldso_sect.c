/* SPDX-License-Identifier: MIT */
/*
 * dt_ldso_sect.c: whether an ELF file has a section of a given name
 * (dt_ldso_has_section(), dt_ldso.h): the exec gate's test of whether a
 * file an exec maps matters to the providers (USDT notes).
 *
 * From the section headers and the section name table only, read with
 * pread() (dt_ldso_pread()) in batches, never mapped, with no state: the
 * gate thread asks it for each new file of every exec it holds.  Either
 * class, little-endian; counts too big for the ELF header are read from
 * section header 0; every count and size is bounded (LDSO_MAX_SHNUM,
 * LDSO_MAX_SHSTRTAB) against hostile files.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dt_ldso.h"

/* A section header of either class, reduced to what is looked at. */
typedef struct ldso_shdr {
	uint32_t name;
	uint64_t offset, size;
	uint32_t link;
} ldso_shdr_t;

/* The header table of an ELF file, class-independent. */
typedef struct ldso_shtab {
	int fd;
	bool is64;
	uint64_t off, num, entsize, strndx, fsize;
} ldso_shtab_t;

#define LDSO_MAX_SHNUM		65536
#define LDSO_MAX_SHSTRTAB	(1u << 20)
#define LDSO_SH_BATCH		64

/* Section header i; false when it cannot be read. */
static bool ldso_shdr_get(const ldso_shtab_t *t, uint64_t i, ldso_shdr_t *sh)
{
	union { Elf64_Shdr s64; Elf32_Shdr s32; } u;
	size_t len = t->is64 ? sizeof(u.s64) : sizeof(u.s32);

	if (dt_ldso_pread(t->fd, &u, len, t->off + i * t->entsize) != (ssize_t)len)
		return false;
	if (t->is64)
		*sh = (ldso_shdr_t){ u.s64.sh_name, u.s64.sh_offset,
				     u.s64.sh_size, u.s64.sh_link };
	else
		*sh = (ldso_shdr_t){ u.s32.sh_name, u.s32.sh_offset,
				     u.s32.sh_size, u.s32.sh_link };
	return true;
}

/* The section header table of the file: 1, 0 when it is not ELF or has
 * none, -errno when it is malformed. */
static int ldso_shtab_init(int fd, ldso_shtab_t *t)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } u;
	struct stat st;
	ldso_shdr_t sh0;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	n = dt_ldso_pread(fd, &u, sizeof(u), 0);
	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(u.e32) || memcmp(u.e64.e_ident, ELFMAG, SELFMAG) ||
	    u.e64.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	*t = (ldso_shtab_t){ .fd = fd, .fsize = (uint64_t)st.st_size,
			     .is64 = u.e64.e_ident[EI_CLASS] == ELFCLASS64 };
	if (t->is64 && (size_t)n == sizeof(u.e64)) {
		t->off = u.e64.e_shoff;
		t->num = u.e64.e_shnum;
		t->entsize = u.e64.e_shentsize;
		t->strndx = u.e64.e_shstrndx;
	} else if (!t->is64 && u.e64.e_ident[EI_CLASS] == ELFCLASS32) {
		t->off = u.e32.e_shoff;
		t->num = u.e32.e_shnum;
		t->entsize = u.e32.e_shentsize;
		t->strndx = u.e32.e_shstrndx;
	} else {
		return 0;
	}
	if (t->off == 0)
		return 0;
	if (t->entsize != (t->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    t->off >= t->fsize)
		return -EINVAL;
	/* Counts too big for the ELF header live in section header 0. */
	if (t->num == 0 || t->strndx == SHN_XINDEX) {
		if (!ldso_shdr_get(t, 0, &sh0))
			return -EINVAL;
		if (t->num == 0)
			t->num = sh0.size;
		if (t->strndx == SHN_XINDEX)
			t->strndx = sh0.link;
	}
	if (t->num > LDSO_MAX_SHNUM || t->num > (t->fsize - t->off) / t->entsize ||
	    t->strndx >= t->num)
		return -EINVAL;
	return 1;
}

/* Whether a section header names name (nlen with its NUL) in strs;
 * the headers are read LDSO_SH_BATCH at a time.  1, 0 or -EIO. */
static int ldso_find_name(const ldso_shtab_t *t, const char *strs,
			  uint64_t strsize, const char *name, size_t nlen)
{
	unsigned char buf[LDSO_SH_BATCH * sizeof(Elf64_Shdr)];

	for (uint64_t i = 0; i < t->num; i += LDSO_SH_BATCH) {
		uint64_t cnt = t->num - i < LDSO_SH_BATCH ? t->num - i : LDSO_SH_BATCH;
		size_t len = (size_t)(cnt * t->entsize);

		if (dt_ldso_pread(t->fd, buf, len, t->off + i * t->entsize) != (ssize_t)len)
			return -EIO;
		for (uint64_t k = 0; k < cnt; k++) {
			uint32_t off;

			/* sh_name is the first word of both classes' headers */
			memcpy(&off, buf + k * t->entsize, sizeof(off));
			if (off < strsize && strsize - off >= nlen &&
			    memcmp(strs + off, name, nlen) == 0)
				return 1;
		}
	}
	return 0;
}

int dt_ldso_has_section(int fd, const char *name)
{
	size_t nlen = name ? strlen(name) + 1 : 0;
	ldso_shtab_t t = { .fd = -1 };
	ldso_shdr_t strsh;
	char *strs;
	int ret = 0;

	if (!name || fd < 0)
		return -EINVAL;
	ret = ldso_shtab_init(fd, &t);
	if (ret <= 0)
		return ret;
	if (!ldso_shdr_get(&t, t.strndx, &strsh) || strsh.offset >= t.fsize ||
	    strsh.size > t.fsize - strsh.offset || strsh.size > LDSO_MAX_SHSTRTAB)
		return -EINVAL;
	strs = malloc(strsh.size ? strsh.size : 1);
	if (!strs)
		return -ENOMEM;
	if (dt_ldso_pread(fd, strs, strsh.size, strsh.offset) != (ssize_t)strsh.size) {
		free(strs);
		return -EIO;
	}
	ret = ldso_find_name(&t, strs, strsh.size, name, nlen);
	free(strs);
	return ret;
}
