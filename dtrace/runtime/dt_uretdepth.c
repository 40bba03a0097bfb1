/* SPDX-License-Identifier: MIT */
/*
 * dt_uretdepth.c: the return probe firings the kernel omits, counted.
 *
 * Why.  A uretprobe replaces the return address at the function's entry
 * and keeps the original in a list of the thread's pending returns, which
 * the kernel caps at MAX_URETPROBE_DEPTH (64, not in its BTF): a call made
 * while 64 returns are pending gets none, and its return fires nothing,
 * without a word (a 1,000-deep recursion under pid$target::f:return fired
 * 1,001 entries and 64 returns).  The cap is per thread, over every
 * uretprobe of the machine (other sessions' and tools' too).
 *
 * How.  Beside each link of return probes (dt_prog_attach.c, attach_group()),
 * a link of this program on the same sites of the same file, for the same
 * process (or every one), runs at the function's entry: on the uprobe the
 * uretprobe already traps on, so a call costs one more program run, not
 * one more trap.  It reads the thread's count of pending returns
 * (current->utask->depth, the offsets from the kernel's BTF) and, when
 * the kernel is to omit this call's return (DT_URET_MAX_DEPTH or more
 * pending) while the session is active, counts one in
 * cpuinfo.uret_drops, which the consumer reports with the drops
 * (dt_consume_report_drops()).  The kernel runs every program of a site
 * before it pushes the call's return, so the depth read is the one the
 * kernel checks.  Each return link counts its own firings: two return
 * probes of one function, each omitted, count two.
 *
 * Without those members in the kernel's BTF, or when the program or a link
 * is refused, the omitted firings are not counted: a warning says so,
 * once.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_uretdepth.h"
#include "dt_as.h"
#include "dt_btf.h"
#include "dt_runtime.h"

#define DT_URET_MAX_DEPTH	64	/* the kernel's MAX_URETPROBE_DEPTH */

#define EMIT(as, insn)	dt_as_emit((as), (insn))

/* fp-16 = size bytes of the kernel at r3 + off (r3 set by the caller);
 * to out when they cannot be read. */
static void emit_read_kernel(dt_as_t *as, int32_t off, int size, int out)
{
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	EMIT(as, DT_MOV64_REG(DT_R1, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, -16));
	EMIT(as, DT_MOV64_IMM(DT_R2, size));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_jump(as, BPF_JNE, DT_R0, 0, out);
}

static void emit_count(dtrace_hdl_t *dtp, dt_as_t *as, int32_t o_utask,
		       int32_t o_depth)
{
	int out = dt_as_label(as);

	EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, -16, 0));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_current_task));
	EMIT(as, DT_MOV64_REG(DT_R3, DT_R0));
	emit_read_kernel(as, o_utask, 8, out);		/* utask */
	EMIT(as, DT_LOAD(BPF_DW, DT_R3, DT_FP, -16));
	dt_as_jump(as, BPF_JEQ, DT_R3, 0, out);		/* none yet: depth 0 */
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_FP, -16, 0));
	emit_read_kernel(as, o_depth, 4, out);		/* utask->depth */
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_FP, -16));
	dt_as_jump(as, BPF_JLT, DT_R1, DT_URET_MAX_DEPTH, out);

	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "state"),
			   DT_STATE_ACTIVITY);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
	dt_as_jump(as, BPF_JNE, DT_R1, DT_ACTIVITY_ACTIVE, out);
	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "cpuinfo"), 0);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_XADD(BPF_DW, DT_R0, (int16_t)offsetof(dt_cpuinfo_t,
							   uret_drops), DT_R1));
	dt_as_place(as, out);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
}

/* The program's fd, or -1 after dt_set_error(). */
static int depth_prog_load(dtrace_hdl_t *dtp)
{
	int32_t o_utask = dt_btf_member_offset(dtp, "task_struct", "utask");
	int32_t o_depth = dt_btf_member_offset(dtp, "uprobe_task", "depth");

	if (o_utask < 0 || o_depth < 0) {
		dt_set_error(dtp, "the kernel's BTF has no task_struct.utask "
			     "or uprobe_task.depth");
		return -1;
	}
	dt_as_t as;
	dt_as_init(&as);
	emit_count(dtp, &as, o_utask, o_depth);
	dt_as_finish(&as);	/* its error is the load's */
	int fd = dt_bpf_prog_load(dtp, "dt_uret_depth", &as);
	dt_as_fini(&as);
	return fd;
}

/* Once per session: why the omitted firings are not counted. */
static void depth_warn(dtrace_hdl_t *dtp, const char *why)
{
	if (!dtp->uret_depth_warned)
		dt_warn(dtp, "return probe firings the kernel omits (calls "
			"nested deeper than %d pending return probes) will "
			"not be counted: %s", DT_URET_MAX_DEPTH, why);
	dtp->uret_depth_warned = true;
}

static int depth_prog(dtrace_hdl_t *dtp)
{
	if (!dtp->uret_depth_tried) {
		dtp->uret_depth_tried = true;
		dtp->uret_depth_fd = depth_prog_load(dtp);
		if (dtp->uret_depth_fd < 0)
			depth_warn(dtp, dtp->errmsg);
	}
	return dtp->uret_depth_fd;
}

/* The counter's link beside the return probes of ret that were attached
 * (ret->errs 0); a site the kernel refuses is left uncounted. */
static void depth_attach(dtrace_hdl_t *dtp, const dt_attach_req_t *ret)
{
	uint64_t *offs = dt_zalloc(ret->n * sizeof(*offs));
	uint64_t *refs = dt_zalloc(ret->n * sizeof(*refs));
	int *errs = dt_zalloc(ret->n * sizeof(*errs));
	uint32_t n = 0, nfailed = 0;

	for (uint32_t i = 0; i < ret->n; i++) {
		if (ret->errs != NULL && ret->errs[i] != 0)
			continue;	/* no return probe there */
		offs[n] = ret->offsets[i];
		refs[n++] = ret->ref_ctr_offsets ? ret->ref_ctr_offsets[i] : 0;
	}
	dt_attach_req_t req = {
		.prog_fd = dtp->uret_depth_fd, .path = ret->path,
		.pid = ret->pid, .n = n, .offsets = offs,
		.ref_ctr_offsets = ret->ref_ctr_offsets ? refs : NULL,
		.nfailed = &nfailed, .links = ret->links, .errs = errs,
	};
	dt_bpf_attach_uprobes(dtp, &req);
	for (uint32_t i = 0; i < n && nfailed > 0; i++) {
		if (errs[i] == 0)
			continue;
		char why[PATH_MAX + 128];
		snprintf(why, sizeof(why), "%u of %u sites in %s refused "
			 "(offset 0x%llx: %s)", nfailed, n, ret->path,
			 (unsigned long long)offs[i], strerror(errs[i]));
		depth_warn(dtp, why);
		break;
	}
	free(offs);
	free(refs);
	free(errs);
}

void dt_uretdepth_attach(dtrace_hdl_t *dtp, const dt_attach_req_t *ret)
{
	char saved[sizeof(dtp->errmsg)];

	if (!ret->retprobe || ret->n == 0)
		return;
	/* What goes wrong here is warned about; the caller's error stays. */
	memcpy(saved, dtp->errmsg, sizeof(saved));
	if (depth_prog(dtp) >= 0)
		depth_attach(dtp, ret);
	memcpy(dtp->errmsg, saved, sizeof(saved));
}
