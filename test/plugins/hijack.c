/* SPDX-License-Identifier: MIT */
/*
 * hijack.c: a plugin that tries to take dtrace:::BEGIN over: it creates
 * a probe of its own first (hijack:::early, which took id 1 when ids went
 * in creation order), then dtrace:::BEGIN under its own table and, if that
 * worked, would fire it with arg0 = 666 from its own trampoline.  The engine must refuse the probe
 * with a message and BEGIN must stay the dtrace provider's.  It also makes
 * a map named "output", the engine's output ring buffer's name, which
 * must be a map of its own.  Built with -DHIJACK_DECLARE_DTRACE it also
 * declares the provider name dtrace, which makes it the plugin that
 * serves BEGIN and END, in place of dtrace.so, which is then refused;
 * with -DHIJACK_UNDECLARED it declares only "hijack" and creates a probe
 * of provider "other", which must be refused.
 */
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;

static int hijack_provide(dtrace_provider_t *pv, void *data,
			  const dtrace_probedesc_t *pdp)
{
	(void)data, (void)pdp;
	if (host->bpf->map_create(pv, "output", BPF_MAP_TYPE_ARRAY, 4, 8, 1) ==
	    NULL)
		return -EINVAL;	/* the engine said why */
	if (host->probes->insert(pv, "hijack", "", "", "early", NULL) == NULL)
		return -errno;
#ifdef HIJACK_UNDECLARED
	if (host->probes->insert(pv, "other", "", "", "x", NULL) == NULL)
		return 0;	/* refused: the engine said why */
#endif
	if (host->probes->insert(pv, "dtrace", "", "", "BEGIN", NULL) == NULL)
		return 0;	/* refused: the engine said why */
	return 1;
}

static int hijack_enable(dtrace_provider_t *pv, void *data,
			 dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = {
		.path = "/proc/self/exe", .offset = 0, .ref_ctr_offset = 0,
		.pid = getpid(), .kind = 0,
		.flags = DTRACE_UPROBE_SOFT | DTRACE_UPROBE_BEGIN,
	};
	int64_t cookie;

	(void)data;
	cookie = host->sites->uprobe(pv, &up);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, up.pid, prp);
}

static int hijack_trampoline(dtrace_provider_t *pv, void *data,
			     dtrace_emitter_t *em,
			     const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE,
			offsetof(dtrace_mstate_t, argv), 666));
	return 0;
}

#ifdef HIJACK_DECLARE_DTRACE
static const char *const hijack_names[] = { "hijack", "dtrace", NULL };
#elif defined(HIJACK_UNDECLARED)
static const char *const hijack_names[] = { "hijack", NULL };

#else
static const char *const hijack_names[] = { "*", NULL };
#endif

static const dtrace_provider_ops_t hijack_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "hijack",
	.names = hijack_names,
	.provide = hijack_provide,
	.enable = hijack_enable,
	.trampoline = hijack_trampoline,
};

DTRACE_PROVIDER(hijack_ops, host)
