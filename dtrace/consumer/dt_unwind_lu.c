/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind_lu.c: user stacks unwound with libunwind's remote unwinder
 * (-x unwinder=libunwind), the other backend of dt_unwind.c.
 *
 * libunwind unwinds a "remote" address space through accessors: the
 * registers and memory of the stopped thread, and where the unwind table
 * of a PC is.  Here nothing is stopped: the registers are those the probe
 * copied (dt_usample_t), memory is the stack copy and the files of the
 * process's modules (dt_unwind_mem.c), and the unwind table of a PC is
 * the .eh_frame_hdr search table of its module, handed to libunwind's
 * own table search (the binary search table GNU ld writes: sorted pairs
 * of 32-bit offsets from the header, of the first PC of a function and of
 * its FDE).  The .eh_frame_hdr and .eh_frame sections are read from the
 * file once per module and served from memory: libunwind reads call frame
 * information a word at a time.  A module without .eh_frame_hdr has no
 * table here (libunwind then follows the frame-pointer chain); .debug_frame
 * is not read (libdw's backend reads it).
 *
 * Invariants: as dt_unwind.c's; one libunwind address space per
 * dt_elf_proc_t, whose caches (by PC) live as long as the modules do.
 */
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#include "dt_unwind_lu.h"
#include "dt_unwind_mem.h"

/* libunwind's search of a remote binary search table: exported, not
 * declared in its headers. */
#define lu_search_table UNW_OBJ(dwarf_search_unwind_table)
extern int lu_search_table(unw_addr_space_t as, unw_word_t ip,
			   unw_dyn_info_t *di, unw_proc_info_t *pi,
			   int need_unwind_info, void *arg);

/* .eh_frame_hdr's encodings that libunwind's table search reads. */
enum {
	EH_HDR_VERSION = 1,
	EH_PE_UDATA4 = 0x03,
	EH_PE_DATAREL_SDATA4 = 0x3b,
	EH_HDR_TABLE = 12,	/* the table's offset in the header, with a
				   4-byte eh_frame_ptr and fde_count */
};

/* A section of a module's file, in memory, at its run-time address. */
typedef struct lu_section {
	uint64_t addr;
	uint8_t *data;
	size_t size;
} lu_section_t;

/* What libunwind needs of one module, read when it first needs it. */
typedef struct lu_module {
	bool read;
	lu_section_t hdr;	/* .eh_frame_hdr, or size 0 */
	lu_section_t frame;	/* .eh_frame, or size 0 */
	uint64_t nfdes;		/* entries of hdr's search table */
} lu_module_t;

struct dt_unwind_lu {
	unw_addr_space_t as;
	const dt_elf_proc_t *proc;
	lu_module_t *mods;	/* parallel to proc->mods */
	/* the stack being unwound */
	const dt_usample_t *sample;
	const uint8_t *stack;
};

static lu_module_t *lu_module_of(dt_unwind_lu_t *lu, const dt_elf_module_t *m)
{
	return &lu->mods[m - lu->proc->mods];
}

/* Section name of m's file into s, at its run-time address; false if the
 * file has none or it cannot be read. */
static bool lu_section_read(const dt_elf_module_t *m, const char *name,
			    lu_section_t *s)
{
	const dt_elf_scn_t *scn = dt_elf_section(m->file, name);

	if (scn == NULL || scn->size == 0 || scn->size > (64u << 20) ||
	    (s->data = malloc(scn->size)) == NULL)
		return false;
	if (dt_elf_read(m->file, scn->offset, s->data, scn->size) !=
	    (ssize_t)scn->size) {
		free(s->data);
		s->data = NULL;
		return false;
	}
	s->addr = scn->addr + m->bias;
	s->size = scn->size;
	return true;
}

/* The search table's length from .eh_frame_hdr's header, when it is the
 * layout libunwind searches. */
static uint64_t lu_hdr_nfdes(const lu_section_t *hdr)
{
	uint32_t n;

	if (hdr->size < EH_HDR_TABLE || hdr->data[0] != EH_HDR_VERSION ||
	    hdr->data[2] != EH_PE_UDATA4 ||
	    hdr->data[3] != EH_PE_DATAREL_SDATA4)
		return 0;
	memcpy(&n, hdr->data + 8, 4);
	if ((uint64_t)n * 8 > hdr->size - EH_HDR_TABLE)
		return 0;
	return n;
}

static lu_module_t *lu_module_read(dt_unwind_lu_t *lu,
				   const dt_elf_module_t *m)
{
	lu_module_t *lm = lu_module_of(lu, m);

	if (lm->read)
		return lm;
	lm->read = true;
	if (lu_section_read(m, ".eh_frame_hdr", &lm->hdr))
		lm->nfdes = lu_hdr_nfdes(&lm->hdr);
	if (lm->nfdes > 0)
		lu_section_read(m, ".eh_frame", &lm->frame);
	return lm;
}

static bool lu_section_word(const lu_section_t *s, uint64_t addr,
			    unw_word_t *word)
{
	if (s->size < 8 || addr < s->addr || addr - s->addr > s->size - 8)
		return false;
	memcpy(word, s->data + (addr - s->addr), 8);
	return true;
}

static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip,
			     unw_proc_info_t *pi, int need_unwind_info,
			     void *arg)
{
	dt_unwind_lu_t *lu = arg;
	const dt_elf_module_t *m = dt_elf_proc_module_at(lu->proc, ip);
	const lu_module_t *lm;
	unw_dyn_info_t di;

	if (m == NULL)
		return -UNW_ENOINFO;
	lm = lu_module_read(lu, m);
	if (lm->nfdes == 0)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->lo;
	di.end_ip = m->hi;
	di.u.rti.segbase = lm->hdr.addr;
	di.u.rti.table_data = lm->hdr.addr + EH_HDR_TABLE;
	di.u.rti.table_len = lm->nfdes * 8 / sizeof(unw_word_t);
	return lu_search_table(as, ip, &di, pi, need_unwind_info, arg);
}

/* libunwind frees what its table search allocated itself. */
static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			       void *arg)
{
	(void)as, (void)pi, (void)arg;
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
				     void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;	/* no code generated at run time is known */
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr,
			 unw_word_t *valp, int write, void *arg)
{
	dt_unwind_lu_t *lu = arg;
	const dt_elf_module_t *m;
	uint64_t word;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	m = dt_elf_proc_module_at(lu->proc, addr);
	if (m != NULL) {
		const lu_module_t *lm = lu_module_of(lu, m);

		if (lu_section_word(&lm->hdr, addr, valp) ||
		    lu_section_word(&lm->frame, addr, valp))
			return 0;
	}
	if (!dt_unwind_read(lu->proc, lu->sample, lu->stack, addr, &word))
		return -UNW_EINVAL;
	*valp = word;
	return 0;
}

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t reg,
			 unw_word_t *valp, int write, void *arg)
{
	const dt_usample_t *s = ((dt_unwind_lu_t *)arg)->sample;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	switch (reg) {
	case UNW_X86_64_RIP: *valp = s->ip; break;
	case UNW_X86_64_RSP: *valp = s->sp; break;
	case UNW_X86_64_RBP: *valp = s->bp; break;
	case UNW_X86_64_RBX: *valp = s->bx; break;
	case UNW_X86_64_R12: *valp = s->r12; break;
	case UNW_X86_64_R13: *valp = s->r13; break;
	case UNW_X86_64_R14: *valp = s->r14; break;
	case UNW_X86_64_R15: *valp = s->r15; break;
	default: return -UNW_EBADREG;	/* not copied: not callee-saved */
	}
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			   unw_fpreg_t *val, int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;	/* the process is not ours to resume */
}

static int lu_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			    size_t len, unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
	return -UNW_ENOINFO;	/* frames are symbolized by dt_consume.c */
}

static unw_accessors_t lu_accessors = {
	.find_proc_info = lu_find_proc_info,
	.put_unwind_info = lu_put_unwind_info,
	.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
	.access_mem = lu_access_mem,
	.access_reg = lu_access_reg,
	.access_fpreg = lu_access_fpreg,
	.resume = lu_resume,
	.get_proc_name = lu_get_proc_name,
};

dt_unwind_lu_t *dt_unwind_lu_create(const dt_elf_proc_t *proc)
{
	dt_unwind_lu_t *lu = calloc(1, sizeof(*lu));

	if (lu == NULL)
		return NULL;
	lu->proc = proc;
	lu->mods = calloc(proc->nmods > 0 ? proc->nmods : 1,
			  sizeof(*lu->mods));
	lu->as = unw_create_addr_space(&lu_accessors, 0);
	if (lu->mods == NULL || lu->as == NULL) {
		dt_unwind_lu_destroy(lu);
		return NULL;
	}
	unw_set_caching_policy(lu->as, UNW_CACHE_GLOBAL);
	return lu;
}

void dt_unwind_lu_destroy(dt_unwind_lu_t *lu)
{
	if (lu == NULL)
		return;
	if (lu->as != NULL)
		unw_destroy_addr_space(lu->as);
	for (int i = 0; lu->mods != NULL && i < lu->proc->nmods; i++) {
		free(lu->mods[i].hdr.data);
		free(lu->mods[i].frame.data);
	}
	free(lu->mods);
	free(lu);
}

int dt_unwind_lu(dt_unwind_lu_t *lu, const dt_usample_t *s,
		 const uint8_t *stack, uint64_t *pcs, int max)
{
	unw_cursor_t cursor;
	unw_word_t pc;
	int n = 0;

	lu->sample = s;
	lu->stack = stack;
	if (unw_init_remote(&cursor, lu->as, lu) == 0) {
		do {
			if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 ||
			    pc == 0)
				break;
			pcs[n++] = pc;
		} while (n < max && unw_step(&cursor) > 0);
	}
	return n;
}
