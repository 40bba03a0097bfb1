/* SPDX-License-Identifier: MIT */
/*
 * dt_consume.c: the consumer: reads the "output" ring buffer, runs what
 * each record's actions do (exit, clear, setopt...: dt_consume_effect()),
 * decodes them once (dt_decode.c) and hands them to the output
 * (output/dt_output.h: text or JSON), reports faults and drops, and has
 * what is left of the aggregations printed at the end.  User addresses
 * are symbolized here, against the modules of their process.
 *
 * A record is a dt_rechdr_t then the data of its clause's actions at the
 * offsets the action descriptors give (dt_rec.h).  Error records (clause
 * DT_CLAUSE_ERROR) become a fault: the output's form of it, and the
 * message on stderr; tracing goes on.  With -F a record is held until the
 * next one is seen (the text output's flow line looks at it).
 *
 * Invariants: a record is validated against the clause's recsize and each
 * record descriptor against the record before any byte is read; a bad
 * record is reported once and skipped, never trusted.  An action's effect
 * runs before the output prints it, in both formats alike.
 *
 * A clause whose actions sit inside if statements starts its data with a
 * u64 mask of the actions that ran (dt_compiled_clause.actmask): the
 * others are skipped, their bytes are garbage.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_consume_impl.h"
#include "dt_elf.h"
#include "dt_ksyms.h"
#include "dt_unwind.h"
#include "dt_proc.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

/* The output the records are printed through, made at the first use
 * (-x oformat is set by then). */
dt_out_t *dt_consume_out(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dt_consumer_get(dtp);

	if (c->out == NULL)
		c->out = dt_output_create(dtp);
	return c->out;
}

/* Drops: the output's form of them (JSON's line); the caller prints the
 * message on stderr. */
void dt_consume_drop(dtrace_hdl_t *dtp, const char *kind, int cpu,
		     uint64_t n)
{
	dt_out_t *o = dt_consume_out(dtp);

	o->ops->drop(o, kind, cpu, n);
}

struct dt_consumer *dt_consumer_get(dtrace_hdl_t *dtp)
{
	if (dtp->cons == NULL) {
		dtp->cons = dt_zalloc(sizeof(struct dt_consumer));
		for (int i = 0; i <= DT_NSPEC_MAX; i++)
			dtp->cons->specs[i].tail = &dtp->cons->specs[i].head;
	}
	return dtp->cons;
}

/* --- data --- */

/* --- stacks --- */

/*
 * User PCs are symbolized against the modules of their process, read from
 * /proc/PID/maps the first time a stack of that pid is printed and cached
 * for the session (symbols load when a module is first looked up).  A -c or
 * -p target may be gone by the time its aggregated stacks print, so when
 * the program records user stacks the targets' modules are cached when the
 * consumer starts (before a -c child runs) or, for targets grabbed later,
 * at the first poll.  An address that no module maps,
 * in a process still running, rereads the modules once (a dlopen since).
 */
static dt_symproc_t *symproc_find(struct dt_consumer *c, pid_t pid)
{
	for (dt_symproc_t *sp = c->symprocs; sp != NULL; sp = sp->next)
		if (sp->pid == pid)
			return sp;
	return NULL;
}

static void symproc_read(struct dt_consumer *c, dt_symproc_t *sp)
{
	dt_elf_proc_t *proc = NULL;
	char msg[256];

	if (c->elf == NULL && (c->elf = dt_elf_cache_create()) != NULL)
		dt_elf_cache_with_vdso(c->elf);
	if (c->elf == NULL ||
	    dt_elf_proc_modules(c->elf, sp->pid, &proc, msg, sizeof(msg)) != 0)
		return;
	if (proc->nmods == 0 && sp->proc != NULL) {
		/* gone (a zombie maps nothing): keep what was read before */
		dt_elf_proc_free(proc);
		return;
	}
	dt_unwind_destroy(sp->uw);
	sp->uw = NULL;
	if (sp->proc != NULL)
		dt_elf_proc_free(sp->proc);
	sp->proc = proc;
}

/* Read the modules of sp again when pc is in none of them and the
 * process still runs (a library it loaded since): at most every 50 ms,
 * for addresses that are in no file (JIT code) come again and again.
 * Returns whether the modules were read. */
static bool symproc_refresh(struct dt_consumer *c, dt_symproc_t *sp,
			    uint64_t pc)
{
	uint64_t now;

	if (sp->proc == NULL || dt_elf_proc_module_at(sp->proc, pc) != NULL)
		return false;
	now = dt_now_ns();
	if (sp->read_ns != 0 && now - sp->read_ns < 50000000ull)
		return false;
	if (kill(sp->pid, 0) != 0)
		return false;
	symproc_read(c, sp);
	sp->read_ns = now;
	return true;
}

/* A library loaded by dlopen is known from the loader's event on, while
 * the process runs: its frames are symbolized even when the process has
 * exited by the time its records are read. */
void dt_consume_maps_changed(dtrace_hdl_t *dtp, pid_t pid)
{
	struct dt_consumer *c = dtp->cons;
	dt_symproc_t *sp = c != NULL ? symproc_find(c, pid) : NULL;

	if (sp == NULL)
		return;
	symproc_read(c, sp);
	sp->read_ns = dt_now_ns();
}

static dt_symproc_t *symproc_get(struct dt_consumer *c, pid_t pid)
{
	dt_symproc_t *sp = symproc_find(c, pid);

	if (sp != NULL)
		return sp;
	sp = dt_zalloc(sizeof(*sp));
	sp->pid = pid;
	sp->next = c->symprocs;
	c->symprocs = sp;
	symproc_read(c, sp);
	return sp;
}

static void symprocs_free(struct dt_consumer *c)
{
	while (c->symprocs != NULL) {
		dt_symproc_t *sp = c->symprocs;

		c->symprocs = sp->next;
		dt_unwind_destroy(sp->uw);
		if (sp->proc != NULL)
			dt_elf_proc_free(sp->proc);
		free(sp);
	}
	if (c->elf != NULL)
		dt_elf_cache_destroy(c->elf);
	c->elf = NULL;
}

static void read_targets(dtrace_hdl_t *dtp, struct dt_consumer *c)
{
	c->targets_read = true;
	if (dtp->proc == NULL || !dt_pd_uses_usyms(dtp))
		return;
	for (int i = 0; i < dtp->proc->nprocs; i++)
		if (!dtp->proc->procs[i].exited)
			symproc_get(c, dtp->proc->procs[i].pid);
}

/* The name DTrace prints for a module: its file name (the executable's
 * too, where dt_elf calls it "a.out" for probe descriptions), or the
 * kernel's for the vDSO, "[vdso]". */
static const char *module_print_name(const dt_elf_module_t *m)
{
	const char *base = strrchr(m->path, '/');

	if (m->is_vdso)
		return m->name;
	return base != NULL ? base + 1 : m->path;
}

bool dt_lookup_upc(dtrace_hdl_t *dtp, pid_t pid, uint64_t pc,
		   dt_usymbol_t *u)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dt_symproc_t *sp = symproc_get(c, pid);
	const dt_elf_module_t *mod = NULL;
	const dt_elf_sym_t *sym = NULL;
	uint64_t off = 0;

	memset(u, 0, sizeof(*u));
	symproc_refresh(c, sp, pc);
	if (sp->proc == NULL ||
	    dt_elf_proc_lookup(c->elf, sp->proc, pc, &mod, &sym, &off) != 0)
		return false;
	u->module = module_print_name(mod);
	u->mod = mod;
	u->modbase = mod->lo;
	u->mapstart = mod->lo;
	for (int i = 0; i < mod->nranges; i++)
		if (pc >= mod->ranges[i].start && pc < mod->ranges[i].end)
			u->mapstart = mod->ranges[i].start;
	if (sym != NULL) {
		u->symbol = sym->name;
		u->offset = off;
		u->symaddr = pc - off;
	}
	return true;
}

/* The text of user PC pc whose lookup (dt_lookup_upc()) found u, or
 * nothing: DTrace's module`function+0xoff (no +0x0 at a function's
 * start), module`0xPC without a symbol, 0xPC without a module; with -x
 * noresolve, module:0xoff, the offset from the start of the mapping that
 * holds pc, and no symbol. */
void dt_upc_text(dtrace_hdl_t *dtp, uint64_t pc, bool found,
		 const dt_usymbol_t *u, char *buf, size_t len)
{
	if (!found)
		snprintf(buf, len, "0x%" PRIx64, pc);
	else if (dtp->opt.noresolve)
		snprintf(buf, len, "%s:0x%" PRIx64, u->module,
			 pc - u->mapstart);
	else if (u->symbol == NULL)
		snprintf(buf, len, "%s`0x%" PRIx64, u->module, pc);
	else if (u->offset == 0)
		snprintf(buf, len, "%s`%s", u->module, u->symbol);
	else
		snprintf(buf, len, "%s`%s+0x%" PRIx64, u->module, u->symbol,
			 u->offset);
}

void dt_format_upc(dtrace_hdl_t *dtp, pid_t pid, uint64_t pc, char *buf,
		   size_t len)
{
	dt_usymbol_t u;
	bool found = dt_lookup_upc(dtp, pid, pc, &u);

	dt_upc_text(dtp, pc, found, &u, buf, len);
}

void dt_uaddr_rec(const uint8_t *p, pid_t *pid, uint64_t *pc)
{
	uint64_t v;

	memcpy(&v, p, 8);
	*pid = (pid_t)v;
	memcpy(pc, p + 8, 8);
}

void dt_format_usym(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		    const uint8_t *p, char *buf, size_t len)
{
	dt_usymbol_t u;
	uint64_t pc;
	pid_t pid;

	dt_uaddr_rec(p, &pid, &pc);
	if (rec->arg == DT_USYM_ADDR && dt_ksym_is_kernel(pc)) {
		/* %a of a kernel address (caller): DTrace's own use */
		dt_ksym_format(dtp, pc, buf, len);
		return;
	}
	if (rec->arg == DT_USYM_ADDR ||
	    (dtp->opt.noresolve && rec->arg != DT_USYM_MOD)) {
		dt_format_upc(dtp, pid, pc, buf, len);
		return;
	}
	if (!dt_lookup_upc(dtp, pid, pc, &u))
		snprintf(buf, len, "0x%" PRIx64, pc);
	else if (rec->arg == DT_USYM_MOD)
		snprintf(buf, len, "%s", u.module);
	else if (u.symbol == NULL)
		snprintf(buf, len, "%s`0x%" PRIx64, u.module, pc);
	else
		snprintf(buf, len, "%s`%s", u.module, u.symbol);
}

bool dt_usym_normalize(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		       uint8_t *p)
{
	dt_usymbol_t u;
	uint64_t pc, to;
	pid_t pid;

	if (rec->kind != DT_RK_UADDR || rec->arg == DT_USYM_ADDR)
		return false;
	dt_uaddr_rec(p, &pid, &pc);
	if (!dt_lookup_upc(dtp, pid, pc, &u))
		return false;
	to = rec->arg == DT_USYM_MOD ? u.modbase :
	     u.symbol != NULL ? u.symaddr : pc;
	memcpy(p + 8, &to, 8);
	return to != pc;
}

/* Unwind a DT_RK_USAMPLE record against the modules of its process. */
static int usample_pcs(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		       const uint8_t *p, uint64_t *pcs, int max)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	size_t room = rec->size - sizeof(dt_usample_t);
	dt_usample_t s;
	dt_symproc_t *sp;

	memcpy(&s, p, sizeof(s));
	if (s.len > room)
		s.len = room;	/* never trust the record beyond its size */
	if (s.len == 0 && s.ip == 0)
		return 0;
	sp = symproc_get(c, (pid_t)s.pid);
	symproc_refresh(c, sp, s.ip);
	for (int pass = 0; ; pass++) {
		int n = 1;

		pcs[0] = s.ip;
		if (sp->proc != NULL && sp->uw == NULL)
			sp->uw = dt_unwind_create(sp->proc,
						   dtp->opt.unwinder);
		if (sp->uw != NULL)
			n = dt_unwind(sp->uw, &s, p + sizeof(dt_usample_t), pcs,
				      max);
		/* a walk that ends outside the modules may have met a
		 * library loaded since they were read: once more */
		if (pass > 0 || n >= max || !symproc_refresh(c, sp, pcs[n - 1]))
			return n;
	}
}

int dt_ustack_pcs(dtrace_hdl_t *dtp, const dt_recdesc_t *rec,
		  const uint8_t *p, uint64_t *pcs, int max, pid_t *pid)
{
	uint64_t v = 0;
	int n = 0;

	if (rec->arg > 0 && (int)rec->arg < max)
		max = (int)rec->arg;
	memcpy(&v, p, 8);
	*pid = (pid_t)v;
	if (rec->kind == DT_RK_USAMPLE)
		return usample_pcs(dtp, rec, p, pcs, max);
	for (size_t i = 1; i < rec->size / 8 && n < max; i++) {
		memcpy(&pcs[n], p + i * 8, 8);
		if (pcs[n] == 0)
			break;
		n++;
	}
	return n;
}



/* --- actions --- */

static bool recs_fit(const dt_actdesc_t *act, size_t size)
{
	for (int i = 0; i < act->nrecs; i++) {
		const dt_recdesc_t *r = &act->recs[i];

		if ((size_t)r->offset + r->size > size)
			return false;
	}
	return true;
}

static void setopt_invalid(const char *opt, const char *val)
{
	fprintf(stderr, "dtrace: couldn't set option \"%s\" to \"%s\": "
		"Invalid value for specified option\n", opt, val);
}

/* setopt() of switchrate, aggrate or statusrate: a time, as -x takes it,
 * used from the session's next turn on. */
static void setopt_rate(dt_options_t *o, const char *name, const char *opt,
			const char *val)
{
	uint64_t ns;

	if (dt_parse_time(val, &ns) < 0 || ns == 0) {
		setopt_invalid(opt, val);
		return;
	}
	if (strcmp(name, "switchrate") == 0)
		o->switchrate = ns;
	else if (strcmp(name, "aggrate") == 0)
		o->aggrate = ns;
	else
		o->statusrate = ns;
}

/* setopt("printsize", size): as -x printsize, for the print()s after. */
static void setopt_printsize(dt_options_t *o, const char *opt,
			     const char *val)
{
	uint64_t v;

	if (dt_parse_size(val, &v) < 0) {
		setopt_invalid(opt, val);
		return;
	}
	o->printsize = dt_printsize_value(v);
}

static void act_setopt(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
		       const uint8_t *data)
{
	const char *name = act->fmt ? act->fmt : "";
	char val[64] = "";
	dt_options_t *o = &dtp->opt;
	bool on = true;

	if (act->nrecs > 0) {
		const dt_recdesc_t *r = &act->recs[0];

		if (r->kind == DT_RK_INT)
			snprintf(val, sizeof(val), "%lld",
				 (long long)dt_rec_int(r, data + r->offset));
		else
			snprintf(val, sizeof(val), "%.*s", (int)r->size,
				 (const char *)data + r->offset);
	}
	if (strncmp(name, "no", 2) == 0 && strcmp(name, "normalize") != 0) {
		name += 2;
		on = false;
	}
	if (strcmp(name, "quiet") == 0)
		o->quiet = on;
	else if (strcmp(name, "aggsortkey") == 0)
		o->aggsortkey = on;
	else if (strcmp(name, "aggsortrev") == 0)
		o->aggsortrev = on;
	else if (strcmp(name, "aggpercpu") == 0)
		o->aggpercpu = on;
	else if (strcmp(name, "rawbytes") == 0)
		o->rawbytes = on;
	else if (strcmp(name, "flowindent") == 0)
		o->flowindent = on;
	else if (strcmp(name, "aggsortpos") == 0)
		o->aggsortpos = strtoll(val, NULL, 0);
	else if (strcmp(name, "aggsortkeypos") == 0)
		o->aggsortkeypos = strtoll(val, NULL, 0);
	else if (strcmp(name, "printsize") == 0)
		setopt_printsize(o, act->fmt, val);
	else if (strcmp(name, "switchrate") == 0 ||
		 strcmp(name, "aggrate") == 0 ||
		 strcmp(name, "statusrate") == 0)
		setopt_rate(o, name, act->fmt, val);
	else
		fprintf(stderr, "dtrace: couldn't set option \"%s\" to "
			"\"%s\": Invalid option name\n", act->fmt, val);
}

static void act_freopen(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
			const uint8_t *data)
{
	char *name = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&name, &len), *nf;

	if (mf == NULL)
		return;
	dt_printf_format(dtp, mf, act->fmt, act->recs, act->nrecs, data);
	fclose(mf);
	fflush(dtp->out);
	if (name[0] == '\0') {
		if (dtp->out != stdout)
			fclose(dtp->out);
		dtp->out = stdout;
	} else if ((nf = fopen(name, "a")) == NULL) {
		fprintf(stderr, "dtrace: failed to open %s: %s\n", name,
			strerror(errno));
	} else {
		if (dtp->out != stdout)
			fclose(dtp->out);
		dtp->out = nf;
	}
	free(name);
}

static int act_trunc(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
		     const uint8_t *data)
{
	int64_t n = 0;
	bool all = act->nrecs == 0;

	if (!all)
		n = dt_rec_int(&act->recs[0], data + act->recs[0].offset);
	for (int i = 0; i < act->naggs; i++)
		if (dt_agg_trunc(dtp, act->aggs[i], n, all) != 0)
			return -1;
	return 0;
}

/* ftruncate(): empty the output file (what follows is written from its
 * start: -o opens it to append); a terminal or a pipe is left alone. */
static void act_ftruncate(dtrace_hdl_t *dtp)
{
	int fd = fileno(dtp->out);

	fflush(dtp->out);
	if (fd < 0)
		fd = dtp->out_fd;	/* the -o stream */
	if (ftruncate(fd, 0) == 0 && fileno(dtp->out) >= 0)
		rewind(dtp->out);
}

/* -x droptags: a drop message starts with DTrace's name of its kind. */
static const char *drop_tag(const dtrace_hdl_t *dtp, const char *tag)
{
	static char buf[64];

	if (!dtp->opt.droptags)
		return "";
	snprintf(buf, sizeof(buf), "[DTRACEDROP_%s] ", tag);
	return buf;
}

static void report_drop(dtrace_hdl_t *dtp, uint64_t n, const char *what,
			int cpu)
{
	bool principal = what[0] == '\0';

	dt_consume_drop(dtp, principal ? "buffer" : "aggregation", cpu, n);
	fprintf(stderr, "dtrace: %s%" PRIu64 " %sdrop%s on CPU %d\n",
		drop_tag(dtp, principal ? "PRINCIPAL" : "AGGREGATION"), n, what,
		n == 1 ? "" : "s", cpu);
}

/* The key of an aggregation sample's entry from its key records: a
 * ustack() unwound into the key's PCs, a string NUL padded, the others as
 * recorded. */
static void aggsample_key(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			  const dt_actdesc_t *act, const uint8_t *data,
			  uint8_t *key)
{
	for (int k = 0; k < d->nkeys && k < act->nrecs; k++) {
		const dt_recdesc_t *kr = &d->keys[k], *r = &act->recs[k];
		const uint8_t *src = data + r->offset;
		uint8_t *dst = key + kr->offset;
		uint64_t pcs[DT_STACK_MAX];
		pid_t pid;

		if (r->kind == DT_RK_USAMPLE) {
			uint64_t v;
			int max = (int)(kr->size / 8) - 1;
			int n = dt_ustack_pcs(dtp, r, src, pcs, max, &pid);

			v = (uint64_t)pid;
			memcpy(dst, &v, 8);
			memcpy(dst + 8, pcs, (size_t)n * 8);
		} else if (r->kind == DT_RK_STRING) {
			memcpy(dst, src, strnlen((const char *)src,
				 r->size < kr->size ? r->size : kr->size));
		} else {
			memcpy(dst, src, r->kind == DT_RK_INT ? 8 :
			       r->size < kr->size ? r->size : kr->size);
		}
	}
}

static int act_aggsample(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
			 const uint8_t *data)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	const dt_aggdesc_t *d = act->naggs > 0 ? dt_pd_agg(dtp, act->aggs[0])
					       : NULL;
	int64_t v = 0, w = -1;
	uint8_t *key;
	int err;

	if (d == NULL || act->nrecs < d->nkeys)
		return 0;
	key = dt_zalloc(d->keysize);
	aggsample_key(dtp, d, act, data, key);
	if (act->nrecs > d->nkeys)
		v = dt_rec_int(&act->recs[d->nkeys],
			       data + act->recs[d->nkeys].offset);
	if (act->nrecs > d->nkeys + 1)
		w = dt_rec_int(&act->recs[d->nkeys + 1],
			       data + act->recs[d->nkeys + 1].offset);
	err = dt_agg_add_sample(dtp, d->id, key, (int)c->rec_cpu, v, w);
	free(key);
	if (err == -E2BIG || err == -ENOMEM)
		report_drop(dtp, 1, "aggregation ", (int)c->rec_cpu);
	return 0;
}

/*
 * What an action does besides printing: shared by the text and the JSON
 * printers, so that both formats behave alike.  Actions that only print
 * do nothing here.
 */
int dt_consume_effect(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
		      const uint8_t *data)
{
	const dt_recdesc_t *r0 = act->nrecs > 0 ? &act->recs[0] : NULL;
	int i;

	/* ring: these ran when the record came (dt_consume_buf.c) */
	if (dt_consumer_get(dtp)->ring_replay &&
	    (act->kind == DT_ACT_AGGSAMPLE || act->kind == DT_ACT_EXIT))
		return 0;
	switch (act->kind) {
	case DT_ACT_AGGSAMPLE:
		return act_aggsample(dtp, act, data);
	case DT_ACT_EXIT:
		if (r0 != NULL)
			dtp->exitstatus = (int)dt_rec_int(r0, data + r0->offset);
		dt_consumer_get(dtp)->done = true;
		return 0;
	case DT_ACT_CLEAR:
		for (i = 0; i < act->naggs; i++)
			if (dt_agg_clear(dtp, act->aggs[i]) != 0)
				return -1;
		return 0;
	case DT_ACT_TRUNC:
		return act_trunc(dtp, act, data);
	case DT_ACT_NORMALIZE:
		for (i = 0; i < act->naggs && r0 != NULL; i++)
			dt_agg_normalize(dtp, act->aggs[i],
				(uint64_t)dt_rec_int(r0, data + r0->offset));
		return 0;
	case DT_ACT_DENORMALIZE:
		for (i = 0; i < act->naggs; i++)
			dt_agg_normalize(dtp, act->aggs[i], 1);
		return 0;
	case DT_ACT_SETOPT:
		act_setopt(dtp, act, data);
		return 0;
	case DT_ACT_FTRUNCATE:
		act_ftruncate(dtp);
		return 0;
	case DT_ACT_FREOPEN:
		act_freopen(dtp, act, data);
		return 0;
	default:
		return 0;
	}
}

size_t dt_consume_mem_len(const dt_actdesc_t *act, const uint8_t *data)
{
	const dt_recdesc_t *r0 = &act->recs[0];
	size_t n = r0->size;

	if (r0->arg != 0 && r0->arg < n)
		n = r0->arg;
	if (act->nrecs > 1) {	/* tracemem()'s third argument */
		int64_t v = dt_rec_int(&act->recs[1],
				       data + act->recs[1].offset);

		if (v >= 0 && (uint64_t)v < n)
			n = (size_t)v;
	}
	return n;
}

/*
 * A fault's line, in Oracle DTrace's words: "error in dt_clause_N for
 * probe ID P (prov:mod:func:name): invalid address (0x8) at BPF pc M",
 * N the clause's index in the session (from 0).  An address shows for
 * the faults DTrace shows one for (in hexadecimal; an index in decimal).
 */
static void dt_consume_error(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
			     const dt_errrec_t *er)
{
	const dtrace_probe_t *prp = NULL;
	char details[64] = "", msg[1400];

	prp = dt_probe_by_id(dtp, hdr->prid);
	switch (er->fault) {
	case DT_FAULT_BADADDR:
		if ((int64_t)er->addr == -1)
			break;
		/* FALLTHROUGH */
	case DT_FAULT_BADALIGN:
	case DT_FAULT_BADSTACK:
		snprintf(details, sizeof(details), " (0x%" PRIx64 ")",
			 er->addr);
		break;
	default:
		break;
	}
	snprintf(msg, sizeof(msg), "error in dt_clause_%u for probe ID %u "
		 "(%s:%s:%s:%s): %s%s at BPF pc %u", er->clause,
		 hdr->prid, prp ? prp->prv : "", prp ? prp->mod : "",
		 prp ? prp->fun : "", prp ? prp->prb : "",
		 dt_fault_str(er->fault), details, er->pc);
	/* the output's own form (JSON's line), and the usual message on
	 * stderr */
	dt_outfault_t f = { hdr, prp, er, msg };
	dt_consume_out(dtp)->ops->fault(dt_consume_out(dtp), &f);
	fflush(dtp->out);
	fprintf(stderr, "dtrace: %s\n", msg);
}

/* Whether action i ran, by the clause's action mask (when it has one). */
static bool action_ran(const dt_compiled_clause_t *cl, int i,
		       const uint8_t *data, size_t dsize)
{
	uint64_t mask;

	if (!cl->actmask || i >= 64)
		return true;
	if (dsize < sizeof(mask))
		return false;
	memcpy(&mask, data, sizeof(mask));
	return (mask & (1ull << i)) != 0;
}

/*
 * Whether action i of a record (data, dsize bytes, at least cl->recsize)
 * is to be run: it ran in BPF (the action mask, when the clause has one)
 * and its records lie inside the record.  A record that does not fit is
 * reported, and *err set.
 */
bool dt_consume_action_ok(const dt_compiled_clause_t *cl, int i,
			  const uint8_t *data, size_t dsize, int *err)
{
	if (cl->actmask && i < 64 && dsize < sizeof(uint64_t)) {
		fprintf(stderr, "dtrace: record of clause %d has no action "
			"mask\n", cl->id);
		*err = -1;
		return false;
	}
	if (!action_ran(cl, i, data, dsize))
		return false;
	if (!recs_fit(&cl->acts[i], dsize)) {
		fprintf(stderr, "dtrace: action %d of clause %d lies outside "
			"its record\n", i + 1, cl->id);
		*err = -1;
		return false;
	}
	return true;
}

/* The ustackdepth values of a record: the depth of the stack copy each
 * one names (dt_recdesc_t.usample), written in its slot in a copy of the
 * data, which the caller frees. */
static uint8_t *udepths_fill(dtrace_hdl_t *dtp, const dt_compiled_clause_t *cl,
			     const uint8_t *data, size_t dsize)
{
	uint8_t *copy = dt_zalloc(dsize);

	memcpy(copy, data, dsize);
	for (int i = 0; i < cl->nacts; i++) {
		const dt_actdesc_t *act = &cl->acts[i];

		if (!action_ran(cl, i, data, dsize))
			continue;
		for (int j = 0; j < act->nrecs; j++) {
			const dt_recdesc_t *r = &act->recs[j];
			dt_recdesc_t s = { .kind = DT_RK_USAMPLE,
					   .size = r->usample };
			uint64_t pcs[DT_STACK_MAX], depth = 0;
			pid_t pid;

			if (r->usample == 0 || r->arg > dsize ||
			    r->usample > dsize - r->arg ||
			    r->offset > dsize - sizeof(depth))
				continue;
			depth = (uint64_t)dt_ustack_pcs(dtp, &s, data + r->arg,
							pcs, DT_STACK_MAX, &pid);
			memcpy(copy + r->offset, &depth, sizeof(depth));
		}
	}
	return copy;
}

static int consume_clause_record(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
				 const dt_compiled_clause_t *cl,
				 const uint8_t *data, size_t dsize,
				 const dt_rechdr_t *next);

/* --- speculations --- */

/*
 * A record that speculate()d waits in its speculation's queue, up to
 * specsize bytes (a record past that is a speculative drop), until a
 * commit() record of that speculation prints the queue or a discard()
 * record empties it.  A record on a speculation that was not active is
 * dropped, as DTrace drops it.
 */
static int spec_hold(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
		     const void *buf, size_t size)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dt_specbuf_t *sb;
	dt_specrec_t *r;

	if (hdr->spec == DT_SPEC_INACTIVE)
		return 0;
	if (hdr->spec > DT_NSPEC_MAX) {
		fprintf(stderr, "dtrace: record of unknown speculation %u\n",
			hdr->spec);
		return -1;
	}
	sb = &c->specs[hdr->spec];
	if (sb->bytes + size > dtp->opt.specsize) {
		c->spec_drops++;
		return 0;
	}
	r = dt_zalloc(sizeof(*r) + size);
	memcpy(r->data, buf, size);
	r->size = size;
	memset(r->data + offsetof(dt_rechdr_t, spec), 0, sizeof(uint32_t));
	*sb->tail = r;
	sb->tail = &r->next;
	sb->bytes += size;
	return 0;
}

/* Commit (print) or discard the queue of speculation id. */
static void spec_end(dtrace_hdl_t *dtp, uint64_t id, bool commit)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dt_specrec_t *r, *next;

	if (id == 0 || id > DT_NSPEC_MAX)
		return;
	r = c->specs[id].head;
	c->specs[id] = (dt_specbuf_t){ .tail = &c->specs[id].head };
	for (; r != NULL; r = next) {
		next = r->next;
		if (commit)
			dt_consume_record(dtp, r->data, r->size);
		free(r);
	}
}

/* After a record: the commit() and discard() it ran. */
static void spec_settle(dtrace_hdl_t *dtp, const dt_compiled_clause_t *cl,
			const uint8_t *data, size_t dsize)
{
	int err = 0;

	for (int i = 0; i < cl->nacts; i++) {
		const dt_actdesc_t *act = &cl->acts[i];

		if ((act->kind != DT_ACT_COMMIT &&
		     act->kind != DT_ACT_DISCARD) || act->nrecs < 1 ||
		    !dt_consume_action_ok(cl, i, data, dsize, &err))
			continue;
		spec_end(dtp, (uint64_t)dt_rec_int(&act->recs[0],
				data + act->recs[0].offset),
			 act->kind == DT_ACT_COMMIT);
	}
}

static void spec_fini(struct dt_consumer *c)
{
	for (int i = 0; i <= DT_NSPEC_MAX; i++) {
		dt_specrec_t *r = c->specs[i].head, *next;

		for (; r != NULL; r = next) {
			next = r->next;
			free(r);
		}
	}
}

/* A record, with the header of the one after it when known (-F). */
static int consume_record_next(dtrace_hdl_t *dtp, const void *buf,
			       size_t size, const dt_rechdr_t *next)
{
	const uint8_t *data = (const uint8_t *)buf + sizeof(dt_rechdr_t);
	const dt_compiled_clause_t *cl;
	dt_rechdr_t hdr;
	size_t dsize;
	int err = 0;

	if (size < sizeof(hdr)) {
		fprintf(stderr, "dtrace: short record (%zu bytes)\n", size);
		return -1;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	dsize = size - sizeof(hdr);
	dt_consumer_get(dtp)->rec_cpu = hdr.cpu;
	if (hdr.clause == DT_CLAUSE_ERROR) {
		dt_errrec_t er;

		if (dsize < sizeof(er)) {
			fprintf(stderr, "dtrace: short error record\n");
			return -1;
		}
		memcpy(&er, data, sizeof(er));
		dt_consume_error(dtp, &hdr, &er);
		return 0;
	}
	if (hdr.clause >= (uint32_t)dtp->nclauses || dtp->clauses == NULL ||
	    (cl = dtp->clauses[hdr.clause]) == NULL) {
		fprintf(stderr, "dtrace: record of unknown clause %u\n",
			hdr.clause);
		return -1;
	}
	if (dsize < cl->recsize) {
		fprintf(stderr, "dtrace: record of clause %u is %zu bytes, "
			"expected %u\n", hdr.clause, dsize, cl->recsize);
		return -1;
	}
	if (hdr.spec != 0)
		return spec_hold(dtp, &hdr, buf, size);
	if (cl->udepth) {
		uint8_t *filled = udepths_fill(dtp, cl, data, dsize);

		err = consume_clause_record(dtp, &hdr, cl, filled, dsize, next);
		free(filled);
		return err;
	}
	return consume_clause_record(dtp, &hdr, cl, data, dsize, next);
}

/* Run and print the actions of a record of clause cl; next: the header of
 * the record after it, when known (-F).  Each action is decoded once,
 * its effect run, and the decoded action handed to the output. */
static int consume_clause_record(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
				 const dt_compiled_clause_t *cl,
				 const uint8_t *data, size_t dsize,
				 const dt_rechdr_t *next)
{
	dt_out_t *o = dt_consume_out(dtp);
	dt_outrec_t r = { hdr, dt_probe_by_id(dtp, hdr->prid), next };
	int err = 0;

	o->ops->record_begin(o, &r);
	for (int i = 0; i < cl->nacts && err == 0; i++) {
		dt_outact_t a;
		int shown;

		if (!dt_consume_action_ok(cl, i, data, dsize, &err))
			continue;
		err = dt_consume_effect(dtp, &cl->acts[i], data);
		dt_outact_decode(dtp, &a, &cl->acts[i], data);
		/* shown even when its effect failed (JSON names it) */
		shown = o->ops->action(o, &a);
		if (err == 0)
			err = shown;
		dt_outact_free(&a);
	}
	o->ops->record_end(o, err);
	spec_settle(dtp, cl, data, dsize);
	return err;
}

int dt_consume_record(dtrace_hdl_t *dtp, const void *buf, size_t size)
{
	return consume_record_next(dtp, buf, size, NULL);
}

/* --- the ring buffer --- */

/* The record held for -F, given the one after it (NULL: none yet). */
static void flush_held(dtrace_hdl_t *dtp, const dt_rechdr_t *next)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	uint8_t *held = c->held;

	if (held == NULL)
		return;
	c->held = NULL;
	consume_record_next(dtp, held, c->held_size, next);
	free(held);
}

static int dt_consume_cb(void *ctx, void *data, size_t size)
{
	dtrace_hdl_t *dtp = ctx;
	struct dt_consumer *c = dt_consumer_get(dtp);
	dt_rechdr_t hdr;

	if (dt_bufpol_keep(dtp, data, size))
		return 0;	/* ring: printed when tracing ends */
	/* a bad record is reported and skipped: tracing goes on */
	if (!dtp->opt.flowindent || dtp->opt.json || size < sizeof(hdr)) {
		flush_held(dtp, NULL);
		dt_consume_record(dtp, data, size);
		return 0;
	}
	memcpy(&hdr, data, sizeof(hdr));
	flush_held(dtp, &hdr);
	c->held = dt_zalloc(size);
	memcpy(c->held, data, size);
	c->held_size = size;
	return 0;
}

int dt_consume_init(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dtrace_map_t *m = dt_bpf_map_find(dtp, "output");

	if (dtp->out == NULL)
		dtp->out = stdout;
	if (m == NULL) {
		dt_set_error(dtp, "no output buffer");
		return -1;
	}
	if (dt_profile_fits(dtp) < 0)
		return -1;
	if (dt_bufpol_start(dtp) < 0)
		return -1;
	c->rb = ring_buffer__new(m->fd, dt_consume_cb, dtp, NULL);
	if (c->rb == NULL) {
		dt_set_error(dtp, "cannot open the output buffer: %s",
			     strerror(errno));
		return -1;
	}
	if (c->aggs == NULL)
		dt_agg_setup(dtp, NULL, 0);
	dt_agg_zero_prepare(dtp);
	/* before a -c child is let go: it may be gone by the first poll */
	read_targets(dtp, c);
	return 0;
}

void dt_consume_fini(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dtp->cons;

	if (c == NULL)
		return;
	if (c->rb != NULL)
		ring_buffer__free(c->rb);
	dt_agg_fini(dtp);
	symprocs_free(c);
	spec_fini(c);
	dt_bufpol_fini(c);
	if (c->out != NULL)
		c->out->ops->destroy(c->out);
	free(c->held);
	free(c->drops_seen);
	free(c);
	dtp->cons = NULL;
}

int dt_consume_poll(dtrace_hdl_t *dtp, int timeout_ms)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	int n;

	if (c->rb == NULL) {
		dt_set_error(dtp, "the consumer is not initialized");
		return -1;
	}
	if (!c->targets_read)
		read_targets(dtp, c);
	c->batch++;
	n = ring_buffer__poll(c->rb, timeout_ms);
	/* Records written without a wakeup (the BPF side wakes the consumer
	 * only for records that need prompt action, such as exit()) are
	 * read here, at the latest one poll period after they came. */
	if (n >= 0)
		n = ring_buffer__consume(c->rb);
	flush_held(dtp, NULL);	/* what came in, all printed */
	fflush(dtp->out);
	if (n < 0 && n != -EINTR) {
		dt_set_error(dtp, "failed to read the output buffer: %s",
			     strerror(-n));
		return -1;
	}
	return 0;
}

bool dt_consume_done(dtrace_hdl_t *dtp)
{
	return dtp->cons != NULL && (dtp->cons->done || dt_bufpol_filled(dtp));
}

/* Speculative drops (records past specsize) and failed speculations
 * (speculation() found none free: slot 0 of the "spec" map), DTrace's
 * way. */
static void report_spec_drops(dtrace_hdl_t *dtp, struct dt_consumer *c)
{
	dtrace_map_t *m = dt_bpf_map_find(dtp, "spec");
	uint64_t failed = 0, n;
	uint32_t key = 0;

	if (c->spec_drops > c->spec_drops_seen) {
		n = c->spec_drops - c->spec_drops_seen;
		dt_consume_drop(dtp, "speculative", -1, n);
		fprintf(stderr, "dtrace: %s%" PRIu64 " speculative drop%s\n",
			drop_tag(dtp, "SPEC"), n, n == 1 ? "" : "s");
		c->spec_drops_seen = c->spec_drops;
	}
	/* the value is nspec + 1 slots; slot 0 counts the failures */
	uint64_t *slots = m != NULL ? dt_zalloc(m->vsize) : NULL;
	int err = m != NULL ? bpf_map_lookup_elem(m->fd, &key, slots) : -1;
	failed = slots != NULL ? slots[0] : 0;
	free(slots);
	if (err != 0 || failed <= c->spec_failed_seen)
		return;
	n = failed - c->spec_failed_seen;
	dt_consume_drop(dtp, "speculation", -1, n);
	fprintf(stderr, "dtrace: %s%" PRIu64 " failed speculation%s (no "
		"speculative buffer available)\n", drop_tag(dtp, "SPECUNAVAIL"),
		n, n == 1 ? "" : "s");
	c->spec_failed_seen = failed;
}

/* Return probe firings the kernel omitted (dt_uretdepth.c): uret in all,
 * of which those not reported yet. */
static void report_uret_drops(dtrace_hdl_t *dtp, struct dt_consumer *c,
			      uint64_t uret)
{
	if (uret <= c->uret_seen)
		return;
	uint64_t n = uret - c->uret_seen;
	dt_consume_drop(dtp, "return", -1, n);
	fprintf(stderr, "dtrace: %s%" PRIu64 " return probe firing%s lost: "
		"calls nested deeper than the kernel's 64 pending return "
		"probes per thread\n", drop_tag(dtp, "URETDEPTH"), n,
		n == 1 ? "" : "s");
	c->uret_seen = uret;
}

/* A drop: the usual message on stderr, and a "drop" line with JSON. */

void dt_consume_report_drops(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dtrace_map_t *m = dt_bpf_map_find(dtp, "cpuinfo");
	dt_cpuinfo_t *ci;
	uint32_t key = 0;
	uint64_t dyn = 0, uret = 0;
	int ncpus;

	if (m == NULL)
		return;
	if (c->ncpus <= 0)
		c->ncpus = libbpf_num_possible_cpus();
	ncpus = c->ncpus > 0 ? c->ncpus : 1;
	if (c->drops_seen == NULL)
		c->drops_seen = dt_zalloc(sizeof(uint64_t) * 2 * ncpus);
	ci = dt_zalloc(sizeof(*ci) * (size_t)ncpus);
	if (bpf_map_lookup_elem(m->fd, &key, ci) != 0) {
		free(ci);
		return;
	}
	fflush(dtp->out);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t *seen = &c->drops_seen[2 * cpu];

		if (ci[cpu].buf_drops > seen[0])
			report_drop(dtp, ci[cpu].buf_drops - seen[0], "", cpu);
		if (ci[cpu].agg_drops > seen[1])
			report_drop(dtp, ci[cpu].agg_drops - seen[1],
				    "aggregation ", cpu);
		seen[0] = ci[cpu].buf_drops;
		seen[1] = ci[cpu].agg_drops;
		dyn += ci[cpu].dyn_drops;
		uret += ci[cpu].uret_drops;
	}
	report_spec_drops(dtp, c);
	report_uret_drops(dtp, c, uret);
	if (dyn > c->dyn_seen)
		dt_consume_drop(dtp, "dynamic", -1, dyn - c->dyn_seen);
	if (dyn > c->dyn_seen)
		fprintf(stderr, "dtrace: %s%" PRIu64 " dynamic variable "
			"drop%s\n", drop_tag(dtp, "DYNAMIC"), dyn - c->dyn_seen,
			dyn - c->dyn_seen == 1 ? "" : "s");
	c->dyn_seen = dyn;
	free(ci);
}

/* DTrace ends tracing with a newline (even with -q), then prints every
 * aggregation that was not printa()ed.  JSON has no blank line: only
 * objects, one a line. */
int dt_consume_final(dtrace_hdl_t *dtp)
{
	int err;

	if (dtp->out == NULL)
		dtp->out = stdout;
	dt_bufpol_replay(dtp, dt_consume_cb);
	flush_held(dtp, NULL);
	dt_out_t *o = dt_consume_out(dtp);
	o->ops->tracing_end(o);
	err = dt_agg_print_all(dtp, dtp->out);
	if (err == 0 && o->ops->finish != NULL)
		err = o->ops->finish(o);
	fflush(dtp->out);
	return err;
}
