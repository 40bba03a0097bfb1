/* SPDX-License-Identifier: MIT */
/*
 * dt_progdesc.c: the program description's tables (dt_progdesc.h): the
 * aggregations the code generator declared, and the clauses a probe that
 * appears while tracing is enabled with.
 */
#include <stdlib.h>

#include "dt_progdesc.h"

void dt_pd_clauses_of(dtrace_hdl_t *dtp, const dtrace_probe_t *p,
		      dt_clauseset_t *set)
{
	for (int c = 0; c < dtp->nclauses; c++)
		for (int j = 0; j < dtp->clause_ndescs[c]; j++)
			if (dt_probe_matches(dtp, p, &dtp->clause_descs[c][j]))
				dt_cs_add(set, c);
}

static bool is_user_rec(const dt_recdesc_t *r)
{
	return r->kind == DT_RK_USTACK || r->kind == DT_RK_UADDR ||
	       r->kind == DT_RK_USAMPLE || r->usample != 0;
}

bool dt_pd_uses_usyms(const dtrace_hdl_t *dtp)
{
	for (int i = 0; i < dtp->nclauses; i++) {
		const dt_compiled_clause_t *cl = dtp->clauses[i];

		for (int a = 0; cl != NULL && a < cl->nacts; a++)
			for (int r = 0; r < cl->acts[a].nrecs; r++)
				if (is_user_rec(&cl->acts[a].recs[r]))
					return true;
	}
	for (int i = 0; i < dt_pd_naggs(dtp); i++) {
		const dt_aggdesc_t *ad = dt_pd_agg(dtp, i);

		for (int k = 0; ad != NULL && k < ad->nkeys; k++)
			if (is_user_rec(&ad->keys[k]))
				return true;
	}
	return false;
}

void dt_pd_clause_add(dtrace_hdl_t *dtp, dt_compiled_clause_t *cc)
{
	cc->id = dtp->nclauses;
	dtp->clauses = dt_realloc(dtp->clauses,
				  (dtp->nclauses + 1) * sizeof(*dtp->clauses));
	dtp->clauses[dtp->nclauses++] = cc;
}

int dt_pd_naggs(const dtrace_hdl_t *dtp)
{
	return dtp->naggs;
}

dt_aggdesc_t *dt_pd_agg(const dtrace_hdl_t *dtp, int id)
{
	return id >= 0 && id < dtp->naggs ? dtp->aggs[id] : NULL;
}

void dt_pd_agg_add(dtrace_hdl_t *dtp, dt_aggdesc_t *ad)
{
	ad->id = dtp->naggs;
	dtp->aggs = dt_realloc(dtp->aggs,
			       sizeof(*dtp->aggs) * (size_t)(dtp->naggs + 1));
	dtp->aggs[dtp->naggs++] = ad;
}

static void free_aggdesc(dt_aggdesc_t *ad)
{
	if (ad == NULL)
		return;
	free_aggdesc(ad->plain);
	free_aggdesc(ad->byprid);
	free(ad->pnames);
	free((char *)ad->name);
	free(ad->keys);
	free(ad->ktypes);
	free(ad->kprobe);
	free(ad->moffset);
	free(ad);
}

void dt_pd_fini(dtrace_hdl_t *dtp)
{
	for (int i = 0; i < dtp->naggs; i++)
		free_aggdesc(dtp->aggs[i]);
	free(dtp->aggs);
	dtp->aggs = NULL;
	dtp->naggs = 0;
}
