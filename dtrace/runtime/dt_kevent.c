/* SPDX-License-Identifier: MIT */
/*
 * dt_kevent.c: programs on kernel functions and raw tracepoints.
 *
 *   type		program type	context		attached with
 *   KPROBE		KPROBE		pt_regs		perf event of the kprobe
 *   KRETPROBE		KPROBE		pt_regs		PMU, with the cookie
 *   FENTRY, FEXIT	TRACING		u64 args[]	a link of the program,
 *						(fexit: then	loaded for the function's
 *						the return)	BTF id
 *   RAW_TRACEPOINT	RAW_TRACEPOINT	u64 args[]	bpf_raw_tracepoint_open
 *
 * A kprobe program serves every function of its kind and reads the
 * firing's cookie as a uprobe program does.  The others are loaded for one
 * function or tracepoint each, and their prologue writes the underlying
 * probe's cookie as a constant (dt_prog_impl.h, fixed_cookie): fentry and
 * raw tracepoints have no attach cookie before kernel 6.10.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "dt_kevent.h"
#include "dt_bpf.h"
#include "dt_btf.h"

bool dt_kevent_offered(dtrace_event_type_t t)
{
	return t == DTRACE_EVENT_KPROBE || t == DTRACE_EVENT_KRETPROBE ||
	       dt_kevent_per_probe(t);
}

bool dt_kevent_has_regs(dtrace_event_type_t t)
{
	return t == 0 || DTRACE_EVENT_HAS_REGS(t);
}

bool dt_kevent_per_probe(dtrace_event_type_t t)
{
	return t == DTRACE_EVENT_FENTRY || t == DTRACE_EVENT_FEXIT ||
	       t == DTRACE_EVENT_RAW_TRACEPOINT;
}

/* The BTF id of the kernel function name, or -1 after dt_set_error(). */
static int func_btf_id(dtrace_hdl_t *dtp, const char *name)
{
	if (dt_btf_kernel(dtp) == NULL) {
		dt_set_error(dtp, "cannot read the kernel's BTF "
			     "(/sys/kernel/btf/vmlinux): %s", strerror(errno));
		return -1;
	}
	int id = btf__find_by_name_kind(dtp->kbtf, name, BTF_KIND_FUNC);
	if (id < 0)
		dt_set_error(dtp, "the kernel's BTF has no function %s", name);
	return id;
}

int dt_kevent_load(dtrace_hdl_t *dtp, const char *progname, dt_as_t *as,
		   dtrace_event_type_t t, const char *name)
{
	int id;

	switch (t) {
	case DTRACE_EVENT_KPROBE: case DTRACE_EVENT_KRETPROBE:
		return dt_bpf_prog_load_type(dtp, progname, as,
					     BPF_PROG_TYPE_KPROBE, 0);
	case DTRACE_EVENT_RAW_TRACEPOINT:
		return dt_bpf_prog_load_type(dtp, progname, as,
					     BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	case DTRACE_EVENT_FENTRY: case DTRACE_EVENT_FEXIT:
		if ((id = func_btf_id(dtp, name)) < 0)
			return -1;
		return dt_bpf_prog_load_btf(dtp, progname, as,
					    BPF_PROG_TYPE_TRACING,
					    t == DTRACE_EVENT_FENTRY ?
					    BPF_TRACE_FENTRY : BPF_TRACE_FEXIT,
					    (uint32_t)id);
	default:
		dt_set_error(dtp, "no program type for kernel event type %d",
			     (int)t);
		return -1;
	}
}

/* A number from a sysfs file of the kprobe PMU ("type", or after prefix
 * in "format/retprobe"), or -1. */
static int kprobe_pmu_value(const char *file, const char *prefix)
{
	char path[128];
	int v = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/kprobe/%s",
		 file);
	FILE *fp = fopen(path, "r");
	if (fp == NULL)
		return -1;
	char buf[64];
	if (fgets(buf, sizeof(buf), fp) != NULL &&
	    strncmp(buf, prefix, strlen(prefix)) == 0 &&
	    sscanf(buf + strlen(prefix), "%d", &v) != 1)
		v = -1;
	fclose(fp);
	return v;
}

static int attach_kprobe(dtrace_hdl_t *dtp, int prog_fd, bool ret,
			 const char *func, uint64_t cookie)
{
	int type = kprobe_pmu_value("type", "");
	int bit = ret ? kprobe_pmu_value("format/retprobe", "config:") : 0;

	if (type < 0 || bit < 0) {
		dt_set_error(dtp, "failed to attach to kprobe %s: this kernel "
			     "has no kprobe PMU (%s)", func,
			     "/sys/bus/event_source/devices/kprobe");
		return -ENOTSUP;
	}
	struct perf_event_attr pa;
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = (uint32_t)type;
	pa.config = ret ? 1ull << bit : 0;
	pa.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	pa.sample_period = 1;
	int rc = dt_bpf_attach_perf_attr(dtp, prog_fd, &pa, 0, cookie);
	if (rc < 0)
		dt_set_error(dtp, "failed to attach to %s %s: %s",
			     ret ? "kretprobe" : "kprobe", func, strerror(-rc));
	return rc;
}

int dt_kevent_attach(dtrace_hdl_t *dtp, int prog_fd, dtrace_event_type_t t,
		     const char *name, uint64_t cookie)
{
	static const char *const what[] = {
		[DTRACE_EVENT_FENTRY] = "fentry", [DTRACE_EVENT_FEXIT] = "fexit",
		[DTRACE_EVENT_RAW_TRACEPOINT] = "raw tracepoint",
	};
	int fd;

	switch (t) {
	case DTRACE_EVENT_KPROBE: case DTRACE_EVENT_KRETPROBE:
		return attach_kprobe(dtp, prog_fd, t == DTRACE_EVENT_KRETPROBE,
				     name, cookie);
	case DTRACE_EVENT_FENTRY: case DTRACE_EVENT_FEXIT:
		fd = bpf_link_create(prog_fd, 0, t == DTRACE_EVENT_FENTRY ?
				     BPF_TRACE_FENTRY : BPF_TRACE_FEXIT, NULL);
		break;
	case DTRACE_EVENT_RAW_TRACEPOINT:
		fd = bpf_raw_tracepoint_open(name, prog_fd);
		break;
	default:
		return -EINVAL;
	}
	if (fd < 0) {
		int err = errno;
		dt_set_error(dtp, "failed to attach to %s %s: %s", what[t], name,
			     strerror(err));
		return -err;
	}
	dt_bpf_link_keep(dtp, fd);
	return 0;
}
