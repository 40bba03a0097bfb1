/* SPDX-License-Identifier: MIT */
/*
 * hello.c: a provider plugin as a third party would write it, against the
 * installed header <dtrace/provider.h> only.  One probe, hello:::ping,
 * fired once when tracing starts, with arg0 = 42 (or the option
 * -x hello.value=N) and arg1 = the process's pid.
 *
 * Built with -DHELLO_MAJOR=N it claims another major interface version
 * (3: one built for the interface before 4.0), which dtrace must refuse
 * with a message while loading the others.  Built with -DHELLO_MINOR0 it
 * is what a plugin built against an older minor version looks like: minor
 * 0 and a table that ends before the fields added later (which here hold
 * garbage the engine must not read).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <dtrace/provider.h>

#ifndef HELLO_MAJOR
#define HELLO_MAJOR	DTRACE_PROVIDER_MAJOR
#endif

static const dtrace_host_t *host;
static int64_t ping_cookie;
static int32_t ping_value = 42;

static int hello_provide(dtrace_provider_t *pv, void *data,
			 const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "hello") ||
	    host->probes->lookup(pv, "hello", "", "", "ping") != NULL)
		return 0;
	return host->probes->insert(pv, "hello", "", "", "ping", NULL) ? 1
								    : -errno;
}

/* The probe has no instruction of its own to sit on: it is a soft probe
 * that the plugin fires through the host.  The path and offset only make
 * it unique. */
static int hello_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = {
		.path = "/proc/self/exe", .offset = 0, .ref_ctr_offset = 0,
		.pid = getpid(), .kind = 0, .flags = DTRACE_UPROBE_SOFT,
	};

	(void)data;
	ping_cookie = host->sites->uprobe(pv, &up);
	if (ping_cookie < 0)
		return (int)ping_cookie;
	return host->sites->overlay(pv, ping_cookie, up.pid, prp);
}

static int hello_trampoline(dtrace_provider_t *pv, void *data,
			    dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, argv,
			ping_value));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R0));
	return 0;
}

static int hello_start(dtrace_provider_t *pv, void *data)
{
	(void)data;
	if (ping_cookie > 0)
		return host->sites->fire(pv, ping_cookie);
	return 0;
}

static const dtrace_option_t hello_options[] = {
	{ "value", "arg0 of hello:::ping (default 42)" },
	{ NULL, NULL },
};

static int hello_set_option(dtrace_provider_t *pv, void *data,
			    const char *name, const char *value)
{
	char *end;
	long v;

	(void)data, (void)name;	/* the engine passes declared names only */
	v = value ? strtol(value, &end, 0) : 0;
	if (value == NULL || *end != '\0' || v < -0x7fffffffL ||
	    v > 0x7fffffffL) {
		host->report->error(pv, "hello: value wants a 32-bit integer");
		return -EINVAL;
	}
	ping_value = (int32_t)v;
	return 0;
}

static const dtrace_provider_ops_t hello_ops = {
#ifdef HELLO_MINOR0
	.major = HELLO_MAJOR,
	.minor = 0,
	.size = offsetof(dtrace_provider_ops_t, options),
#else
	.major = HELLO_MAJOR,
	.minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_provider_ops_t),
#endif
	.name = "hello",
	.provide = hello_provide,
	.enable = hello_enable,
	.trampoline = hello_trampoline,
	.start = hello_start,
#ifdef HELLO_MINOR0
	.options = (const dtrace_option_t *)1,
	.set_option = (int (*)(dtrace_provider_t *, void *, const char *,
			       const char *))1,
#else
	.options = hello_options,
	.set_option = hello_set_option,
#endif
};

DTRACE_PROVIDER(hello_ops, host)
