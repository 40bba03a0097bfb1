/* SPDX-License-Identifier: MIT */
/*
 * evil.c: a plugin whose constructor leaves a mark, as code that wants a
 * privileged process would act: it creates the file named by the
 * environment variable EVIL_MARKER as soon as the dynamic loader maps it,
 * before dtrace could ask it anything.  dtrace must not load it from a place
 * another user could have written.  Otherwise it is a plugin that makes no
 * probes; built with -DEVIL_CRASH its provide() dereferences NULL, and
 * dtrace must die naming it.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <dtrace/provider.h>

__attribute__((constructor)) static void evil_mark(void)
{
	const char *marker = getenv("EVIL_MARKER");
	int fd = marker ? open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)
			: -1;

	if (fd >= 0)
		close(fd);
}

static int evil_provide(dtrace_provider_t *pv, void *data,
			const dtrace_probedesc_t *pdp)
{
	(void)pv, (void)data, (void)pdp;
#ifdef EVIL_CRASH
	return *(volatile int *)(uintptr_t)0;
#else
	return 0;
#endif
}

static int evil_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	(void)pv, (void)data, (void)prp;
	return 0;
}

static int evil_trampoline(dtrace_provider_t *pv, void *data,
			   dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data, (void)em, (void)tr;
	return 0;
}

static const dtrace_provider_ops_t evil_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "evil",
	.provide = evil_provide,
	.enable = evil_enable,
	.trampoline = evil_trampoline,
};

const dtrace_provider_ops_t *dtrace_provider_init(const dtrace_host_t *h)
{
	(void)h;
	return &evil_ops;
}
