/* SPDX-License-Identifier: MIT */
/*
 * plugins/dtrace/dtrace.c: the dtrace provider's dtrace:::BEGIN and
 * dtrace:::END, written against include/dtrace/provider.h only, as any
 * third party's provider would be.  The engine reserves these names and
 * their ids (1 and 2) for the plugin named dtrace.so; ERROR (id 3) is the
 * engine's own.
 *
 * How BEGIN and END fire.  The plugin carries two trigger functions,
 * dtp_begin_trigger() and dtp_end_trigger().  Enabling BEGIN places a uprobe
 * on the first instruction of the BEGIN trigger in this very shared object,
 * restricted to the dtrace process itself (pid = getpid()), and overlays the
 * BEGIN probe on it; END likewise.  start() calls the BEGIN trigger once
 * everything is attached, so the BEGIN clauses run synchronously, in the
 * consumer's thread, before start() returns; stop() calls the END trigger.
 * The flags DTRACE_UPROBE_BEGIN and DTRACE_UPROBE_END tell the engine to run
 * them while the session is inactive (and to activate it) or stopping.
 *
 * A uprobe is placed by (file, file offset).  The trigger's file offset is
 * found from its run-time address: dl_iterate_phdr() gives the load bias and
 * program headers of the object that contains the address; the PT_LOAD
 * segment that holds it maps the virtual address to the file offset.
 *
 * Invariants.  The triggers must stay real, distinct functions: they are
 * noipa (never inlined, cloned or merged with each other) and each holds an
 * asm statement the compiler cannot remove.  Nothing here touches the
 * engine except through the host table.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dtrace/provider.h>

#define DTP_PROVIDER	"dtrace"

/* The probes of the provider; the value is stored as the probe's priv. */
enum dtp_probe_kind {
	DTP_BEGIN = 1,
	DTP_END,
};

static const struct {
	const char *name;
	enum dtp_probe_kind kind;
} dtp_probes[] = {
	{ "BEGIN", DTP_BEGIN },
	{ "END", DTP_END },
};

/* Per-session data: where the triggers are in this shared object. */
typedef struct dtp_session {
	char path[PATH_MAX];
	uint64_t begin_off;	/* file offset of dtp_begin_trigger */
	uint64_t end_off;	/* file offset of dtp_end_trigger */
	int64_t begin_cookie;	/* their underlying probes, once enabled */
	int64_t end_cookie;
} dtp_session_t;

/* The engine's table, given once to dtrace_provider_init(). */
static const dtrace_host_t *host;

/*
 * The triggers.  The uprobes sit on their first instruction; calling them
 * is all it takes to fire BEGIN or END.  The asm statements differ so that
 * the two bodies are never identical, and are volatile so that a call is
 * never dropped.
 */
__attribute__((noipa)) static void dtp_begin_trigger(void)
{
	__asm__ __volatile__("nop" ::: "memory");
}

__attribute__((noipa)) static void dtp_end_trigger(void)
{
	__asm__ __volatile__("nop\n\tnop" ::: "memory");
}

/* What dtp_locate() looks for and finds through dl_iterate_phdr(). */
struct dtp_lookup {
	uintptr_t addr;		/* a run-time address */
	const char *name;	/* out: the object that holds it */
	uint64_t offset;	/* out: its file offset there */
	int found;
};

static int dtp_lookup_object(struct dl_phdr_info *info, size_t size,
			     void *arg)
{
	struct dtp_lookup *lk = arg;
	uint64_t vaddr = lk->addr - info->dlpi_addr;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr ||
		    vaddr >= ph->p_vaddr + ph->p_filesz)
			continue;
		lk->name = info->dlpi_name;
		lk->offset = vaddr - ph->p_vaddr + ph->p_offset;
		lk->found = 1;
		return 1;
	}
	return 0;
}

/* Find the file offset of fn in this shared object. */
static int dtp_locate(dtrace_provider_t *pv, void (*fn)(void), uint64_t *offset,
		      const char **name)
{
	struct dtp_lookup lk = { .addr = (uintptr_t)fn };

	dl_iterate_phdr(dtp_lookup_object, &lk);
	if (!lk.found || lk.name == NULL || lk.name[0] == '\0') {
		host->report->error(pv,
				    "dtrace provider: cannot locate its own "
				    "trigger functions in memory");
		return -ENOENT;
	}
	*offset = lk.offset;
	*name = lk.name;
	return 0;
}

/* The absolute path of this shared object: the uprobe needs a path that
 * does not depend on the current directory. */
static int dtp_own_path(dtrace_provider_t *pv, const char *name, char *path)
{
	if (realpath(name, path) == NULL) {
		host->report->error(pv,
				    "dtrace provider: cannot resolve %s: %s",
				    name, strerror(errno));
		return -errno;
	}
	return 0;
}

static void *dtp_attach_session(dtrace_provider_t *pv)
{
	dtp_session_t *s = calloc(1, sizeof(*s));
	const char *name, *name2;

	if (s == NULL) {
		host->report->error(pv, "dtrace provider: out of memory");
		return NULL;
	}
	if (dtp_locate(pv, dtp_begin_trigger, &s->begin_off, &name) < 0 ||
	    dtp_locate(pv, dtp_end_trigger, &s->end_off, &name2) < 0 ||
	    dtp_own_path(pv, name, s->path) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void dtp_detach_session(dtrace_provider_t *pv, void *data)
{
	free(data);
}

/*
 * Take over dtrace:::BEGIN and END, which the engine created with their
 * ids before asking any provider.  Inserting an existing probe of this
 * provider returns it, so this runs for every description.  Returns 0.
 */
static int dtp_provide(dtrace_provider_t *pv, void *data,
		       const dtrace_probedesc_t *pdp)
{
	for (size_t i = 0; i < sizeof(dtp_probes) / sizeof(dtp_probes[0]); i++) {
		const char *name = dtp_probes[i].name;

		if (host->probes->insert(pv, DTP_PROVIDER, "", "", name,
					 (void *)(uintptr_t)dtp_probes[i]
						 .kind) == NULL) {
			int err = errno ? errno : ENOMEM;

			host->report->error(pv,
					    "dtrace provider: cannot create "
					    "probe dtrace:::%s: %s",
					    name, strerror(err));
			return -err;
		}
	}
	return 0;
}

/* Place the uprobe on a trigger, for this process only, and overlay prp. */
/* BEGIN and END are soft probes: the engine may run their programs
 * directly (host->sites->fire) instead of placing a uprobe, which saves the
 * kernel's tens of milliseconds of uprobe registration and removal at
 * every start; the uprobe on the trigger is the fallback. */
static int dtp_enable_trigger(dtrace_provider_t *pv, uint64_t offset,
			      const char *path, unsigned flags,
			      dtrace_probe_t *prp, int64_t *cookiep)
{
	dtrace_uprobe_t up = {
		.path = path,
		.offset = offset,
		.pid = getpid(),
		.kind = 0,
		.flags = flags | DTRACE_UPROBE_SOFT,
	};
	int64_t cookie = host->sites->uprobe(pv, &up);

	if (cookie < 0)
		return (int)cookie;
	*cookiep = cookie;
	return host->sites->overlay(pv, cookie, up.pid, prp);
}

static int dtp_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtp_session_t *s = data;

	switch ((uintptr_t)host->probes->priv(prp)) {
	case DTP_BEGIN:
		return dtp_enable_trigger(pv, s->begin_off, s->path,
					  DTRACE_UPROBE_BEGIN, prp,
					  &s->begin_cookie);
	case DTP_END:
		return dtp_enable_trigger(pv, s->end_off, s->path,
					  DTRACE_UPROBE_END, prp,
					  &s->end_cookie);
	default:
		host->report->error(pv, "dtrace provider: unknown probe %s",
				    host->probes->name(prp, DTRACE_FIELD_PRB));
		return -EINVAL;
	}
}

/* BEGIN and END have no arguments: the machine state's argv stays 0. */
static int dtp_trampoline(dtrace_provider_t *pv, void *data, dtrace_emitter_t *em,
const dtrace_trampoline_t *tr)
{
	return 0;
}

/* Fire BEGIN or END: directly when the engine can, else through the
 * uprobe on the trigger. */
static void dtp_fire(dtrace_provider_t *pv, int64_t cookie, void (*trigger)(void))
{
	if (cookie > 0 && host->sites->fire != NULL &&
	    host->sites->fire(pv, cookie) == 0)
		return;
	trigger();
}

static int dtp_start(dtrace_provider_t *pv, void *data)
{
	dtp_session_t *s = data;

	dtp_fire(pv, s->begin_cookie, dtp_begin_trigger);
	return 0;
}

static int dtp_stop(dtrace_provider_t *pv, void *data)
{
	dtp_session_t *s = data;

	dtp_fire(pv, s->end_cookie, dtp_end_trigger);
	return 0;
}

static const dtrace_provider_ops_t dtp_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = DTP_PROVIDER,
	.attach_session = dtp_attach_session,
	.provide = dtp_provide,
	.enable = dtp_enable,
	.trampoline = dtp_trampoline,
	.start = dtp_start,
	.stop = dtp_stop,
	.detach_session = dtp_detach_session,
};

DTRACE_PROVIDER(dtp_ops, host)
