/* SPDX-License-Identifier: MIT */
/*
 * test_pid.c: the pid provider plugin on its own, through a host table of
 * this test, against a running test/progs/pidtarget:
 *  - provide(): names (a.out, libc.so.6, aliases, offsets), globs, the
 *    bad pid message, "pid*" without a pid;
 *  - probe_match(): libc / full path / "01c";
 *  - enable(): entry and offset 0 share one underlying probe of one kind,
 *    return probes are uretprobes at the entry, a VEX instruction and a
 *    non-boundary offset are refused with the warnings DTrace users read;
 *  - the trampolines, loaded into the kernel and run on real uprobes:
 *    arguments from registers and from the stack at entry, the return
 *    value at return.
 * Needs $B/plugins/pid.so and $B/test/progs/pidtarget (skips without them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <dtrace/provider.h>
#include "unit_check.h"
#include "unit_proc.h"
#include "dt_elf.h"
#include "dt_hostsvc.h"

int dt_glob_match(const char *pattern, const char *s);	/* dt_subr.c */

/* ---- a host of our own -------------------------------------------------- */

struct dtrace_probe {
	char *name[4];
	void *priv;
	uint32_t id;
	unsigned attr;		/* from probe_attr() */
	const dtrace_elf_t *func;	/* from probe_function() */
};

#define MAXPROBES 20000
static struct dtrace_probe *probes[MAXPROBES];
static uint32_t nprobes;
static char last_error[1024], last_warn[2048];

typedef struct { dtrace_uprobe_t up; char path[4096]; } uprobe_rec_t;
static uprobe_rec_t uprobes[256];
static int nuprobes;
static int noverlays;

static void h_error(dtrace_provider_t *pv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

static char last_tag[32];

static void h_error_tag(dtrace_provider_t *pv, const char *tag,
			const char *fmt, ...)
{
	va_list ap;

	snprintf(last_tag, sizeof(last_tag), "%s", tag);
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

static void h_warn(dtrace_provider_t *pv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_warn, sizeof(last_warn), fmt, ap);
	va_end(ap);
}

static dtrace_probe_t *h_lookup(dtrace_provider_t *pv, const char *prv,
				const char *mod, const char *fun,
				const char *prb)
{
	const char *n[4] = { prv, mod, fun, prb };
	uint32_t i;
	int j;

	for (i = 0; i < nprobes; i++) {
		for (j = 0; j < 4 && strcmp(probes[i]->name[j], n[j]) == 0; j++)
			;
		if (j == 4)
			return probes[i];
	}
	return NULL;
}

static dtrace_probe_t *h_insert(dtrace_provider_t *pv, const char *prv,
				const char *mod, const char *fun,
				const char *prb, void *priv)
{
	dtrace_probe_t *p = h_lookup(pv, prv, mod, fun, prb);

	if (p)
		return p;
	if (nprobes == MAXPROBES) {
		errno = ENOSPC;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	p->name[0] = strdup(prv);
	p->name[1] = strdup(mod);
	p->name[2] = strdup(fun);
	p->name[3] = strdup(prb);
	p->priv = priv;
	p->id = ++nprobes;
	probes[p->id - 1] = p;
	return p;
}

static void *h_priv(const dtrace_probe_t *p) { return p->priv; }
static const char *h_name(const dtrace_probe_t *p, int f) { return p->name[f]; }
static int h_attr(dtrace_provider_t *pv, dtrace_probe_t *p, unsigned attr)
{
	(void)pv;
	p->attr |= attr;
	return 0;
}

static int h_function(dtrace_provider_t *pv, dtrace_probe_t *p,
		      const dtrace_elf_t *f)
{
	(void)pv;
	p->func = f;
	return 0;
}

/* Deduplicated on (path, offset, flags, pid) as the engine does. */
static int64_t h_uprobe(dtrace_provider_t *pv, const dtrace_uprobe_t *up)
{
	int i;

	for (i = 0; i < nuprobes; i++) {
		dtrace_uprobe_t *u = &uprobes[i].up;

		if (strcmp(uprobes[i].path, up->path) == 0 &&
		    u->offset == up->offset && u->flags == up->flags &&
		    u->pid == up->pid) {
			if (u->kind != up->kind)
				return -EINVAL;
			return i + 1;
		}
	}
	if (nuprobes == 256)
		return -ENOSPC;
	uprobes[nuprobes].up = *up;
	snprintf(uprobes[nuprobes].path, sizeof(uprobes[0].path), "%s",
		 up->path);
	uprobes[nuprobes].up.path = uprobes[nuprobes].path;
	return ++nuprobes;
}

static int h_overlay(dtrace_provider_t *pv, int64_t cookie, pid_t pid,
		     dtrace_probe_t *prp)
{
	noverlays++;
	return cookie > 0 && cookie <= nuprobes ? 0 : -EINVAL;
}

/* The emitter: instructions and labels, jumps patched at the end. */
struct dtrace_emitter {
	struct bpf_insn insn[512];
	int n;
	int label_pc[32];
	int nlabels;
	struct { int pc, label; } fix[32];
	int nfix;
};

static void h_emit(dtrace_emitter_t *em, struct bpf_insn insn)
{
	if (em->n < 512)
		em->insn[em->n++] = insn;
}

static int h_label_new(dtrace_emitter_t *em)
{
	em->label_pc[em->nlabels] = -1;
	return em->nlabels++;
}

static void h_label_place(dtrace_emitter_t *em, int l)
{
	em->label_pc[l] = em->n;
}

static void h_jump(dtrace_emitter_t *em, int op, int reg, int32_t imm, int l)
{
	em->fix[em->nfix].pc = em->n;
	em->fix[em->nfix++].label = l;
	h_emit(em, (struct bpf_insn){ .code = BPF_JMP | op | BPF_K,
				      .dst_reg = reg, .imm = imm });
}

static void em_finish(dtrace_emitter_t *em)
{
	int i;

	for (i = 0; i < em->nfix; i++)
		em->insn[em->fix[i].pc].off =
			em->label_pc[em->fix[i].label] - em->fix[i].pc - 1;
}

/* The engine's ELF and process services, over a cache of our own. */
static dt_elf_cache_t *elf_cache;

static int h_proc_grab(dtrace_provider_t *pv, pid_t pid, dtrace_proc_t **pp,
		       char *msg, size_t msglen)
{
	(void)pv;
	if (elf_cache == NULL)
		elf_cache = dt_elf_cache_create();
	return dt_hostsvc_proc_grab(elf_cache, pid, pp, msg, msglen);
}

static int h_elf_symbols(dtrace_provider_t *pv, const dtrace_elf_t *f,
			 const dtrace_sym_t **syms, size_t *nsyms, char *msg,
			 size_t msglen)
{
	(void)pv;
	return dt_hostsvc_elf_symbols(elf_cache, f, syms, nsyms, msg, msglen);
}

/* What the plugin asks only in passing: no debug lines, nothing loaded
 * later, a kernel whose 5-byte nops trap. */
static void h_debug(dtrace_provider_t *pv, const char *fmt, ...) { }
static int h_provide_again(dtrace_provider_t *pv) { return 0; }
static int h_nop5(dtrace_provider_t *pv) { return DTRACE_NOP5_TRAP; }

static const dtrace_host_report_t h_report = {
	.size = sizeof(dtrace_host_report_t),
	.error = h_error, .warn = h_warn, .error_tag = h_error_tag,
	.debug = h_debug,
};
static const dtrace_host_probes_t h_probes = {
	.size = sizeof(dtrace_host_probes_t),
	.insert = h_insert, .lookup = h_lookup, .priv = h_priv,
	.attr = h_attr, .at_function = h_function, .name = h_name,
	.glob_match = dt_glob_match, .provide_again = h_provide_again,
};
static const dtrace_host_sites_t h_sites = {
	.size = sizeof(dtrace_host_sites_t),
	.uprobe = h_uprobe, .overlay = h_overlay, .uprobe_nop5 = h_nop5,
};
static const dtrace_host_bpf_t h_bpf = {
	.size = sizeof(dtrace_host_bpf_t),
	.emit = h_emit, .label_new = h_label_new,
	.label_place = h_label_place, .jump = h_jump,
};
static const dtrace_host_elf_t h_elf = {
	.size = sizeof(dtrace_host_elf_t),
	.symbols = h_elf_symbols, .sym_by_name = dt_host_elf_sym_by_name,
	.vaddr_to_offset = dt_host_elf_vaddr_to_offset,
	.read = dt_host_elf_read, .entry = dt_host_elf_entry,
	.open = dt_host_elf_open,
};
static const dtrace_host_proc_t h_proc = {
	.size = sizeof(dtrace_host_proc_t),
	.grab = h_proc_grab, .modules = dt_host_proc_modules,
	.release = dt_host_proc_release,
	.module_name_is = dt_host_module_name_is,
	.maps = dt_proc_maps, .maps_free = dt_proc_maps_free,
};
static const dtrace_host_t host = {
	.major = DTRACE_PROVIDER_MAJOR, .minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_host_t),
	.report = &h_report, .probes = &h_probes, .sites = &h_sites,
	.bpf = &h_bpf, .elf = &h_elf, .proc = &h_proc,
};

/* ---- helpers ------------------------------------------------------------ */

static const dtrace_provider_ops_t *ops;
static void *sess;
static dtrace_provider_t *const pv = NULL;	/* the plugin only passes it on */

static int provide(const char *prv, const char *mod, const char *fun,
		   const char *prb)
{
	dtrace_probedesc_t d = { prv, mod, fun, prb };

	return ops->provide(pv, sess, &d);
}

static dtrace_probe_t *find(const char *prv, const char *mod,
			    const char *fun, const char *prb)
{
	return h_lookup(pv, prv, mod, fun, prb);
}

static bool match(dtrace_probe_t *p, const char *prv, const char *mod,
		  const char *fun, const char *prb)
{
	dtrace_probedesc_t d = { prv, mod, fun, prb };

	return ops->probe_match(pv, sess, p, &d) == 1;
}

/* ---- the tests ---------------------------------------------------------- */

static void test_provide(pid_t pid, const char *prv)
{
	dtrace_probe_t *p;
	int n;

	CHECK(provide(prv, "a.out", "add", "entry") == 1);
	CHECK(find(prv, "a.out", "add", "entry") != NULL);
	CHECK(provide(prv, "a.out", "add", "entry") == 0);	/* exists */
	n = provide(prv, "a.out", "add", "");
	CHECK(n >= 3);		/* return, 0, and more offsets */
	CHECK(find(prv, "a.out", "add", "return") != NULL);
	CHECK(find(prv, "a.out", "add", "0") != NULL);
	/* the code generator knows function entries by this attribute */
	CHECK(find(prv, "a.out", "add", "entry")->attr == DTRACE_PROBE_AT_ENTRY);
	CHECK(find(prv, "a.out", "add", "0")->attr == DTRACE_PROBE_AT_ENTRY);
	CHECK(find(prv, "a.out", "add", "return")->attr ==
	      DTRACE_PROBE_AT_RETURN);
	/* and says which function of which file for DWARF types */
	CHECK(find(prv, "a.out", "add", "entry")->func != NULL);
	CHECK(find(prv, "a.out", "add", "return")->func ==
	      find(prv, "a.out", "add", "entry")->func);
	CHECK(find(prv, "a.out", "add", "0")->func == NULL);
	CHECK(provide(prv, "a.out", "sum8", "entry") == 1);
	/* one function, two names: one probe, under the preferred name,
	 * which a description naming either finds */
	CHECK(provide(prv, "a.out", "pt_alias", "entry") == 1);
	CHECK(provide(prv, "a.out", "alias_fn", "entry") == 0);
	CHECK(find(prv, "a.out", "alias_fn", "entry") != NULL);
	CHECK(find(prv, "a.out", "pt_alias", "entry") == NULL);
	CHECK(provide(prv, "a.out", "vex_fn", "entry") == 1);
	/* inside an instruction: DTrace's error for the process named; a
	 * glob over processes gets the probe, which enable() skips */
	CHECK(provide(prv, "a.out", "add", "1") < 0);
	CHECK(strcmp(last_tag, "D_PROC_ALIGN") == 0);
	CHECK(strcmp(last_error, "offset 0x1 is not aligned on an "
		     "instruction") == 0);
	CHECK(find(prv, "a.out", "add", "1") == NULL);
	CHECK(provide("pid*", "a.out", "add", "1") == 1);
	CHECK(provide(prv, "libc", "malloc", "entry") == 1);
	CHECK((p = find(prv, "libc.so.6", "malloc", "entry")) != NULL);
	if (p) {
		CHECK(match(p, prv, "libc", "malloc", "entry"));
		CHECK(match(p, prv, "libc.so.6", "malloc", "entry"));
		CHECK(match(p, prv, "libc*", "mal*", ""));
		CHECK(match(p, "pid*", "*/libc.so.6", "", "entry"));
		CHECK(!match(p, prv, "a.out", "malloc", "entry"));
		CHECK(!match(p, prv, "libc", "malloc", "return"));
	}
	/* what DTrace refuses, with its tags; a glob module is searched */
	CHECK(provide(prv, "libc.so.6", "nosuchfunction", "entry") < 0);
	CHECK(strcmp(last_tag, "D_PROC_FUNC") == 0);
	CHECK(provide(prv, "a.out", "nosuchfunction", "") < 0);
	CHECK(strcmp(last_error, "failed to lookup 'nosuchfunction' in "
		     "module 'a.out'") == 0);
	CHECK(provide(prv, "a.out", "add", "nosuchname") < 0);
	CHECK(strcmp(last_tag, "D_PROC_NAME") == 0);
	CHECK(provide(prv, "a.out", "add", "fffff") < 0);
	CHECK(strcmp(last_tag, "D_PROC_OFF") == 0);
	CHECK(provide(prv, "lib*", "nosuchfunction", "entry") == 0);
	/* a glob over modules and functions */
	n = provide(prv, "*", "ad?", "entry");
	CHECK(n >= 0);
	(void)pid;
}

static void test_offsets(const char *prv)
{
	dtrace_probe_t *p = find(prv, "a.out", "add", "1");

	if (p) {
		CHECK(match(p, prv, "a.out", "add", "01"));
		CHECK(!match(p, prv, "a.out", "add", "10"));
	}
}

static void test_bad_pid(void)
{
	last_error[0] = '\0';
	CHECK(provide("pid999999999", "", "", "") < 0);
	CHECK(strcmp(last_error, "failed to grab process 999999999") == 0);
	CHECK(strcmp(last_tag, "D_PROC_GRAB") == 0);
	CHECK(provide("fbt", "", "", "") == 0);
	CHECK(provide("pidfoo", "", "", "") == 0);
}

static void test_enable(const char *prv)
{
	dtrace_probe_t *entry = find(prv, "a.out", "add", "entry");
	dtrace_probe_t *off0 = find(prv, "a.out", "add", "0");
	dtrace_probe_t *ret = find(prv, "a.out", "add", "return");
	dtrace_probe_t *vex = find(prv, "a.out", "vex_fn", "entry");
	dtrace_probe_t *bad = find(prv, "a.out", "add", "1");
	dtrace_probe_t *alias = find(prv, "a.out", "alias_fn", "entry");
	char want[512];

	if (!entry || !off0 || !ret || !vex || !bad || !alias) {
		failures++;
		return;
	}
	CHECK(ops->enable(pv, sess, entry) == 0);
	CHECK(ops->enable(pv, sess, off0) == 0);
	CHECK(nuprobes == 1 && noverlays == 2);	/* one site, two probes */
	CHECK(uprobes[0].up.kind == 0 && uprobes[0].up.flags == 0);
	CHECK(ops->enable(pv, sess, ret) == 0);
	CHECK(nuprobes == 2);
	CHECK(uprobes[1].up.flags == DTRACE_UPROBE_RETURN);
	CHECK(uprobes[1].up.kind == 1);
	CHECK(uprobes[1].up.offset == uprobes[0].up.offset);
	CHECK(ops->enable(pv, sess, alias) == 0);
	CHECK(nuprobes == 3 && noverlays == 4);

	/* one refusal: said in full when tracing starts */
	last_warn[0] = '\0';
	CHECK(ops->enable(pv, sess, vex) == 0);
	CHECK(nuprobes == 3);
	CHECK(ops->start(pv, sess) == 0);
	snprintf(want, sizeof(want), "probe %s:a.out:vex_fn:entry skipped: "
		 "its instruction (vpxor) is VEX-encoded, which uprobes "
		 "execute wrongly", prv);
	CHECK(strcmp(last_warn, want) == 0);
	if (strcmp(last_warn, want) != 0)
		fprintf(stderr, "warned: %s\n", last_warn);

	/* two refusals: one summary line */
	last_warn[0] = '\0';
	CHECK(ops->enable(pv, sess, bad) == 0);
	CHECK(ops->enable(pv, sess, vex) == 0);
	CHECK(ops->start(pv, sess) == 0);
	snprintf(want, sizeof(want), "2 probes skipped, 1 of them on "
		 "VEX/EVEX/XOP-encoded instructions, which uprobes execute "
		 "wrongly (first: probe %s:a.out:add:1 skipped: offset 0x1 is "
		 "not an instruction boundary)", prv);
	CHECK(strcmp(last_warn, want) == 0);
	if (strcmp(last_warn, want) != 0)
		fprintf(stderr, "warned: %s\n", last_warn);
}

static void test_args(const char *prv)
{
	dtrace_argdesc_t a[DTRACE_ARGS_MAX];
	dtrace_probe_t *p;

	if ((p = find(prv, "a.out", "add", "entry")) != NULL) {
		CHECK(ops->probe_args(pv, sess, p, a) == 10);
		CHECK(strcmp(a[9].native, "uint64_t") == 0);
	}
	if ((p = find(prv, "a.out", "add", "return")) != NULL)
		CHECK(ops->probe_args(pv, sess, p, a) == 2);
	if ((p = find(prv, "a.out", "add", "0")) != NULL)
		CHECK(ops->probe_args(pv, sess, p, a) == 0);
}

/* ---- the trampolines in the kernel -------------------------------------- */

/* prologue (R6 = ctx, R7 = the map's value), trampoline, exit */
static int load_trampoline(int kind, int map_fd)
{
	dtrace_emitter_t *em = calloc(1, sizeof(*em));
	int skip, fd;

	h_emit(em, DT_MOV64_REG(6, 1));
	h_emit(em, DT_STORE_IMM(BPF_W, 10, -4, 0));
	h_emit(em, DT_LD_IMM64_LO(1, BPF_PSEUDO_MAP_FD, map_fd));
	h_emit(em, DT_LD_IMM64_HI(map_fd));
	h_emit(em, DT_MOV64_REG(2, 10));
	h_emit(em, DT_ALU64_IMM(BPF_ADD, 2, -4));
	h_emit(em, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	skip = h_label_new(em);
	h_jump(em, BPF_JEQ, 0, 0, skip);
	h_emit(em, DT_MOV64_REG(7, 0));
	dtrace_trampoline_t tr = {
		.size = sizeof(tr), .kind = kind, .skip = skip,
		.args_read = ~0ull, .prefilter_pass = -1,
	};
	CHECK(ops->trampoline(pv, sess, em, &tr) == 0);
	h_label_place(em, skip);
	h_emit(em, DT_MOV64_IMM(0, 0));
	h_emit(em, DT_EXIT());
	em_finish(em);
	{
		char log[65536] = "";
		LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
			    .log_size = sizeof(log), .log_level = 1);

		fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "pid_test", "GPL",
				   em->insn, em->n, &o);
		if (fd < 0)
			fprintf(stderr, "verifier: %s\n", log);
	}
	free(em);
	return fd;
}

static int uprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

static int attach(int prog, const char *path, uint64_t off, bool ret, pid_t pid)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = uprobe_type(),
				     .config1 = (uint64_t)(uintptr_t)path,
				     .config2 = off, .config = ret ? 1 : 0 };
	int fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) != 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Enable p; the index of the underlying probe it added, or -1. */
static int enable_new_uprobe(dtrace_probe_t *p)
{
	int before = nuprobes;

	ops->enable(pv, sess, p);
	return nuprobes > before ? nuprobes - 1 : -1;
}

/* Run the target's loop with the trampolines attached to sum8's entry and
 * add's return, and check what they stored. */
static void test_trampolines(const char *prv, pid_t pid, int tochild)
{
	dtrace_probe_t *sum8 = find(prv, "a.out", "sum8", "entry");
	dtrace_probe_t *addret = find(prv, "a.out", "add", "return");
	dtrace_mstate_t m1, m2;
	int map1, map2, p1, p2, l1 = -1, l2 = -1, u1, u2, key = 0, i;

	map1 = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m1", 4, sizeof(m1), 1, NULL);
	map2 = bpf_map_create(BPF_MAP_TYPE_ARRAY, "m2", 4, sizeof(m2), 1, NULL);
	if (map1 < 0 || map2 < 0 || !sum8 || !addret) {
		fprintf(stderr, "no maps (%s): trampolines not run\n",
			strerror(errno));
		failures++;
		return;
	}
	p1 = load_trampoline(0, map1);
	p2 = load_trampoline(1, map2);
	CHECK(p1 >= 0 && p2 >= 0);
	u1 = enable_new_uprobe(sum8);
	/* add:return is enabled already: its uprobe is the second */
	u2 = 1;
	CHECK(u1 >= 0);
	if (p1 >= 0 && u1 >= 0)
		l1 = attach(p1, uprobes[u1].path, uprobes[u1].up.offset, false,
			    pid);
	if (p2 >= 0)
		l2 = attach(p2, uprobes[u2].path, uprobes[u2].up.offset, true,
			    pid);
	CHECK(l1 >= 0 && l2 >= 0);
	CHECK(write(tochild, "go\n", 3) == 3);
	waitpid(pid, NULL, 0);
	CHECK(bpf_map_lookup_elem(map1, &key, &m1) == 0);
	CHECK(bpf_map_lookup_elem(map2, &key, &m2) == 0);
	for (i = 0; i < 8; i++)
		CHECK(m1.argv[i] == (uint64_t)i + 1);	/* 7, 8 on the stack */
	CHECK(m1.regs_ip != 0);
	/* the last call was add(2, 3) */
	CHECK(m2.argv[0] == 0 && m2.argv[1] == 5);
	CHECK(m2.regs_ip != 0);
	if (m2.argv[1] != 5 || m1.argv[7] != 8 || getenv("V"))
		fprintf(stderr, "sum8 args %llu..%llu, add returned %llu\n",
			(unsigned long long)m1.argv[0],
			(unsigned long long)m1.argv[7],
			(unsigned long long)m2.argv[1]);
	close(l1);
	close(l2);
	close(p1);
	close(p2);
	close(map1);
	close(map2);
}

static pid_t start_target(const char *prog, int *tochild)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	if ((pid = unit_fork()) == 0) {
		dup2(fds[0], 0);
		close(fds[1]);
		execl(prog, prog, "-w", "-v", "3", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	*tochild = fds[1];
	usleep(200000);		/* let it load its libraries */
	return pid;
}

int main(void)
{
	const char *b = getenv("B") ? getenv("B") : "build";
	char so[4096], prog[4096], prv[32];
	dtrace_provider_init_f init;
	int tochild = -1;
	void *h;
	pid_t pid;

	snprintf(so, sizeof(so), "%s/plugins/pid.so", b);
	snprintf(prog, sizeof(prog), "%s/test/progs/pidtarget", b);
	if (access(so, R_OK) != 0 || access(prog, X_OK) != 0) {
		fprintf(stderr, "no %s or %s: skipped\n", so, prog);
		return 77;
	}
	if ((h = dlopen(so, RTLD_NOW | RTLD_LOCAL)) == NULL ||
	    (init = (dtrace_provider_init_f)dlsym(h, DTRACE_PROVIDER_INIT)) ==
	    NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	ops = init(&host);
	CHECK(ops != NULL && strcmp(ops->name, "pid") == 0);
	sess = ops->attach_session(pv);
	CHECK(sess != NULL);
	/* no pid given, none looked into yet: nothing */
	CHECK(provide("pid*", "", "", "entry") == 0);
	CHECK(provide("", "", "", "") == 0);

	if ((pid = start_target(prog, &tochild)) < 0)
		return 1;
	snprintf(prv, sizeof(prv), "pid%d", (int)pid);
	test_provide(pid, prv);
	test_offsets(prv);
	test_bad_pid();
	test_args(prv);
	test_enable(prv);
	if (getenv("V"))
		fprintf(stderr, "%u probes, %d uprobes, %d overlays\n",
			nprobes, nuprobes, noverlays);
	/* a glob now matches the process looked into */
	CHECK(provide("pid*", "a.out", "sum8", "return") == 1);
	test_trampolines(prv, pid, tochild);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (uint32_t i = 0; i < nprobes; i++) {
		ops->free_priv(sess, probes[i]->priv);
		for (int j = 0; j < 4; j++)
			free(probes[i]->name[j]);
		free(probes[i]);
	}
	ops->detach_session(pv, sess);
	dt_elf_cache_destroy(elf_cache);
	dlclose(h);
	if (failures)
		fprintf(stderr, "test_pid: %d failures\n", failures);
	return failures ? 1 : 0;
}
