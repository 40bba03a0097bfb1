/* SPDX-License-Identifier: MIT */
/*
 * gatetest.c: a plugin that asks the exec gate for the files that carry
 * an ELF section of its own choosing, .note.dtgatetest, rather than USDT
 * notes.  One probe, gatetest:::shown, fired each time the gate shows it
 * an exec's files, with arg0 = the pid of the exec and arg1 = how many
 * files it was shown.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;
static dtrace_map_t *shown;	/* key 0: { pid, npaths } of the last exec */
static int64_t cookie;

static int gt_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "gatetest") ||
	    host->probes->lookup(pv, "gatetest", "", "", "shown"))
		return 0;
	return host->probes->insert(pv, "gatetest", "", "", "shown", NULL) ? 1
								      : -errno;
}

static int gt_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = {
		.path = "/proc/self/exe", .offset = 0, .ref_ctr_offset = 0,
		.pid = getpid(), .kind = 0, .flags = DTRACE_UPROBE_SOFT,
	};
	int rc;

	(void)data;
	shown = host->bpf->map_create(pv, "shown", BPF_MAP_TYPE_ARRAY, 4, 16,
				      1);
	if (shown == NULL)
		return -ENOMEM;
	cookie = host->sites->uprobe(pv, &up);
	if (cookie < 0)
		return (int)cookie;
	if ((rc = host->sites->overlay(pv, cookie, up.pid, prp)) < 0)
		return rc;
	return host->sites->gate_exec(pv);
}

/* argv[0], argv[1] = the map's entry. */
static int gt_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int skip = tr->skip;
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data;
	host->bpf->emit(em, DT_STORE_IMM(BPF_W, DT_FP, -8, 0));
	host->bpf->load_map(em, DT_R1, shown);
	host->bpf->emit(em, DT_MOV64_REG(DT_R2, DT_FP));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	host->bpf->jump(em, BPF_JEQ, DT_R0, 0, skip);
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv, DT_R1));
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DT_R0, 8));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R1));
	return 0;
}

/* bpf(BPF_MAP_UPDATE_ELEM) without libbpf. */
static int map_put(int fd, uint32_t key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(uintptr_t)&key;
	attr.value = (uint64_t)(uintptr_t)value;
	return (int)syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr));
}

static int gt_notice_files(dtrace_provider_t *pv, void *data, pid_t pid,
			   const char *const *paths, int npaths)
{
	uint64_t v[2] = { (uint64_t)pid, (uint64_t)npaths };

	(void)data, (void)paths;
	if (map_put(host->bpf->map_fd(shown), 0, v) < 0) {
		host->report->error(pv, "gatetest: map update: %s",
				    strerror(errno));
		return -errno;
	}
	host->sites->fire(pv, cookie);
	return 0;
}

static const char *const gt_sections[] = { ".note.dtgatetest", NULL };

static const dtrace_provider_ops_t gt_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "gatetest",
	.provide = gt_provide,
	.enable = gt_enable,
	.trampoline = gt_trampoline,
	.notice_files = gt_notice_files,
	.gate_sections = gt_sections,
};

DTRACE_PROVIDER(gt_ops, host)
