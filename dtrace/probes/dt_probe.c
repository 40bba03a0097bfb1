/* SPDX-License-Identifier: MIT */
/*
 * dt_probe.c: the session's probe table.
 *
 * Probes are created by providers (on demand, from a description) and live
 * until the session ends, but for those a provider made for one process
 * alone (dt_probe_of_process()), which go when the process has exited
 * (dt_probe_remove_pid()).  probes[id] holds the probe of PRID id (ids
 * start at 1 and never change; NULL once removed, and given again only
 * past the room for the probes made while tracing, dt_probe_late_room());
 * a hash table (dt_hash.h) on the full name finds a probe by its four
 * names.  Matching a description asks every provider to create what may
 * match first, then walks the table in PRID order, so results come in the
 * order probes were created.
 *
 * A provider is not asked about a description that names exactly a
 * provider another plugin (or the engine) declares by that exact name:
 * provider names are unique machine-wide, as in DTrace, so none of its
 * probes can match ("syscall::read:entry" is not a question for the usdt
 * provider, which serves every other name and would look at every
 * process).  A bare BEGIN, END or ERROR names the dtrace provider's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_dwarf.h"
#include "dt_btf.h"
#include "dt_instance.h"
#include "dt_plugcall.h"

/* A probe's four names, the key of the index by name. */
typedef struct probe_names {
	const char *prv, *mod, *fun, *prb;
} probe_names_t;

static uint64_t names_hash(const probe_names_t *k)
{
	const char *parts[4] = { k->prv, k->mod, k->fun, k->prb };
	uint64_t h = DT_HASH_INIT;

	for (int i = 0; i < 4; i++)	/* the NUL apart: ("ab", "c") */
		h = dt_hash_bytes(dt_hash_str(h, parts[i]), "", 1);
	return h;
}

static bool names_eq(const void *elem, const void *key)
{
	const dtrace_probe_t *p = *(dtrace_probe_t *const *)elem;
	const probe_names_t *k = key;

	return strcmp(p->prb, k->prb) == 0 && strcmp(p->fun, k->fun) == 0 &&
	       strcmp(p->mod, k->mod) == 0 && strcmp(p->prv, k->prv) == 0;
}

void dt_probe_hash_add(dtrace_hdl_t *dtp, dtrace_probe_t *p)
{
	probe_names_t k = { p->prv, p->mod, p->fun, p->prb };
	dt_htab_t *t = &dtp->probe_names;

	if (t->eq == NULL) {
		dt_htab_init(t, sizeof(p), names_eq);
		dt_htab_nofail(t);
	}
	*(dtrace_probe_t **)dt_htab_insert(t, names_hash(&k), &k, NULL) = p;
}

/* Whether id is one of those the programs give the probes they make. */
static bool id_of_programs(const dtrace_hdl_t *dtp, uint32_t id)
{
	return dtp->inst_base != 0 && id >= dtp->inst_base &&
	       id - dtp->inst_base < dtp->inst_max;
}

dtrace_probe_t *dt_probe_by_id(dtrace_hdl_t *dtp, uint32_t id)
{
	if (id_of_programs(dtp, id)) {
		if (id - dtp->inst_base >= dtp->ninst)
			dt_inst_import(dtp);
		return id - dtp->inst_base < dtp->ninst ?
		       dtp->inst[id - dtp->inst_base] : NULL;
	}
	return id >= 1 && id <= dtp->nprobes ? dtp->probes[id] : NULL;
}

dtrace_probe_t *dt_probe_lookup(dtrace_hdl_t *dtp, const char *prv,
				const char *mod, const char *fun,
				const char *prb)
{
	probe_names_t k = { prv, mod, fun, prb };
	dtrace_probe_t **e = dt_htab_find(&dtp->probe_names, names_hash(&k), &k);

	return e != NULL ? *e : NULL;
}

void dt_probe_late_room(dtrace_hdl_t *dtp, uint32_t limit, bool reuse)
{
	dtp->late_limit = limit;
	dtp->reuse_ids = reuse;
}

/* The id of a probe about to be made (see dt_probe_late_room()). */
static uint32_t probe_id_new(dtrace_hdl_t *dtp)
{
	bool past = dtp->late_limit != 0 && dtp->nprobes + 1 >= dtp->late_limit;

	if (past && dtp->reuse_ids && dtp->free_ids_head < dtp->nfree_ids) {
		uint32_t id = dtp->free_ids[dtp->free_ids_head++];

		dt_array_room(dtp->reused_ids, dtp->nreused, dtp->reused_cap);
		dtp->reused_ids[dtp->nreused++] = id;
		return id;
	}
	if (id_of_programs(dtp, dtp->nprobes + 1)) {	/* step over them */
		uint32_t last = dtp->inst_base + dtp->inst_max - 1;

		dt_array_room(dtp->probes, last + 1, dtp->probes_cap);
		while (dtp->nprobes < last)
			dtp->probes[++dtp->nprobes] = NULL;
	}
	dt_array_room(dtp->probes, dtp->nprobes + 1, dtp->probes_cap);
	return ++dtp->nprobes;
}

/* The id of a probe removed, to be given again (oldest first). */
static void probe_id_free(dtrace_hdl_t *dtp, uint32_t id)
{
	if (dtp->free_ids_head > 0 && dtp->free_ids_head * 2 >= dtp->nfree_ids) {
		dtp->nfree_ids -= dtp->free_ids_head;
		memmove(dtp->free_ids, dtp->free_ids + dtp->free_ids_head,
			dtp->nfree_ids * sizeof(*dtp->free_ids));
		dtp->free_ids_head = 0;
	}
	dt_array_room(dtp->free_ids, dtp->nfree_ids, dtp->free_ids_cap);
	dtp->free_ids[dtp->nfree_ids++] = id;
}

dtrace_probe_t *dt_probe_insert(dtrace_hdl_t *dtp, dt_provider_t *pv,
				const char *prv, const char *mod,
				const char *fun, const char *prb, void *priv)
{
	dtrace_probe_t *p = dt_probe_lookup(dtp, prv, mod, fun, prb);

	/* A probe a program made at run time becomes its provider's. */
	if (p != NULL && p->priv == NULL && p->provider == pv &&
	    p->id >= dtp->inst_base && dtp->inst_base != 0)
		p->priv = priv;
	if (p != NULL)
		return p;
	p = dt_zalloc(sizeof(*p));
	p->id = probe_id_new(dtp);
	p->prv = dt_strdup(prv);
	p->mod = dt_strdup(mod);
	p->fun = dt_strdup(fun);
	p->prb = dt_strdup(prb);
	p->provider = pv;
	p->priv = priv;
	p->nargs = -1;
	dtp->probes[p->id] = p;
	dt_probe_hash_add(dtp, p);
	return p;
}

/* A provider may match its own probes (module aliases such as libc for
 * libc.so.6); otherwise each field is a glob on the probe's name. */
bool dt_probe_matches(dtrace_hdl_t *dtp, const dtrace_probe_t *p,
		      const dtrace_probedesc_t *d)
{
	dt_provider_t *pv = p->provider;

	if (pv && pv->ops->probe_match) {
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv,
							"probe_match()");
		int rc = pv->ops->probe_match(pv, pv->data, p, d);
		dt_plugin_leave(dtp, call);
		return rc == 1;
	}
	return dt_glob_match(d->prv, p->prv) && dt_glob_match(d->mod, p->mod) &&
	       dt_glob_match(d->fun, p->fun) && dt_glob_match(d->prb, p->prb);
}

/* The provider d names by an exact name: its provider field when that is
 * not empty and holds no glob; "dtrace" for a bare BEGIN, END or ERROR
 * (every other field empty), which are the dtrace provider's; else NULL. */
static const char *desc_exact_provider(const dtrace_probedesc_t *d)
{
	static const char *const bare[] = { "BEGIN", "END", "ERROR" };
	const char *prv = d->prv ? d->prv : "";

	if (*prv != '\0')
		return dt_glob_has_meta(prv) ? NULL : prv;
	if ((d->mod && *d->mod) || (d->fun && *d->fun) || d->prb == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(bare) / sizeof(*bare); i++)
		if (strcmp(d->prb, bare[i]) == 0)
			return "dtrace";
	return NULL;
}

static bool declares_exactly(const dt_provider_t *pv, const char *name)
{
	const char *const *n = pv->ops->names ? pv->ops->names
					      : &pv->ops->name;

	for (; *n; n++)
		if (!dt_glob_has_meta(*n) && strcmp(*n, name) == 0)
			return true;
	return false;
}

bool dt_probe_desc_elsewhere(dtrace_hdl_t *dtp, const dt_provider_t *pv,
			     const dtrace_probedesc_t *d)
{
	const char *name = desc_exact_provider(d);

	if (name == NULL || declares_exactly(pv, name))
		return false;
	if (dtp->engine_provider && declares_exactly(dtp->engine_provider,
						     name))
		return true;
	for (const dt_provider_t *o = dtp->providers; o; o = o->next)
		if (o != pv && declares_exactly(o, name))
			return true;
	return false;
}

static bool same_field(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool desc_same(const dtrace_probedesc_t *a, const dtrace_probedesc_t *b)
{
	return same_field(a->prv, b->prv) && same_field(a->mod, b->mod) &&
	       same_field(a->fun, b->fun) && same_field(a->prb, b->prb);
}

static bool descs_have(const dt_provider_t *pv, const dtrace_probedesc_t *d)
{
	for (size_t i = 0; i < pv->ndescs; i++)
		if (desc_same(pv->descs[i], d))
			return true;
	return false;
}

size_t dt_provider_descs(dtrace_hdl_t *dtp, dt_provider_t *pv,
			 const dtrace_probedesc_t *const **descs)
{
	if (pv->descs_nclauses != dtp->nclauses) {
		pv->ndescs = 0;
		for (int c = 0; c < dtp->nclauses; c++)
			for (int i = 0; i < dtp->clause_ndescs[c]; i++) {
				const dtrace_probedesc_t *d =
					&dtp->clause_descs[c][i];
				if (dt_probe_desc_elsewhere(dtp, pv, d) ||
				    descs_have(pv, d))
					continue;
				dt_array_room(pv->descs, pv->ndescs,
					      pv->descs_cap);
				pv->descs[pv->ndescs++] = d;
			}
		pv->descs_nclauses = dtp->nclauses;
	}
	*descs = pv->descs;
	return pv->ndescs;
}

int dt_probe_iter(dtrace_hdl_t *dtp, const dtrace_probedesc_t *pdp,
		  int (*fn)(dtrace_hdl_t *, dtrace_probe_t *, void *),
		  void *arg)
{
	int matched = 0;

	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		if (dt_probe_desc_elsewhere(dtp, pv, pdp))
			continue;
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "provide()");
		int rc = pv->ops->provide(pv, pv->data, pdp);
		dt_plugin_leave(dtp, call);
		if (rc < 0) {
			if (dtp->errmsg[0] == '\0')
				dt_set_error(dtp, "plugin %s failed to provide "
					     "probes: %s", pv->path,
					     strerror(-rc));
			return -1;
		}
	}
	for (uint32_t id = 1; id <= dtp->nprobes; id++) {
		dtrace_probe_t *p = dtp->probes[id];
		if (p == NULL || !dt_probe_matches(dtp, p, pdp))
			continue;
		matched++;
		if (fn != NULL && fn(dtp, p, arg) < 0)
			return -1;
	}
	return matched;
}

/* Resolve a provider's type name; unknown names fall back to uint64_t so
 * that a plugin's typo does not make the probe unusable. */
static dt_type_t *arg_type(dtrace_hdl_t *dtp, const char *name)
{
	dt_type_t *t = name ? dt_type_parse(dtp->types, name) : NULL;

	return t ? t : dt_type_int(dtp->types, 8, false);
}

void dt_probe_args_alloc(dtrace_probe_t *prp, int n)
{
	free(prp->args);
	prp->args = NULL;
	prp->argtypes = prp->nativetypes = NULL;
	prp->nargs = n;
	if (n <= 0)
		return;
	prp->args = dt_zalloc((size_t)n * (sizeof(*prp->args) +
					   2 * sizeof(*prp->argtypes)));
	prp->argtypes = (dt_type_t **)(prp->args + n);
	prp->nativetypes = prp->argtypes + n;
}

int dt_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	dtrace_argdesc_t args[DTRACE_ARGS_MAX] = { { 0 } };

	if (prp->nargs >= 0)
		return 0;
	prp->nargs = 0;

	const dtrace_provider_ops_t *ops = prp->provider->ops;
	if (ops->probe_args == NULL)
		return 0;

	dt_plugin_call_t call = dt_plugin_enter(dtp, prp->provider,
						"probe_args()");
	int n = ops->probe_args(prp->provider, prp->provider->data, prp, args);
	dt_plugin_leave(dtp, call);
	if (n < 0)
		return n;
	dt_probe_args_alloc(prp, n > DTRACE_ARGS_MAX ? DTRACE_ARGS_MAX : n);
	for (int i = 0; i < prp->nargs; i++) {
		prp->args[i] = args[i];
		dtrace_argdesc_t *a = &prp->args[i];
		prp->nativetypes[i] = arg_type(dtp, a->native);
		prp->argtypes[i] = arg_type(dtp, a->xlate ? a->xlate : a->native);
	}
	return 0;
}

void dt_probe_ctypes(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	if (dt_probe_args(dtp, prp) < 0 || prp->ctypes_read)
		return;
	prp->ctypes_read = true;
	dt_dwarf_probe_args(dtp, prp);	/* C types of pid probes */
	dt_btf_probe_args(dtp, prp);	/* kernel types of kernel probes */
}

static void probe_free(dtrace_probe_t *p)
{
	dt_provider_t *pv = p->provider;

	if (pv && pv->ops->free_priv && p->priv)
		pv->ops->free_priv(pv->data, p->priv);
	free(p->prv);
	free(p->mod);
	free(p->fun);
	free(p->prb);
	free(p->args);
	dt_cs_free(&p->clauses);
	free(p);
}

/* The probes of one process (an element of dtp->pid_probes; the pid
 * first: dt_prog_sweep_gone() reads it). */
typedef struct pid_probes {
	uint32_t pid;
	uint32_t *ids;
	uint32_t n, cap;
} pid_probes_t;

static bool pid_probes_eq(const void *elem, const void *key)
{
	return ((const pid_probes_t *)elem)->pid == *(const uint32_t *)key;
}

void dt_probe_of_process(dtrace_hdl_t *dtp, dtrace_probe_t *p, pid_t pid)
{
	dt_htab_t *t = &dtp->pid_probes;
	uint32_t key = (uint32_t)pid;
	bool added;

	if (t->eq == NULL) {
		dt_htab_init(t, sizeof(pid_probes_t), pid_probes_eq);
		dt_htab_nofail(t);
	}
	pid_probes_t *e = dt_htab_insert(t, dt_hash_u64(DT_HASH_INIT, key),
					 &key, &added);
	if (added)
		e->pid = key;
	for (uint32_t i = 0; i < e->n; i++)
		if (e->ids[i] == p->id)
			return;
	dt_array_room(e->ids, e->n, e->cap);
	e->ids[e->n++] = p->id;
}

/* Take p out of the table and free it. */
static void probe_remove(dtrace_hdl_t *dtp, dtrace_probe_t *p)
{
	probe_names_t k = { p->prv, p->mod, p->fun, p->prb };

	dt_htab_remove(&dtp->probe_names, names_hash(&k), &k);
	if (id_of_programs(dtp, p->id)) {
		dtp->inst[p->id - dtp->inst_base] = NULL;
	} else {
		dtp->probes[p->id] = NULL;
		if (dtp->reuse_ids)
			probe_id_free(dtp, p->id);
	}
	probe_free(p);
}

uint32_t dt_probe_remove_pid(dtrace_hdl_t *dtp, pid_t pid)
{
	uint32_t key = (uint32_t)pid, n = 0;
	uint64_t h = dt_hash_u64(DT_HASH_INIT, key);
	pid_probes_t *e = dtp->pid_probes.eq ?
			  dt_htab_find(&dtp->pid_probes, h, &key) : NULL;

	if (e == NULL)
		return 0;
	for (uint32_t i = 0; i < e->n; i++) {
		dtrace_probe_t *p = dt_probe_by_id(dtp, e->ids[i]);

		if (p != NULL && p != dtp->error_probe) {
			probe_remove(dtp, p);
			n++;
		}
	}
	free(e->ids);
	dt_htab_remove(&dtp->pid_probes, h, &key);
	return n;
}

static void pid_probes_fini(dtrace_hdl_t *dtp)
{
	pid_probes_t *e;

	for (uint32_t pos = 0;
	     (e = dt_htab_next(&dtp->pid_probes, &pos)) != NULL;)
		free(e->ids);
	dt_htab_fini(&dtp->pid_probes);
}

void dt_probe_fini(dtrace_hdl_t *dtp)
{
	pid_probes_fini(dtp);
	free(dtp->free_ids);
	free(dtp->reused_ids);
	dtp->reused_ids = NULL;
	dtp->nreused = dtp->reused_cap = 0;
	dtp->free_ids = NULL;
	dtp->nfree_ids = dtp->free_ids_cap = dtp->free_ids_head = 0;
	for (uint32_t id = 1; id <= dtp->nprobes; id++)
		if (dtp->probes[id] != NULL)
			probe_free(dtp->probes[id]);
	for (uint32_t i = 0; i < dtp->ninst; i++)
		if (dtp->inst[i] != NULL)
			probe_free(dtp->inst[i]);
	free(dtp->inst);
	dtp->inst = NULL;
	dtp->ninst = dtp->inst_cap = 0;
	free(dtp->probes);
	dt_htab_fini(&dtp->probe_names);
	dtp->probes = NULL;
	dtp->nprobes = dtp->probes_cap = 0;
}
