/* SPDX-License-Identifier: MIT */
/*
 * slowmatch.c: a plugin whose matching is slow, for the tests of start-up
 * progress: a description naming the provider slowmatch takes it 1.5 s to
 * answer (as matching against thousands of processes' files may), and
 * matches nothing.
 */
#include <time.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;

static int slowmatch_provide(dtrace_provider_t *pv, void *data,
			     const dtrace_probedesc_t *pdp)
{
	struct timespec ts = { 1, 500 * 1000 * 1000 };

	(void)pv, (void)data;
	if (host->probes->glob_match(pdp->prv, "slowmatch"))
		nanosleep(&ts, NULL);
	return 0;
}

/* Never asked: nothing matches. */
static int slowmatch_enable(dtrace_provider_t *pv, void *data,
			    dtrace_probe_t *prp)
{
	(void)pv, (void)data, (void)prp;
	return 0;
}

static int slowmatch_trampoline(dtrace_provider_t *pv, void *data,
				dtrace_emitter_t *em,
				const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data, (void)em, (void)tr;
	return 0;
}

static const dtrace_provider_ops_t slowmatch_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "slowmatch",
	.provide = slowmatch_provide,
	.enable = slowmatch_enable,
	.trampoline = slowmatch_trampoline,
};

DTRACE_PROVIDER(slowmatch_ops, host)
