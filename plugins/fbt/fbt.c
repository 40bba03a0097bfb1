/* SPDX-License-Identifier: MIT */
/*
 * fbt.c: the fbt provider: the entry and return of kernel functions.
 *
 *	fbt:vmlinux:vfs_read:entry	args[] the function's arguments, typed
 *					from the kernel's BTF
 *	fbt:vmlinux:vfs_read:return	arg1 (args[1]) the value returned;
 *					arg0 0 (DTrace's offset of the return
 *					instruction is not known)
 *
 * The functions are those of the kernel's BTF (/sys/kernel/btf/vmlinux,
 * and each module's), so listing works on any kernel with BTF, whether it
 * can trace them or not.  At the first enabling the plugin finds out how
 * the kernel can: BPF trampolines (fentry/fexit: a program of its own per
 * function, the cheapest) when a test program attaches, else kprobes when
 * the kprobe PMU exists; -x fbt.mode=fentry or =kprobe forces one.  On a
 * kernel with neither an fbt description fails with one line that says so.
 *
 * Trampolines: an fentry program may read no further than the function's
 * arguments (and, at fexit, the return value after them), so the kind
 * carries the argument count; a kprobe reads the registers of the System V
 * calling convention.  The plugin sees the engine only through
 * <dtrace/provider.h>; it reads BTF with libbpf.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <dtrace/array.h>
#include <dtrace/provider.h>

#define FBT_PROVIDER	"fbt"
#define FBT_VMLINUX	"vmlinux"
#define FBT_BTF_DIR	"/sys/kernel/btf"
#define FBT_MAXARGS	6	/* what both mechanisms pass on x86-64 */

/* Kinds: fentry FBT_K_FENTRY + nargs, fexit FBT_K_FEXIT + nargs. */
enum {
	FBT_K_FENTRY = 0,
	FBT_K_FEXIT = 16,
	FBT_K_KPROBE = 32,
	FBT_K_KRETPROBE = 33,
};

typedef enum fbt_mode { FBT_UNKNOWN, FBT_FENTRY, FBT_KPROBE, FBT_NONE } fbt_mode_t;

static const dtrace_host_t *host;

/* A module's BTF (vmlinux first). */
typedef struct fbt_btf {
	char *module;
	struct btf *btf;
	struct fbt_btf *next;
} fbt_btf_t;

typedef struct fbt_session {
	fbt_btf_t *btfs;	/* read at the first provide() */
	bool btfs_read;
	char **traceable;	/* sorted names of the functions the kernel
				   can trace, or NULL when not known */
	size_t ntraceable;
	fbt_mode_t mode;	/* chosen at the first enable() */
	fbt_mode_t forced;	/* -x fbt.mode */
	bool kprobe_too;	/* kprobes work: the fallback of functions
				   fentry cannot read */
} fbt_session_t;

/* A probe: its function's BTF and type id, and its argument types. */
typedef struct fbt_probe {
	const fbt_btf_t *mod;
	int func_id;
	bool is_return;
	int nargs;
	bool fentry_ok;		/* arguments and value are integers or
				   pointers, which fentry can read */
	char *types[FBT_MAXARGS + 1];	/* args[] (a return: offset, value) */
} fbt_probe_t;

static void *fbt_attach(dtrace_provider_t *pv)
{
	fbt_session_t *s = calloc(1, sizeof(*s));

	if (s == NULL)
		host->report->error(pv, "fbt: out of memory");
	return s;
}

static void fbt_btf_add(fbt_session_t *s, const char *module, struct btf *btf)
{
	fbt_btf_t *b = calloc(1, sizeof(*b)), **pp;

	if (b == NULL || (b->module = strdup(module)) == NULL) {
		free(b);
		btf__free(btf);
		return;
	}
	b->btf = btf;
	for (pp = &s->btfs; *pp; pp = &(*pp)->next)
		;
	*pp = b;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The functions the kernel can trace (tracefs's available_filter_functions:
 * "name" or "name [module]" a line), when it lets us read them: BTF also
 * names functions that were inlined or are notrace. */
static void fbt_read_traceable(fbt_session_t *s)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	char line[512];
	size_t cap = 0;
	FILE *fp = NULL;

	for (size_t i = 0; fp == NULL && i < 2; i++)
		fp = fopen(paths[i], "r");
	while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, " \t\n")] = '\0';
		if (DTRACE_ARRAY_ROOM(s->traceable, s->ntraceable, cap) < 0)
			break;
		if ((s->traceable[s->ntraceable] = strdup(line)) != NULL)
			s->ntraceable++;
	}
	if (fp != NULL)
		fclose(fp);
	if (s->traceable != NULL)
		qsort(s->traceable, s->ntraceable, sizeof(char *), cmp_str);
}

static bool fbt_traceable(const fbt_session_t *s, const char *func)
{
	return s->traceable == NULL ||
	       bsearch(&func, s->traceable, s->ntraceable, sizeof(char *),
		       cmp_str) != NULL;
}

/* The kernel's BTF and that of each loaded module, once per session. */
static void fbt_read_btfs(dtrace_provider_t *pv, fbt_session_t *s)
{
	struct dirent *de;
	char path[512];

	if (s->btfs_read)
		return;
	s->btfs_read = true;
	fbt_read_traceable(s);
	struct btf *vm = host->bpf->kernel_btf(pv);	/* the engine's */
	if (vm == NULL)
		return;
	fbt_btf_add(s, FBT_VMLINUX, vm);
	DIR *d = opendir(FBT_BTF_DIR);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, FBT_VMLINUX) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", FBT_BTF_DIR, de->d_name);
		struct btf *m = btf__parse_split(path, vm);
		if (m != NULL)
			fbt_btf_add(s, de->d_name, m);
	}
	if (d != NULL)
		closedir(d);
}

static int fbt_insert(dtrace_provider_t *pv, const fbt_btf_t *b, int id,
		      const char *func, bool is_return)
{
	const char *prb = is_return ? "return" : "entry";

	if (host->probes->lookup(pv, FBT_PROVIDER, b->module, func, prb))
		return 0;
	fbt_probe_t *p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->mod = b;
	p->func_id = id;
	p->is_return = is_return;
	p->nargs = -1;
	dtrace_probe_t *prp = host->probes->insert(pv, FBT_PROVIDER, b->module,
						   func, prb, p);
	if (prp == NULL) {
		int rc = -errno;
		free(p);
		return rc;
	}
	host->probes->attr(pv, prp,
			   DTRACE_PROBE_KERNEL | DTRACE_PROBE_IN_KERNEL);
	return 1;
}

/* The probes of the functions of one module's BTF that match pdp. */
static int fbt_provide_module(dtrace_provider_t *pv, const fbt_session_t *s,
			      const fbt_btf_t *b, const dtrace_probedesc_t *pdp,
			      bool entry, bool ret)
{
	const struct btf *base = btf__base_btf(b->btf);
	int n = 0, rc, last = (int)btf__type_cnt(b->btf);
	/* A module's split BTF numbers its own types after the kernel's. */
	int first = base ? (int)btf__type_cnt(base) : 1;
	for (int id = first; id < last; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		if (!btf_is_func(t))
			continue;
		const char *name = btf__name_by_offset(b->btf, t->name_off);
		if (name == NULL || !host->probes->glob_match(pdp->fun, name) ||
		    !fbt_traceable(s, name))
			continue;
		if (entry && (rc = fbt_insert(pv, b, id, name, false)) < 0)
			return rc;
		n += entry ? rc : 0;
		if (ret && (rc = fbt_insert(pv, b, id, name, true)) < 0)
			return rc;
		n += ret ? rc : 0;
	}
	return n;
}

static int fbt_provide(dtrace_provider_t *pv, void *data,
		       const dtrace_probedesc_t *pdp)
{
	fbt_session_t *s = data;
	int n = 0;

	if (!host->probes->glob_match(pdp->prv, FBT_PROVIDER))
		return 0;
	bool entry = host->probes->glob_match(pdp->prb, "entry");
	bool ret = host->probes->glob_match(pdp->prb, "return");
	if (!entry && !ret)
		return 0;
	fbt_read_btfs(pv, s);
	for (const fbt_btf_t *b = s->btfs; b != NULL; b = b->next) {
		if (!host->probes->glob_match(pdp->mod, b->module))
			continue;
		int rc = fbt_provide_module(pv, s, b, pdp, entry, ret);
		if (rc < 0) {
			host->report->error(pv, "fbt: cannot create probes: %s",
					    strerror(-rc));
			return rc;
		}
		n += rc;
	}
	return n;
}

/* The C name of BTF type id ("struct file *", "char *", "size_t"), or NULL
 * for one D cannot name (then the engine reads it as a 64-bit integer). */
static char *fbt_type_name(const struct btf *btf, int id)
{
	char buf[256];
	int stars = 0;
	const struct btf_type *t = btf__type_by_id(btf, id);

	/* Qualifiers are dropped: D reads these values, never writes them. */
	while (t != NULL && (btf_is_ptr(t) || btf_is_const(t) ||
			     btf_is_volatile(t) || btf_is_restrict(t) ||
			     btf_is_type_tag(t))) {
		stars += btf_is_ptr(t);
		t = btf__type_by_id(btf, t->type);
	}
	if (t == NULL || (t->type == 0 && btf_is_ptr(t)))
		return NULL;
	const char *name = btf__name_by_offset(btf, t->name_off);
	const char *kw = btf_is_struct(t) ? "struct " : btf_is_union(t) ?
			 "union " : btf_is_enum(t) ? "enum " : "";
	if (btf_kind(t) == BTF_KIND_UNKN || btf_is_void(t))
		name = "void";
	if (btf_is_fwd(t))
		kw = btf_kflag(t) ? "union " : "struct ";
	if (btf_is_func_proto(t) || name == NULL || name[0] == '\0')
		return stars ? strdup("void *") : NULL;
	snprintf(buf, sizeof(buf), "%s%s%s%.*s", kw, name, stars ? " " : "",
		 stars, "**********");
	return strdup(buf);
}

/* BTF type id without its modifiers and typedefs (NULL: void). */
static const struct btf_type *fbt_resolve(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;

	while (t != NULL && (btf_is_mod(t) || btf_is_typedef(t) ||
			     btf_is_type_tag(t)))
		t = t->type ? btf__type_by_id(btf, t->type) : NULL;
	return t;
}

/* Whether the verifier (as of Linux 6.1) lets an fentry program read a
 * value of BTF type id: an integer or enum of at most 8 bytes, or a
 * pointer to void, to an integer or to a struct or union; not a pointer
 * to a pointer, an enum, a function, const void or a declared-only struct
 * ("arg type is not a struct").  Void, for a return value, too. */
static bool fbt_word_type(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = fbt_resolve(btf, id);

	if (t == NULL)
		return true;
	if (btf_is_int(t) || btf_is_any_enum(t))
		return t->size <= 8;
	if (!btf_is_ptr(t))
		return false;
	if (t->type == 0)
		return true;
	/* char __user *, const char *, loff_t *, struct file * */
	const struct btf_type *to = fbt_resolve(btf, t->type);
	return to != NULL && (btf_is_int(to) || btf_is_composite(to));
}

/* The argument count and types of p's function, once. */
static void fbt_read_args(fbt_probe_t *p)
{
	const struct btf *btf = p->mod->btf;
	const struct btf_type *fn = btf__type_by_id(btf, p->func_id);
	const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;

	if (p->nargs >= 0)
		return;
	p->nargs = 0;
	if (proto == NULL || !btf_is_func_proto(proto))
		return;
	int n = btf_vlen(proto);
	const struct btf_param *params = btf_params(proto);
	p->nargs = n;
	p->fentry_ok = n <= FBT_MAXARGS && fbt_word_type(btf, proto->type);
	for (int i = 0; i < n; i++)
		p->fentry_ok &= fbt_word_type(btf, params[i].type);
	if (p->is_return) {
		p->types[0] = strdup("int");
		p->types[1] = fbt_type_name(btf, (int)proto->type);
		return;
	}
	for (int i = 0; i < n && i < FBT_MAXARGS; i++)
		p->types[i] = fbt_type_name(btf, (int)params[i].type);
}

static int fbt_probe_args(dtrace_provider_t *pv, void *data,
			  const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	fbt_probe_t *p = host->probes->priv(prp);
	int n;

	(void)pv, (void)data;
	fbt_read_args(p);
	n = p->is_return ? 2 : p->nargs < FBT_MAXARGS ? p->nargs : FBT_MAXARGS;
	for (int i = 0; i < n; i++)
		args[i] = (dtrace_argdesc_t){ p->types[i] ? p->types[i] :
					      "uint64_t", NULL, i };
	return n;
}

/* Whether a BPF trampoline can be attached: an empty fentry program on a
 * function every kernel with BTF has, loaded and attached for a moment. */
static bool fbt_fentry_works(const fbt_session_t *s)
{
	static const char *const funcs[] = { "bpf_fentry_test1", "vfs_read" };
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	bool ok = false;

	for (size_t i = 0; !ok && s->btfs && i < 2; i++) {
		int id = btf__find_by_name_kind(s->btfs->btf, funcs[i],
						BTF_KIND_FUNC);
		if (id < 0)
			continue;
		LIBBPF_OPTS(bpf_prog_load_opts, o,
			    .expected_attach_type = BPF_TRACE_FENTRY,
			    .attach_btf_id = (uint32_t)id);
		int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "fbt_probe",
				       "GPL", insns, 2, &o);
		int link = fd < 0 ? -1 :
			   bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
		ok = link >= 0;
		if (link >= 0)
			close(link);
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

static bool fbt_kprobe_works(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
}

/* Choose how functions are traced, once: the forced mode, else fentry,
 * else kprobes.  -ENOTSUP after one line that says what the kernel lacks. */
static int fbt_choose_mode(dtrace_provider_t *pv, fbt_session_t *s)
{
	if (s->mode != FBT_UNKNOWN)
		return s->mode == FBT_NONE ? -ENOTSUP : 0;
	bool fentry = fbt_fentry_works(s), kprobe = fbt_kprobe_works();
	s->mode = FBT_NONE;
	s->kprobe_too = kprobe && s->forced != FBT_FENTRY;
	if (s->forced == FBT_FENTRY && !fentry)
		host->report->error(pv,
			"fbt: -x fbt.mode=fentry: this kernel has no "
			"BPF trampolines (fentry/fexit)");
	else if (s->forced == FBT_KPROBE && !kprobe)
		host->report->error(pv,
			"fbt: -x fbt.mode=kprobe: this kernel has no "
			"kprobes");
	else if (s->forced != FBT_UNKNOWN)
		s->mode = s->forced;
	else if (fentry || kprobe)
		s->mode = fentry ? FBT_FENTRY : FBT_KPROBE;
	else
		host->report->error(pv,
			"fbt: this kernel has neither BPF trampolines "
			"(fentry/fexit) nor kprobes: kernel functions "
			"cannot be traced");
	return s->mode == FBT_NONE ? -ENOTSUP : 0;
}

static int fbt_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	fbt_session_t *s = data;
	fbt_probe_t *p = host->probes->priv(prp);
	const char *func = host->probes->name(prp, DTRACE_FIELD_FUN);
	dtrace_event_t ev = { .size = sizeof(ev), .name = func };
	int rc;

	if ((rc = fbt_choose_mode(pv, s)) < 0)
		return rc;
	fbt_read_args(p);
	bool fentry = s->mode == FBT_FENTRY && p->fentry_ok;
	if (s->mode == FBT_FENTRY && !fentry && !s->kprobe_too) {
		host->report->warn(pv,
			"fbt: %s left out: fentry cannot read its "
			"arguments or value (more than %d arguments, a "
			"struct passed by value, a pointer the verifier "
			"refuses) and %s",
			func, FBT_MAXARGS,
			s->forced == FBT_FENTRY
			? "-x fbt.mode=fentry "
			"rules out kprobes"
			: "the kernel has no kprobes");
		return 0;
	}
	if (fentry) {
		ev.type = p->is_return ? DTRACE_EVENT_FEXIT : DTRACE_EVENT_FENTRY;
		ev.kind = (p->is_return ? FBT_K_FEXIT : FBT_K_FENTRY) + p->nargs;
	} else {
		ev.type = p->is_return ? DTRACE_EVENT_KRETPROBE
				       : DTRACE_EVENT_KPROBE;
		ev.kind = p->is_return ? FBT_K_KRETPROBE : FBT_K_KPROBE;
	}
	int64_t cookie = host->sites->event(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, 0, prp);
}

#define ARGV(i)	((int16_t)(offsetof(dtrace_mstate_t, argv) + 8 * (i)))

static void copy_ctx(dtrace_emitter_t *em, int from, int to_arg)
{
	host->bpf->emit(em,
			DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX, (int16_t)from));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(to_arg),
				     DT_R1));
}

/* Entry: arg0..argN-1 the arguments; return: arg1 the value returned. */
static int fbt_trampoline(dtrace_provider_t *pv, void *data,
			  dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int kind = tr->kind;
	(void)pv, (void)data;
	if (kind == FBT_K_KPROBE) {
		for (int i = 0; i < DTRACE_CTX_NARGS; i++)
			copy_ctx(em, DTRACE_CTX_ARG(i), i);
	} else if (kind == FBT_K_KRETPROBE) {
		copy_ctx(em, DTRACE_CTX_RET, 1);
	} else if (kind >= FBT_K_FEXIT) {
		copy_ctx(em, DTRACE_CTX_TRET(kind - FBT_K_FEXIT), 1);
	} else {
		for (int i = 0; i < kind - FBT_K_FENTRY; i++)
			copy_ctx(em, DTRACE_CTX_TARG(i), i);
	}
	return 0;
}

static const dtrace_option_t fbt_options[] = {
	{ "mode", "how kernel functions are traced: fentry (BPF "
		  "trampolines) or kprobe; by default the first the kernel "
		  "has" },
	{ NULL, NULL },
};

static int fbt_set_option(dtrace_provider_t *pv, void *data, const char *name,
			  const char *value)
{
	fbt_session_t *s = data;

	(void)name;
	if (value != NULL && strcmp(value, "fentry") == 0)
		s->forced = FBT_FENTRY;
	else if (value != NULL && strcmp(value, "kprobe") == 0)
		s->forced = FBT_KPROBE;
	else {
		host->report->error(
			pv, "fbt: -x fbt.mode=%s: expected fentry or kprobe",
			value ? value : "");
		return -EINVAL;
	}
	return 0;
}

static void fbt_free_priv(void *data, void *priv)
{
	fbt_probe_t *p = priv;

	(void)data;
	for (int i = 0; i <= FBT_MAXARGS; i++)
		free(p->types[i]);
	free(p);
}

static void fbt_detach(dtrace_provider_t *pv, void *data)
{
	fbt_session_t *s = data;

	(void)pv;
	/* The modules' BTF first: the kernel's (the first) is their base. */
	fbt_btf_t *vm = s->btfs;
	while (vm != NULL && vm->next != NULL) {
		fbt_btf_t *b = vm->next;
		vm->next = b->next;
		btf__free(b->btf);
		free(b->module);
		free(b);
	}
	if (vm != NULL) {		/* its BTF is the engine's */
		free(vm->module);
		free(vm);
	}
	for (size_t i = 0; i < s->ntraceable; i++)
		free(s->traceable[i]);
	free(s->traceable);
	free(s);
}

static const dtrace_provider_ops_t fbt_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = FBT_PROVIDER,
	.attach_session = fbt_attach,
	.provide = fbt_provide,
	.probe_args = fbt_probe_args,
	.enable = fbt_enable,
	.trampoline = fbt_trampoline,
	.free_priv = fbt_free_priv,
	.detach_session = fbt_detach,
	.options = fbt_options,
	.set_option = fbt_set_option,
};

DTRACE_PROVIDER(fbt_ops, host)
