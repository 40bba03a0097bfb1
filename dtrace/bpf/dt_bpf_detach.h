/* SPDX-License-Identifier: MIT */
/*
 * dt_bpf_detach.h: the session's links closed at its end (dt_bpf_fini()),
 * the slow part in a process of its own (dt_bpf_detach.c says why).
 */
#ifndef DT_BPF_DETACH_H
#define DT_BPF_DETACH_H

/* Closes the links fds[0..n) (uprobe_multi, raw tracepoints: their
 * closes overlap) and perf_fds[0..nperf) (on perf events: the kernel
 * closes them one at a time), which detaches them.  dtrace's copies are
 * closed when it returns; the kernel's work may go on in the detacher.
 * Both arrays are left in any order. */
void dt_bpf_detach_links(int *fds, int n, int *perf_fds, int nperf);

#endif
