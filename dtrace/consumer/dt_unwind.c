/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind.c: user stacks unwound in the consumer.
 *
 * BPF does not walk user stacks for ustack(): most libraries on a Linux
 * distribution are built without frame pointers, and a frame-pointer walk
 * through them yields garbage (whatever word sits where a saved %rbp would
 * be).  Instead the probe copies the registers an unwinder starts from and
 * the top of the user stack (dt_usample_t, dt_cg_usample()), and the
 * consumer unwinds that copy with libdw's unwinder: the call frame
 * information of each module (.eh_frame, or .debug_frame from the file or
 * its separate debug file), and the frame-pointer chain where a module has
 * none.  CFI describes every instruction, so a stack taken inside a
 * prologue, at a function's first instruction or at a return probe is as
 * right as one taken anywhere else.
 *
 * The modules are the process's as dt_elf read them (kept after the
 * process exits), reported to one Dwfl per process with their load bias;
 * libdw reads the CFI from the files.  Memory reads during the unwind are
 * served from the stack copy, and from the files for addresses in their
 * mappings (dt_unwind_mem.c); anything else is unknown and ends the walk.
 *
 * -x unwinder=libunwind hands the same stacks to libunwind's remote
 * unwinder instead (dt_unwind_lu.c); bench/ustack.sh compares the two,
 * HACKING.md says why libdw is the default.
 *
 * Invariants: a stack is never read outside the copy that travelled in the
 * record; a Dwfl is built for one dt_elf_proc_t and dropped with it.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_debuginfo.h"
#include "dt_unwind.h"
#include "dt_unwind_lu.h"
#include "dt_unwind_mem.h"

/* x86_64 DWARF register numbers. */
enum { DW_RBX = 3, DW_RBP = 6, DW_RSP = 7, DW_R12 = 12 };

struct dt_unwind {
	dt_unwind_lu_t *lu;	/* -x unwinder=libunwind: it unwinds */
	Dwfl *dwfl;
	const dt_elf_proc_t *proc;
	bool attached;
	/* the stack being unwound */
	const dt_usample_t *sample;
	const uint8_t *stack;
	uint64_t *pcs;
	int npcs, max;
};

static Dwfl_Callbacks dt_unwind_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dt_debuginfo_find,
};

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	dt_unwind_t *uw = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = uw;
	return (pid_t)uw->sample->pid;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	dt_unwind_t *uw = arg;
	uint64_t word;

	(void)dwfl;
	if (!dt_unwind_read(uw->proc, uw->sample, uw->stack, addr, &word))
		return false;
	*result = word;
	return true;
}

static bool uw_set_registers(Dwfl_Thread *thread, void *arg)
{
	const dt_usample_t *s = ((dt_unwind_t *)arg)->sample;
	Dwarf_Word bx = s->bx, bp_sp[2] = { s->bp, s->sp };
	Dwarf_Word r12_15[4] = { s->r12, s->r13, s->r14, s->r15 };

	if (!dwfl_thread_state_registers(thread, DW_RBX, 1, &bx) ||
	    !dwfl_thread_state_registers(thread, DW_RBP, 2, bp_sp) ||
	    !dwfl_thread_state_registers(thread, DW_R12, 4, r12_15))
		return false;
	dwfl_thread_state_register_pc(thread, s->ip);
	return true;
}

static const Dwfl_Thread_Callbacks dt_unwind_thread_callbacks = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_registers,
};

dt_unwind_t *dt_unwind_create(const dt_elf_proc_t *proc, int which)
{
	dt_unwind_t *uw = calloc(1, sizeof(*uw));

	if (uw == NULL)
		return NULL;
	uw->proc = proc;
	if (which == DT_UNWINDER_LIBUNWIND) {
		if ((uw->lu = dt_unwind_lu_create(proc)) == NULL) {
			free(uw);
			return NULL;
		}
		return uw;
	}
	dt_unwind_callbacks.debuginfo_path = dt_elf_debuginfo_path();
	uw->dwfl = dwfl_begin(&dt_unwind_callbacks);
	if (uw->dwfl == NULL) {
		free(uw);
		return NULL;
	}
	dwfl_report_begin(uw->dwfl);
	for (int i = 0; i < proc->nmods; i++) {
		const dt_elf_module_t *m = &proc->mods[i];

		/* base + the first segment's address is where it loaded.
		 * The file is the one dt_elf opened, never its path again:
		 * the process's owner may have put a FIFO there since. */
		int fd = fcntl(m->file->fd, F_DUPFD_CLOEXEC, 0);

		if (fd >= 0 && dwfl_report_elf(uw->dwfl, m->name,
					       m->file->path, fd, m->bias,
					       true) == NULL)
			close(fd);	/* consumed on success only */
	}
	dwfl_report_end(uw->dwfl, NULL, NULL);
	return uw;
}

void dt_unwind_destroy(dt_unwind_t *uw)
{
	if (uw == NULL)
		return;
	dt_unwind_lu_destroy(uw->lu);
	if (uw->dwfl != NULL)
		dwfl_end(uw->dwfl);
	free(uw);
}

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	dt_unwind_t *uw = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	uw->pcs[uw->npcs++] = pc;
	return uw->npcs < uw->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int dt_unwind(dt_unwind_t *uw, const dt_usample_t *s, const uint8_t *stack,
	      uint64_t *pcs, int max)
{
	if (max <= 0 || s->ip == 0)
		return 0;
	if (uw->lu != NULL) {
		int n = dt_unwind_lu(uw->lu, s, stack, pcs, max);

		if (n == 0)	/* not even the first frame: the probed PC */
			pcs[n++] = s->ip;
		return n;
	}
	uw->sample = s;
	uw->stack = stack;
	uw->pcs = pcs;
	uw->npcs = 0;
	uw->max = max;
	if (!uw->attached) {
		/* once per Dwfl; the thread callbacks read uw->sample */
		if (!dwfl_attach_state(uw->dwfl, NULL, (pid_t)s->pid,
				       &dt_unwind_thread_callbacks, uw)) {
			pcs[0] = s->ip;
			return 1;
		}
		uw->attached = true;
	}
	dwfl_getthread_frames(uw->dwfl, (pid_t)s->pid, uw_frame, uw);
	if (uw->npcs == 0) {	/* not even the first frame: the probed PC */
		pcs[0] = s->ip;
		uw->npcs = 1;
	}
	return uw->npcs;
}
