/* SPDX-License-Identifier: MIT */
/*
 * profile.c: the profile provider: probes that fire at a fixed rate.
 *
 *	profile:::tick-N[unit]		on one CPU, every period
 *	profile:::profile-N[unit]	on every CPU, every period
 *
 * N is a rate in hertz when the unit is absent or "hz", else a period in
 * ns, nsec, us, usec, ms, msec, s, sec, m, min, h, hour, d or day.  Each
 * probe is a software cpu-clock perf event per CPU (the engine opens and
 * links them); the interrupted registers are the program's context, so
 * arg0 is the kernel PC and arg1 the user PC at the time of the sample, the
 * other being 0, as in DTrace.
 *
 * Like any third-party plugin, this one sees the engine only through
 * <dtrace/provider.h>.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include <dtrace/provider.h>

enum { KIND_TICK, KIND_PROFILE };

/* The private data of a probe. */
typedef struct profile_probe {
	int kind;
	uint64_t period_ns;
} profile_probe_t;

static const dtrace_host_t *host;

/* The probes DTrace offers without being asked, so that -l shows some. */
static const char *const default_probes[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999",
	"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000",
	"tick-5000", "tick-1sec", "tick-10sec",
};

/* Parse "tick-10ms" or "profile-997" into a kind and a period in ns.
 * Returns 0, or -1 if the name is not one of ours. */
static int parse_name(const char *name, int *kind, uint64_t *period)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "hour", 3600000000000ull },
		{ "d", 86400000000000ull }, { "day", 86400000000000ull },
	};
	const char *num;
	char *end;

	if (strncmp(name, "tick-", 5) == 0) {
		*kind = KIND_TICK;
		num = name + 5;
	} else if (strncmp(name, "profile-", 8) == 0) {
		*kind = KIND_PROFILE;
		num = name + 8;
	} else {
		return -1;
	}
	if (*num < '0' || *num > '9')
		return -1;
	errno = 0;
	uint64_t n = strtoull(num, &end, 10);
	if (errno != 0 || n == 0)
		return -1;
	if (*end == '\0' || strcmp(end, "hz") == 0) {
		if (n > 1000000000ull)
			return -1;
		*period = 1000000000ull / n;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			if (n > UINT64_MAX / units[i].ns)
				return -1;
			*period = n * units[i].ns;
			return 0;
		}
	}
	return -1;
}

static int insert(dtrace_provider_t *pv, const char *name)
{
	profile_probe_t *pp;
	int kind;
	uint64_t period;

	if (parse_name(name, &kind, &period) < 0)
		return 0;
	/* The kernel will not sample faster than this anyway: as DTrace's
	 * provider, no such probe (the description matches none,
	 * D_PDESC_ZERO) */
	if (period < 10000)
		return 0;
	if (host->probes->lookup(pv, "profile", "", "", name) != NULL)
		return 0;
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL)
		return -ENOMEM;
	pp->kind = kind;
	pp->period_ns = period;
	if (host->probes->insert(pv, "profile", "", "", name, pp) == NULL) {
		free(pp);
		return -errno;
	}
	return 1;
}

static int profile_provide(dtrace_provider_t *pv, void *data,
			   const dtrace_probedesc_t *pdp)
{
	int n = 0;

	(void)data;
	if (!host->probes->glob_match(pdp->prv, "profile") ||
	    (pdp->mod && *pdp->mod) || (pdp->fun && *pdp->fun))
		return 0;
	for (size_t i = 0; i < sizeof(default_probes) / sizeof(char *); i++) {
		int rc = insert(pv, default_probes[i]);
		if (rc < 0)
			return rc;
		n += rc;
	}
	/* A rate the user names that is not among the defaults. */
	if (pdp->prb != NULL && strpbrk(pdp->prb, "*?[\\") == NULL) {
		int rc = insert(pv, pdp->prb);
		if (rc < 0)
			return rc;
		n += rc;
	}
	return n;
}

static int profile_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	const profile_probe_t *pp = host->probes->priv(prp);
	dtrace_perfprobe_t ev = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.period = pp->period_ns,
		/* tick fires on one CPU; profile on each. */
		.cpu = pp->kind == KIND_TICK ? 0 : -1,
		.kind = pp->kind,
	};

	(void)data;
	int64_t cookie = host->sites->perf(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, 0, prp);
}

/* arg0 = the PC if the sample interrupted the kernel, arg1 the PC if it
 * interrupted a process (the low two bits of CS are the privilege level). */
static int profile_trampoline(dtrace_provider_t *pv, void *data,
			      dtrace_emitter_t *em,
			      const dtrace_trampoline_t *tr)
{
	const int ip = DTRACE_CTX_IP, cs = DTRACE_CTX_REG(CS);
	const int argv0 = offsetof(dtrace_mstate_t, argv);
	int user = host->bpf->label_new(em), done = host->bpf->label_new(em);

	(void)pv, (void)data;
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX, ip));
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R2, DTRACE_REG_CTX, cs));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R2, 3));
	host->bpf->jump(em, BPF_JEQ, DT_R2, 3, user);
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv0, DT_R1));
	host->bpf->jump(em, BPF_JA, 0, 0, done);
	host->bpf->label_place(em, user);
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv0 + 8, DT_R1));
	host->bpf->label_place(em, done);
	return 0;
}

static int profile_args(dtrace_provider_t *pv, void *data,
			const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	(void)pv, (void)data, (void)prp;
	args[0] = (dtrace_argdesc_t){ "uint64_t", NULL, 0 };
	args[1] = (dtrace_argdesc_t){ "uint64_t", NULL, 1 };
	return 2;
}

static void profile_free(void *data, void *priv)
{
	(void)data;
	free(priv);
}

static void *profile_attach(dtrace_provider_t *pv)
{
	static int token;

	(void)pv;
	return &token;
}

static const dtrace_provider_ops_t profile_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "profile",
	.attach_session = profile_attach,
	.provide = profile_provide,
	.probe_args = profile_args,
	.enable = profile_enable,
	.trampoline = profile_trampoline,
	.free_priv = profile_free,
};

DTRACE_PROVIDER(profile_ops, host)
