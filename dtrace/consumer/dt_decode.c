/* SPDX-License-Identifier: MIT */
/*
 * dt_decode.c: a record's actions decoded into the values the outputs
 * print (output/dt_output.h): what only the consumer knows is settled
 * here, once, whichever output prints it.  A kernel stack's frames are
 * symbolized from kallsyms; a user stack is unwound (a sampled one) and
 * each frame symbolized against the modules of its process, a ufunc()/usym()/umod()/uaddr() address too and its text made;
 * a printa() takes its snapshot and sorts its rows (dt_agg_print.c), the
 * names of the aggregations an action names are looked up, freopen()'s
 * file name is formatted.
 *
 * Invariants: a decoded value points into the record (or the aggregation
 * key) it was decoded from and owns only what it allocated (frames and
 * their strings), freed by dt_value_free(); decoding reads no byte outside
 * the descriptors, which the consumer checked against the record.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dt_consume_impl.h"
#include "dt_dwarf.h"
#include "dt_elf.h"
#include "dt_ksyms.h"

static char *dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* A build-id as pprof shows it: lowercase hex; NULL when empty. */
static char *hex_or_null(const uint8_t *id, size_t len)
{
	char *hex;

	if (len == 0)
		return NULL;
	hex = dt_zalloc(len * 2 + 1);
	for (size_t i = 0; i < len; i++)
		snprintf(hex + i * 2, 3, "%02x", id[i]);
	return hex;
}

/* What a profile (-x oformat=pprof) wants of a frame beyond its text:
 * its module's file, range and build-id, and the source line of pc
 * (line_pc: a caller's frame looks up the call, before its return
 * address, which may be the next line's first instruction). */
static void upc_profile(dtrace_hdl_t *dtp, const dt_usymbol_t *u,
			uint64_t line_pc, dt_upc_t *f)
{
	const dt_elf_module_t *mod = u->mod;
	const char *file = NULL;
	const uint8_t *id;
	size_t idlen;

	f->path = dup_or_null(mod->path);
	f->is_exe = mod->is_exe;
	f->map_start = mod->lo;
	f->map_limit = mod->hi;
	f->map_offset = mod->nranges > 0 ? mod->ranges[0].offset : 0;
	if (mod->is_vdso)
		return;
	id = dt_elf_build_id(dt_consumer_get(dtp)->elf, mod->file, &idlen);
	f->build_id = hex_or_null(id, idlen);
	f->line = dt_dwarf_line(dtp, mod->file->path, line_pc - mod->bias,
				&file);
	if (f->line > 0)
		f->srcfile = dup_or_null(file);
}

/* User PC pc of process pid, looked up once; a return address (ret) is
 * a caller's frame. */
static void upc_decode(dtrace_hdl_t *dtp, pid_t pid, uint64_t pc, bool ret,
		       dt_upc_t *f)
{
	dt_usymbol_t u;
	char buf[1024];

	f->pc = pc;
	f->found = dt_lookup_upc(dtp, pid, pc, &u);
	if (f->found) {
		f->module = dup_or_null(u.module);
		f->symbol = dup_or_null(u.symbol);
		f->offset = u.offset;
		if (dtp->opt.oformat == DT_OFORMAT_PPROF)
			upc_profile(dtp, &u, ret ? pc - 1 : pc, f);
	}
	dt_upc_text(dtp, pc, f->found, &u, buf, sizeof(buf));
	f->text = strdup(buf);
}

static void upc_free(dt_upc_t *f)
{
	free(f->module);
	free(f->symbol);
	free(f->text);
	free(f->path);
	free(f->build_id);
	free(f->srcfile);
}

/* Kernel PC pc, as module`function+0xoff when kallsyms knows it. */
static void kpc_decode(dtrace_hdl_t *dtp, uint64_t pc, dt_upc_t *f)
{
	dt_ksym_t ks;
	char buf[1024];

	f->pc = pc;
	if (dtp == NULL)
		return;
	f->found = dt_ksym_lookup(dtp, pc, &ks);
	if (f->found) {
		f->module = dup_or_null(ks.module);
		f->symbol = dup_or_null(ks.name);
		f->offset = ks.offset;
	}
	dt_ksym_format(dtp, pc, buf, sizeof(buf));
	f->text = strdup(buf);
}

/* A kernel stack: its PCs up to the first 0, each symbolized.  Without
 * a session (tests), the PCs only. */
static void kstack_decode(dtrace_hdl_t *dtp, dt_value_t *v)
{
	size_t n = v->rec->size / 8;

	v->frames = dt_zalloc(sizeof(*v->frames) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		uint64_t pc;

		memcpy(&pc, v->p + i * 8, 8);
		if (pc == 0)
			break;
		kpc_decode(dtp, pc, &v->frames[v->nframes++]);
	}
}

/* A user stack: as recorded, or unwound when sampled; each frame
 * symbolized.  Without a session (tests), no frame. */
static void ustack_decode(dtrace_hdl_t *dtp, dt_value_t *v)
{
	uint64_t pcs[DT_STACK_MAX];
	int n;

	if (dtp == NULL)
		return;
	n = dt_ustack_pcs(dtp, v->rec, v->p, pcs, DT_STACK_MAX, &v->pid);
	v->frames = dt_zalloc(sizeof(*v->frames) * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++)
		upc_decode(dtp, v->pid, pcs[i], i > 0,
			   &v->frames[v->nframes++]);
}

/* A ufunc()/usym()/umod()/uaddr() address and its text. */
static void uaddr_decode(dtrace_hdl_t *dtp, dt_value_t *v)
{
	char buf[1024];
	uint64_t pc;

	dt_uaddr_rec(v->p, &v->pid, &pc);
	if (dtp == NULL) {
		v->addr.pc = pc;
		snprintf(buf, sizeof(buf), "0x%" PRIx64, pc);
	} else {
		if (v->rec->arg == DT_USYM_ADDR && dt_ksym_is_kernel(pc))
			kpc_decode(dtp, pc, &v->addr);	/* %a of caller */
		else
			upc_decode(dtp, v->pid, pc, false, &v->addr);
		dt_format_usym(dtp, v->rec, v->p, buf, sizeof(buf));
	}
	v->usym = strdup(buf);
}

void dt_value_decode(dtrace_hdl_t *dtp, dt_value_t *v,
		     const dt_recdesc_t *rec, const uint8_t *p)
{
	memset(v, 0, sizeof(*v));
	v->rec = rec;
	v->p = p;
	switch (rec->kind) {
	case DT_RK_KSTACK:
		kstack_decode(dtp, v);
		break;
	case DT_RK_USTACK:
	case DT_RK_USAMPLE:
		ustack_decode(dtp, v);
		break;
	case DT_RK_UADDR:
		uaddr_decode(dtp, v);
		break;
	default:
		break;
	}
}

void dt_value_free(dt_value_t *v)
{
	for (int i = 0; i < v->nframes; i++)
		upc_free(&v->frames[i]);
	free(v->frames);
	upc_free(&v->addr);
	free(v->usym);
	v->frames = NULL;
	v->nframes = 0;
	v->usym = NULL;
	memset(&v->addr, 0, sizeof(v->addr));
}

dt_value_t *dt_values_decode(dtrace_hdl_t *dtp, const dt_recdesc_t *recs,
			     int n, const uint8_t *data)
{
	dt_value_t *vals = dt_zalloc(sizeof(*vals) * (size_t)(n > 0 ? n : 1));

	for (int i = 0; i < n; i++)
		dt_value_decode(dtp, &vals[i], &recs[i], data + recs[i].offset);
	return vals;
}

void dt_values_free(dt_value_t *vals, int n)
{
	for (int i = 0; vals != NULL && i < n; i++)
		dt_value_free(&vals[i]);
	free(vals);
}

int dt_printf_format(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		     const dt_recdesc_t *recs, int nrecs, const void *data)
{
	dt_value_t *vals = dt_values_decode(dtp, recs, nrecs, data);
	int err = dt_printf_values(dtp, out, fmt, vals, nrecs, NULL, 0);

	dt_values_free(vals, nrecs);
	return err;
}

/* The names of the aggregations act names, "" for an unknown id. */
static const char **agg_names(dtrace_hdl_t *dtp, const dt_actdesc_t *act)
{
	struct dt_consumer *c = dtp->cons;
	const char **names = dt_zalloc(sizeof(*names) *
				       (size_t)(act->naggs > 0 ? act->naggs : 1));

	for (int i = 0; i < act->naggs; i++) {
		names[i] = "";
		if (c && act->aggs[i] >= 0 && act->aggs[i] < c->naggs &&
		    c->aggs[act->aggs[i]].desc != NULL)
			names[i] = c->aggs[act->aggs[i]].desc->name;
	}
	return names;
}

/* freopen(): the file name its format makes. */
static void freopen_decode(dtrace_hdl_t *dtp, dt_outact_t *a)
{
	const dt_actdesc_t *act = a->desc;
	FILE *f = open_memstream(&a->text, &a->textlen);

	if (f == NULL)
		return;
	if (dt_printf_format(dtp, f, act->fmt ? act->fmt : "", act->recs,
			     act->nrecs, a->data) != 0) {
		fclose(f);
		free(a->text);
		a->text = NULL;
		return;
	}
	fclose(f);
}

void dt_outact_decode(dtrace_hdl_t *dtp, dt_outact_t *a,
		      const dt_actdesc_t *act, const uint8_t *data)
{
	memset(a, 0, sizeof(*a));
	a->desc = act;
	a->data = data;
	a->exitstatus = dtp->exitstatus;
	switch (act->kind) {
	case DT_ACT_TRACEMEM:
	case DT_ACT_PRINTM:
		if (act->nrecs > 0)
			a->memlen = dt_consume_mem_len(act, data);
		break;
	case DT_ACT_FREOPEN:
		freopen_decode(dtp, a);
		break;
	case DT_ACT_PRINTA:
		a->aggnames = agg_names(dtp, act);
		dt_agg_printa_decode(dtp, a, dt_consume_out(dtp)->ops->each_alone);
		return;		/* printa's values are the aggregations' */
	case DT_ACT_CLEAR:
	case DT_ACT_TRUNC:
	case DT_ACT_NORMALIZE:
	case DT_ACT_DENORMALIZE:
		a->aggnames = agg_names(dtp, act);
		break;
	case DT_ACT_AGGSAMPLE:
		return;		/* nothing to print */
	default:
		break;
	}
	a->nvals = act->nrecs;
	a->vals = dt_values_decode(dtp, act->recs, act->nrecs, data);
}

void dt_outact_free(dt_outact_t *a)
{
	dt_values_free(a->vals, a->nvals);
	free(a->text);
	free(a->aggnames);
	dt_agg_printa_free(a);
	memset(a, 0, sizeof(*a));
}
