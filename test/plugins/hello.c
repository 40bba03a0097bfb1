/*
 * hello.c: a provider plugin as a third party would write it, against the
 * installed header <dtrace/provider.h> only.  One probe, hello:::ping,
 * fired once when tracing starts, with arg0 = 42 and arg1 = the process's
 * pid.  Built with -DHELLO_VERSION=N it claims another interface version,
 * which dtrace must refuse with a message while loading the others.
 */
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

#include <dtrace/provider.h>

#ifndef HELLO_VERSION
#define HELLO_VERSION	DTRACE_PROVIDER_VERSION
#endif

static const dtrace_host_t *host;
static int64_t ping_cookie;

static int hello_provide(dtrace_hdl_t *dtp, void *data,
			 const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->glob_match(pdp->prv, "hello") ||
	    host->probe_lookup(dtp, "hello", "", "", "ping") != NULL)
		return 0;
	return host->probe_insert(dtp, "hello", "", "", "ping", NULL) ? 1
								     : -errno;
}

/* The probe has no instruction of its own to sit on: it is a soft probe
 * that the plugin fires through the host.  The path and offset only make
 * it unique. */
static int hello_enable(dtrace_hdl_t *dtp, void *data, dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = {
		.path = "/proc/self/exe", .offset = 0, .pid = getpid(),
		.kind = 0, .flags = DTRACE_UPROBE_SOFT,
	};

	(void)data;
	ping_cookie = host->uprobe(dtp, &up);
	if (ping_cookie < 0)
		return (int)ping_cookie;
	return host->overlay(dtp, ping_cookie, up.pid, prp);
}

static int hello_trampoline(dtrace_hdl_t *dtp, void *data,
			    dtrace_emitter_t *em, int kind, int skip)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)dtp, (void)data, (void)kind, (void)skip;
	host->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, argv, 42));
	host->emit(em, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	host->emit(em, DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	host->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R0));
	return 0;
}

static int hello_start(dtrace_hdl_t *dtp, void *data)
{
	(void)data;
	if (ping_cookie > 0)
		return host->fire(dtp, ping_cookie);
	return 0;
}

static const dtrace_provider_ops_t hello_ops = {
	.version = HELLO_VERSION,
	.name = "hello",
	.provide = hello_provide,
	.enable = hello_enable,
	.trampoline = hello_trampoline,
	.start = hello_start,
};

const dtrace_provider_ops_t *dtrace_provider_init(const dtrace_host_t *h)
{
	host = h;
	return &hello_ops;
}
