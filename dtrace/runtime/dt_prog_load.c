/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_load.c: programs loaded, and those made while tracing.
 *
 * At start every program is built (dt_prog_build.c) and loaded as its
 * kind wants (uprobe, perf event, tracepoint, kernel event, soft probe run
 * directly), each shown under -S.  While tracing, a kind that had no
 * program (dt_late_program()) or a site that a user joined
 * (dt_site_program()) gets one built and loaded at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "dt_prog_impl.h"
#include "dt_kevent.h"

/* The one underlying probe of a soft program, or 0 if it has several or
 * one that is not soft. */
static int64_t soft_cookie_of(const struct dt_progset *ps, int prog)
{
	int64_t cookie = dt_one_cookie_of(ps, prog);
	const dt_uprobe_ent_t *u = cookie > 0 ? &ps->ups[cookie - 1] : NULL;

	return u != NULL && (u->flags & DTRACE_UPROBE_SOFT) && !u->perf ?
	       cookie : 0;
}

/*
 * The one site of a uprobe program built when tracing starts, or 0.  Such
 * a program serves that site alone for as long as it lives, in every
 * process it comes to fire in: sites placed later go to another program
 * (dt_kprog_fits()).  It then knows its cookie, and needs neither the attach
 * cookie's helper call nor, in a trampoline of per-site code, a test of
 * the cookie (the trampoline's sole_cookie).  A probe on one function or one
 * USDT site is the common case.
 */
static int64_t sole_cookie_of(const struct dt_progset *ps, int prog)
{
	const dt_kprog_t *kp = &ps->progs[prog];

	if (kp->perf || kp->kev || (kp->flags & DTRACE_UPROBE_SOFT) ||
	    getenv("DTRACE_BENCH_NOSOLE"))
		return 0;
	return dt_one_cookie_of(ps, prog);
}

/*
 * A soft program is first tried as a raw-tracepoint program, which the
 * engine runs itself (dt_prog_fire) at no attach cost.  Clause code that
 * reads registers from the context does not verify as one: then it is
 * built again as a uprobe program, and the uprobe on the site is the way
 * it fires.
 */
static int kprog_load_soft(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name)
{
	int fd = dt_bpf_prog_load_type(dtp, name, &kp->as,
				       BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	if (fd >= 0) {
		kp->fd = fd;
		return fd;
	}
	dtp->errmsg[0] = '\0';
	kp->soft_cookie = 0;
	dt_as_fini(&kp->as);
	dt_as_init(&kp->as);
	if (dt_prog_build(dtp, kp) < 0)
		return -1;
	kp->fd = dt_bpf_prog_load(dtp, name, &kp->as);
	return kp->fd;
}

/* Load as, kp's program or a part of its chain, as the type kp wants. */
static int kprog_load_as(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name,
			 dt_as_t *as)
{
	if (kp->soft_cookie > 0)
		return dt_bpf_prog_load_type(dtp, name, as,
					     BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	if (kp->kev)
		return dt_kevent_load(dtp, name, as, kp->kev, kp->kname);
	if (kp->perf)
		return dt_bpf_prog_load_type(dtp, name, as,
					     kp->tracepoint ?
					     BPF_PROG_TYPE_TRACEPOINT :
					     BPF_PROG_TYPE_PERF_EVENT, 0);
	return dt_bpf_prog_load(dtp, name, as);
}

/* The parts of kp's chain loaded and put in its program array. */
static int chain_load(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name)
{
	dt_chain_t *ch = kp->chain;

	for (int k = 0; k < ch->nparts; k++) {
		int fd = kprog_load_as(dtp, kp, name, &ch->as[k]);
		uint32_t key = (uint32_t)k;

		if (fd < 0)
			return -1;
		if (bpf_map_update_elem(ch->map->fd, &key, &fd, BPF_ANY) < 0) {
			dt_set_error(dtp, "failed to chain the programs of %s: "
				     "%s", kp->pv->ops->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A clause that reads registers (uregs, ucaller, ustack()) on probes whose
 * context has none, a tracepoint's record: the verifier refuses it as an
 * "invalid bpf_context access", which is said in the user's words, as the
 * kernel's refusal to attach such a program is (dt_prog_attach.c). */
static void explain_no_regs(dtrace_hdl_t *dtp, const dt_kprog_t *kp)
{
	if (dt_kp_has_regs(kp) ||
	    strstr(dtp->errmsg, "invalid bpf_context access") == NULL)
		return;
	dt_set_error(dtp, "failed to load the program of plugin %s: a clause "
		     "reads registers (uregs, ucaller, ustack()...), which a "
		     "tracepoint does not give", kp->pv->path);
}

static int kprog_load(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	char name[16];

	snprintf(name, sizeof(name), "dt_%.8s_%d", kp->pv->ops->name, kp->kind);
	if (kp->soft_cookie > 0)
		kp->fd = kprog_load_soft(dtp, kp, name);
	else
		kp->fd = kprog_load_as(dtp, kp, name, &kp->as);
	if (kp->fd < 0 && kp->soft_cookie <= 0)
		explain_no_regs(dtp, kp);
	if (kp->fd >= 0 && kp->chain != NULL && chain_load(dtp, kp, name) < 0)
		return -1;
	return kp->fd;
}

/* Under -S: kp's program, named by its users and kinds, disassembled. */
static void prog_show(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	char *title = NULL;
	size_t len = 0;
	FILE *f;

	if (!dtp->opt.show_bpf || (f = open_memstream(&title, &len)) == NULL)
		return;
	for (uint32_t u = 0; u < kp->nusers; u++)
		fprintf(f, "%s%s", u ? "+" : "", kp->users[u].pv->ops->name);
	fprintf(f, " program, kind");
	for (uint32_t u = 0; u < kp->nusers; u++)
		fprintf(f, "%s%d", u ? "+" : " ", kp->users[u].kind);
	if (fclose(f) == 0)
		dt_bpf_prog_show(dtp, title, &kp->as);
	free(title);
}

int dt_load_programs(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (int i = 0; i < ps->nprogs; i++) {
		dt_kprog_t *kp = &ps->progs[i];

		if (kp->flags & DTRACE_UPROBE_SOFT)
			kp->soft_cookie = soft_cookie_of(ps, i);
		else if (kp->fixed_cookie == 0)
			kp->fixed_cookie = sole_cookie_of(ps, i);

		if (dt_prog_build(dtp, kp) < 0)
			return -1;
		prog_show(dtp, kp);
		if (kprog_load(dtp, kp) < 0)
			return -1;
	}
	return 0;
}

/* A kind that had no underlying probe when tracing started (a library
 * loaded later, under -Z): build its program now, with every clause its
 * provider may serve, since the overlays that will use it are not known
 * yet.  Returns its index or
 * -1. */
static int late_load(dtrace_hdl_t *dtp, struct dt_progset *ps, int i);

int dt_late_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
		    const dt_uprobe_ent_t *u)
{
	int i = dt_kprog_find(ps, u);

	dt_late_clauses_add(dtp, ps->progs[i].pv, &ps->progs[i].clauses);
	return late_load(dtp, ps, i);
}

/* Build and load program i, the last one, made while tracing with its
 * clauses; on failure say why and drop it.  Returns i or -1. */
static int late_load(dtrace_hdl_t *dtp, struct dt_progset *ps, int i)
{
	dt_kprog_t *kp = &ps->progs[i];

	if (dt_prog_build(dtp, kp) < 0)
		goto fail;
	prog_show(dtp, kp);
	if (kprog_load(dtp, kp) >= 0)
		return i;
fail:
	dt_warn(dtp, "%s", dtp->errmsg);
	dtp->errmsg[0] = '\0';
	dt_as_fini(&kp->as);
	dt_cs_free(&kp->clauses);
	dt_chain_free(kp);
	ps->nprogs--;
	return -1;
}

/* The program of u's users once one joined them (site_join(), the last
 * of users[]): one of those users, in that order, that calls every clause
 * the program old of the site did and those the newcomer may need, else
 * one built now.  Returns its index or -1. */
int dt_site_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
		    const dt_uprobe_ent_t *u, int old)
{
	dt_clauseset_t need = { 0 };
	int i;

	dt_cs_copy(&need, &ps->progs[old].clauses);
	dt_late_clauses_add(dtp, u->users[u->nusers - 1].pv, &need);
	for (i = 0; i < ps->nprogs; i++)
		if (dt_kprog_fits(ps, i, u) && ps->progs[i].fd >= 0 &&
		    dt_cs_subset(&need, &ps->progs[i].clauses))
			break;
	if (i == ps->nprogs) {
		i = dt_kprog_new(ps, u);
		dt_cs_copy(&ps->progs[i].clauses, &need);
		i = late_load(dtp, ps, i);
	}
	dt_cs_free(&need);
	return i;
}
