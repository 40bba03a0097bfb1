/* SPDX-License-Identifier: MIT */
// hello_cxx.cc: a provider plugin written in C++, against the installed
// header <dtrace/provider.h> only.  One probe, hellocxx:::greet, fired once
// when tracing starts, with arg0 = the length of its greeting (an
// std::string) and arg1 = 7.  The table is filled at run time from
// dtrace_provider_ops_start(), without designated initializers, so that
// C++11 to C++17 serve (-pedantic clean).  Build it with the Makefile
// beside it, then:
//
//   dtrace -x plugindir=. -n 'hellocxx:::greet { trace(arg0); exit(0); }'
#include <cerrno>
#include <cstddef>
#include <string>
#include <unistd.h>

#include <dtrace/provider.h>

namespace {

const dtrace_host_t *host;

class Greeter {
public:
	explicit Greeter(std::string text) : text_(std::move(text)) {}
	int32_t length() const { return static_cast<int32_t>(text_.size()); }
private:
	std::string text_;
};

const Greeter greeter("hello from C++");
int64_t cookie;

int provide(dtrace_provider_t *pv, void *, const dtrace_probedesc_t *pdp)
{
	if (!host->probes->glob_match(pdp->prv, "hellocxx") ||
	    host->probes->lookup(pv, "hellocxx", "", "", "greet") != nullptr)
		return 0;
	return host->probes->insert(pv, "hellocxx", "", "", "greet", nullptr)
		? 1 : -errno;
}

int enable(dtrace_provider_t *pv, void *, dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = {};

	up.path = "/proc/self/exe";
	up.pid = getpid();
	up.flags = DTRACE_UPROBE_SOFT;
	cookie = host->sites->uprobe(pv, &up);
	if (cookie < 0)
		return static_cast<int>(cookie);
	return host->sites->overlay(pv, cookie, up.pid, prp);
}

int trampoline(dtrace_provider_t *, void *, dtrace_emitter_t *em,
	       const dtrace_trampoline_t *)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, argv,
			greeter.length()));
	host->bpf->emit(em,
			DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, argv + 8, 7));
	return 0;
}

int start(dtrace_provider_t *pv, void *)
{
	return cookie > 0 ? host->sites->fire(pv, cookie) : 0;
}

dtrace_provider_ops_t make_ops()
{
	dtrace_provider_ops_t ops = dtrace_provider_ops_start();

	ops.name = "hellocxx";
	ops.provide = provide;
	ops.enable = enable;
	ops.trampoline = trampoline;
	ops.start = start;
	return ops;
}

const dtrace_provider_ops_t ops = make_ops();

} // namespace

DTRACE_PROVIDER(ops, host)
