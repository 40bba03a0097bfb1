/* SPDX-License-Identifier: MIT */
/*
 * test_usdt_prov.c: the usdt provider's operations (plugins/usdt/usdt_prov.c)
 * against a recording host: probe naming for pid-specific and glob
 * descriptions, argument types, what enable() asks the engine for (uprobes
 * with reference counters, overlays, per process or for all), and the
 * one-time warning for an argument that cannot be decoded.
 *
 * Two programs run while it tests: test/progs/sdt_args.c built at -O2, and a
 * small one written here whose probe has an argument read through %fs.
 * The plugin's sources are included (the plugin is not linked with the
 * engine); the host table is the test's own, so no engine object is
 * needed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit_elfhost.h"
#include "unit_proc.h"
#include "../../plugins/usdt/usdt_args.c"
#include "../../plugins/usdt/usdt_notes.c"
#include "../../plugins/usdt/usdt_tramp.c"
#include "../../plugins/usdt/usdt_proc.c"
#include "../../plugins/usdt/usdt_place.c"
#include "../../plugins/usdt/usdt_options.c"
#include "../../plugins/usdt/usdt_sub.c"
#include "../../plugins/usdt/usdt_prov.c"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			failures++;					\
		}							\
	} while (0)

/*
 * The recording host
 */

struct dtrace_probe {
	char *name[4];
	void *priv;
	unsigned attr;		/* from probe_attr() */
};

#define MAX_PROBES 256
#define MAX_UPROBES 64

struct dtrace_provider {	/* a fake handle: what the plugin did */
	dtrace_probe_t *probes[MAX_PROBES];
	int nprobes;
	dtrace_uprobe_t uprobes[MAX_UPROBES];
	char *uprobe_paths[MAX_UPROBES];
	int nuprobes;
	struct { int64_t cookie; pid_t pid; dtrace_probe_t *prp; } ovl[64];
	int novl;
	char warnings[4096];
	int nwarnings;
	char error[1024];
};

struct dtrace_map {
	int fd;
};

static void h_error(dtrace_provider_t *dtp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dtp->error, sizeof(dtp->error), fmt, ap);
	va_end(ap);
}

static void h_warn(dtrace_provider_t *dtp, const char *fmt, ...)
{
	size_t n = strlen(dtp->warnings);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dtp->warnings + n, sizeof(dtp->warnings) - n, fmt, ap);
	va_end(ap);
	n = strlen(dtp->warnings);
	snprintf(dtp->warnings + n, sizeof(dtp->warnings) - n, "\n");
	dtp->nwarnings++;
}

static dtrace_probe_t *h_lookup(dtrace_provider_t *dtp, const char *prv,
				const char *mod, const char *fun,
				const char *prb)
{
	const char *n[4] = { prv, mod, fun, prb };
	for (int i = 0; i < dtp->nprobes; i++) {
		int j = 0;
		while (j < 4 && strcmp(dtp->probes[i]->name[j], n[j]) == 0)
			j++;
		if (j == 4)
			return dtp->probes[i];
	}
	return NULL;
}

static dtrace_probe_t *h_insert(dtrace_provider_t *dtp, const char *prv,
				const char *mod, const char *fun,
				const char *prb, void *priv)
{
	dtrace_probe_t *p = h_lookup(dtp, prv, mod, fun, prb);
	if (p != NULL)
		return p;
	if (dtp->nprobes == MAX_PROBES) {
		errno = ENOSPC;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	p->name[0] = strdup(prv);
	p->name[1] = strdup(mod);
	p->name[2] = strdup(fun);
	p->name[3] = strdup(prb);
	p->priv = priv;
	dtp->probes[dtp->nprobes++] = p;
	return p;
}

static void *h_priv(const dtrace_probe_t *p) { return p->priv; }
static int h_attr(dtrace_provider_t *dtp, dtrace_probe_t *p, unsigned attr)
{
	p->attr |= attr;
	return 0;
}
static const char *h_name(const dtrace_probe_t *p, int f)
{
	return p->name[f];
}

static int h_glob(const char *pat, const char *s)
{
	return pat == NULL || *pat == '\0' || fnmatch(pat, s, 0) == 0;
}

static int64_t h_uprobe(dtrace_provider_t *dtp, const dtrace_uprobe_t *up)
{
	for (int i = 0; i < dtp->nuprobes; i++)
		if (strcmp(dtp->uprobe_paths[i], up->path) == 0 &&
		    dtp->uprobes[i].offset == up->offset &&
		    dtp->uprobes[i].pid == up->pid)
			return i + 1;
	if (dtp->nuprobes == MAX_UPROBES)
		return -ENOSPC;
	dtp->uprobes[dtp->nuprobes] = *up;
	dtp->uprobe_paths[dtp->nuprobes] = strdup(up->path);
	return ++dtp->nuprobes;
}

static int h_overlay(dtrace_provider_t *dtp, int64_t cookie, pid_t pid,
		     dtrace_probe_t *prp)
{
	dtp->ovl[dtp->novl].cookie = cookie;
	dtp->ovl[dtp->novl].pid = pid;
	dtp->ovl[dtp->novl].prp = prp;
	dtp->novl++;
	return 0;
}

static struct dtrace_map the_map = { -1 };

static dtrace_map_t *h_map_create(dtrace_provider_t *dtp, const char *name,
				  enum bpf_map_type type, uint32_t ksize,
				  uint32_t vsize, uint32_t n)
{
	CHECK(strcmp(name, USDT_SPECS_MAP) == 0 && ksize == 4 &&
	      vsize == sizeof(usdt_rtspec_t), "map %s", name);
	return &the_map;
}

static int h_map_fd(const dtrace_map_t *m) { return m->fd; }

static int ninsns;
static void h_emit(dtrace_emitter_t *em, struct bpf_insn insn)
{
	ninsns++;
}
static int h_label_new(dtrace_emitter_t *em) { return 1; }
static void h_label_place(dtrace_emitter_t *em, int l) { }
static void h_jump(dtrace_emitter_t *em, int op, int reg, int32_t imm, int l)
{
	ninsns++;
}
static void h_load_map(dtrace_emitter_t *em, int reg, dtrace_map_t *m)
{
	ninsns += 2;
}

/* What the plugin asks only in passing: no debug lines, a kernel whose
 * 5-byte nops trap, no exec watch, cold code inline. */
static void h_debug(dtrace_provider_t *dtp, const char *fmt, ...) { }
static int h_nop5(dtrace_provider_t *dtp) { return DTRACE_NOP5_TRAP; }
static int h_watch(dtrace_provider_t *dtp) { return 0; }
static int h_provide_again(dtrace_provider_t *dtp) { return 0; }
static const dtrace_probedesc_t *h_description(dtrace_provider_t *dtp,
					       size_t i)
{
	return NULL;
}
static dtrace_map_t *h_map_pinned(dtrace_provider_t *dtp, const char *path)
{
	return NULL;
}
static void h_cold(dtrace_emitter_t *em, int on) { }
static void h_call(dtrace_emitter_t *em, int label)
{
	ninsns++;
}

static const dtrace_host_report_t test_report = {
	.size = sizeof(dtrace_host_report_t),
	.error = h_error, .warn = h_warn, .debug = h_debug,
};
static const dtrace_host_probes_t test_probes = {
	.size = sizeof(dtrace_host_probes_t),
	.insert = h_insert, .lookup = h_lookup, .priv = h_priv,
	.name = h_name, .attr = h_attr, .glob_match = h_glob,
	.provide_again = h_provide_again, .description = h_description,
};
static const dtrace_host_sites_t test_sites = {
	.size = sizeof(dtrace_host_sites_t),
	.uprobe = h_uprobe, .overlay = h_overlay, .uprobe_nop5 = h_nop5,
	.watch_exec = h_watch, .gate_exec = h_watch,
};
static const dtrace_host_bpf_t test_bpf = {
	.size = sizeof(dtrace_host_bpf_t),
	.map_create = h_map_create, .map_pinned = h_map_pinned,
	.map_fd = h_map_fd, .emit = h_emit, .label_new = h_label_new,
	.label_place = h_label_place, .jump = h_jump, .load_map = h_load_map,
	.cold = h_cold, .call = h_call,
};
static const dtrace_host_t test_host = {
	.major = DTRACE_PROVIDER_MAJOR, .minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_host_t),
	.report = &test_report, .probes = &test_probes, .sites = &test_sites,
	.bpf = &test_bpf, .elf = &unit_host_elf, .proc = &unit_host_proc,
};

/*
 * The traced programs
 */

static char tmpdir[] = "/tmp/test_usdt_prov.XXXXXX";

static const char bad_src[] =
	"#include <sys/sdt.h>\n"
	"#include <unistd.h>\n"
	"void fire_bad(long x);\n"
	"void fire_bad(long x)\n"
	"{\n"
	"\t__asm__ volatile(\"mov %0, %%rax\" :: \"r\"(x) : \"rax\");\n"
	"\t__asm__ volatile(STAP_PROBE_ASM(bad_test, mixed,"
	" -4@%fs:8 8@%rax));\n"
	"}\n"
	"int main(void) { fire_bad(42); sleep(60); return 0; }\n";

static bool build(const char *src, const char *bin)
{
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "gcc -O2 -o %s %s", bin, src);
	return system(cmd) == 0;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = unit_fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait until pid has mapped its program and run its main. */
static void wait_started(pid_t pid, const char *ready)
{
	for (int i = 0; i < 200; i++) {
		struct stat sb;
		if (ready ? stat(ready, &sb) == 0 : i > 20)
			return;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	(void)pid;
}

static dtrace_probe_t *probe_named(dtrace_provider_t *dtp, const char *prv,
				   const char *prb)
{
	for (int i = 0; i < dtp->nprobes; i++)
		if (strcmp(dtp->probes[i]->name[0], prv) == 0 &&
		    strcmp(dtp->probes[i]->name[3], prb) == 0)
			return dtp->probes[i];
	return NULL;
}

static void test_provider(const char *sdt_bin, pid_t sdt_pid,
			  const char *bad_bin, pid_t bad_pid)
{
	static dtrace_provider_t h;
	dtrace_provider_t *dtp = &h;
	const dtrace_provider_ops_t *ops = dtrace_provider_init(&test_host);
	CHECK(ops->major == DTRACE_PROVIDER_MAJOR &&
	      strcmp(ops->name, "usdt") == 0, "ops");
	void *data = ops->attach_session(dtp);
	char prv[64];
	const char *module = strrchr(sdt_bin, '/') + 1;

	/* sdt_test<pid>: every probe of that process, with its pid. */
	snprintf(prv, sizeof(prv), "sdt_test%d", (int)sdt_pid);
	dtrace_probedesc_t pd = { prv, "", "", "" };
	int n = ops->provide(dtp, data, &pd);
	CHECK(n == 9, "sdt_test<pid>: %d probes (%s)", n, dtp->error);
	CHECK(ops->provide(dtp, data, &pd) == 0, "again: no new probes");
	dtrace_probe_t *p = probe_named(dtp, prv, "consts");
	CHECK(p && strcmp(p->name[1], module) == 0 &&
	      strcmp(p->name[2], "fire_consts") == 0,
	      "consts: %s:%s", p ? p->name[1] : "", p ? p->name[2] : "");

	/* Argument types from the note sizes. */
	dtrace_argdesc_t args[DTRACE_ARGS_MAX];
	static const char *const types[] = { "int8_t", "int16_t", "int",
					     "int64_t", "uint8_t", "uint16_t" };
	n = p ? ops->probe_args(dtp, data, p, args) : -1;
	CHECK(n == 6, "consts: %d args", n);
	for (int i = 0; i < n && i < 6; i++)
		CHECK(strcmp(args[i].native, types[i]) == 0 &&
		      args[i].xlate == NULL && args[i].mapping == i,
		      "consts arg %d: %s", i, args[i].native);

	/* A glob: probes without pid, one per site family.  The module is
	 * the binary's path, which only this test's processes map: by its
	 * name it would also match any other sdt_args on the machine (the
	 * test suite's own). */
	dtrace_probedesc_t glob = { "sdt_te*", sdt_bin, "", "guarded" };
	n = ops->provide(dtp, data, &glob);
	CHECK(n == 1, "sdt_te*: %d probes", n);
	dtrace_probe_t *g = probe_named(dtp, "sdt_test", "guarded");
	CHECK(g && strcmp(g->name[2], "fire_guarded") == 0, "guarded probe");
	/* it stands for the processes not seen yet, each named with its pid */
	CHECK(g && g->attr == DTRACE_PROBE_TEMPLATE, "guarded: a template");

	/* "__" is written "-" and matched that way; no match is 0. */
	dtrace_probedesc_t none = { "sdt_test", "", "", "no-such-probe" };
	CHECK(ops->provide(dtp, data, &none) == 0, "no match");

	/* enable: a uprobe for every process with the reference counter. */
	int base = dtp->nuprobes;
	CHECK(g && ops->enable(dtp, data, g) == 0, "enable guarded: %s",
	      dtp->error);
	CHECK(dtp->nuprobes == base + 1, "one uprobe");
	const dtrace_uprobe_t *up = &dtp->uprobes[base];
	const usdt_probe_t *pr = g ? g->priv : NULL;
	CHECK(pr && up->offset == pr->sites[0].note->offset &&
	      up->ref_ctr_offset == pr->sites[0].note->sema_offset &&
	      up->ref_ctr_offset != 0 && up->pid == 0 && up->kind == 0 &&
	      up->flags == 0, "guarded uprobe");
	CHECK(dtp->novl == 1 && dtp->ovl[0].pid == 0 && dtp->ovl[0].prp == g,
	      "guarded overlay");

	/* A process-specific probe: uprobe and overlay for that pid. */
	CHECK(p && ops->enable(dtp, data, p) == 0, "enable consts");
	CHECK(dtp->uprobes[dtp->nuprobes - 1].pid == sdt_pid &&
	      dtp->ovl[dtp->novl - 1].pid == sdt_pid, "consts pid");
	CHECK(dtp->nwarnings == 0, "warnings: %s", dtp->warnings);

	/* An argument that cannot be decoded: warned once, naming the probe;
	 * the probe is still enabled. */
	snprintf(prv, sizeof(prv), "bad_test%d", (int)bad_pid);
	dtrace_probedesc_t bd = { prv, "", "", "" };
	CHECK(ops->provide(dtp, data, &bd) == 1, "bad_test: %s", dtp->error);
	dtrace_probe_t *b = probe_named(dtp, prv, "mixed");
	CHECK(b && ops->enable(dtp, data, b) == 0, "enable bad");
	CHECK(b && ops->enable(dtp, data, b) == 0, "enable bad again");
	char want[256];
	snprintf(want, sizeof(want), "probe %s:%s:fire_bad:mixed: cannot decode"
		 " argument 0 (\"-4@%%fs:8\"): arg0 reads as 0\n", prv,
		 strrchr(bad_bin, '/') + 1);
	CHECK(dtp->nwarnings == 1 && strcmp(dtp->warnings, want) == 0,
	      "warning: '%s', expected '%s'", dtp->warnings, want);
	n = b ? ops->probe_args(dtp, data, b, args) : 0;
	CHECK(n == 2 && strcmp(args[1].native, "uint64_t") == 0, "bad args");

	/* The trampoline is emitted (the fake map has no fd: specs wait). */
	ninsns = 0;
	dtrace_trampoline_t tr = {
		.size = sizeof(tr), .kind = 0, .skip = 1, .args_read = ~0ull,
		.prefilter_pass = -1,
	};
	CHECK(ops->trampoline(dtp, data, NULL, &tr) == 0 && ninsns > 100,
	      "trampoline: %d insns", ninsns);

	/* A description naming no live process's pid is a plain name. */
	dtrace_probedesc_t dead = { "sdt_test999999999", "", "", "" };
	CHECK(ops->provide(dtp, data, &dead) == 0, "dead pid");

	for (int i = 0; i < dtp->nprobes; i++) {
		ops->free_priv(data, dtp->probes[i]->priv);
		for (int j = 0; j < 4; j++)
			free(dtp->probes[i]->name[j]);
		free(dtp->probes[i]);
	}
	for (int i = 0; i < dtp->nuprobes; i++)
		free(dtp->uprobe_paths[i]);
	ops->detach_session(dtp, data);
}

int main(void)
{
	char sdt_src[4096], sdt_bin[4200], bad_c[4200], bad_bin[4200];
	char ready[4200];
	const char *td = getenv("TESTDIR");

	snprintf(sdt_src, sizeof(sdt_src), "%s/progs/sdt_args.c",
		 td ? td : "test");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	snprintf(sdt_bin, sizeof(sdt_bin), "%s/sdt_args", tmpdir);
	snprintf(bad_c, sizeof(bad_c), "%s/bad.c", tmpdir);
	snprintf(bad_bin, sizeof(bad_bin), "%s/bad_args", tmpdir);
	snprintf(ready, sizeof(ready), "%s/ready", tmpdir);
	FILE *f = fopen(bad_c, "w");
	fputs(bad_src, f);
	fclose(f);
	if (!build(sdt_src, sdt_bin) || !build(bad_c, bad_bin)) {
		fprintf(stderr, "cannot build the test programs\n");
		return 1;
	}
	setenv("SDT_ARGS_READY", ready, 1);
	char arg0[] = "0", arg50[] = "50";
	char *sdt_argv[] = { sdt_bin, arg0, arg50, NULL };
	char *bad_argv[] = { bad_bin, NULL };
	pid_t sdt_pid = spawn(sdt_argv), bad_pid = spawn(bad_argv);
	wait_started(sdt_pid, ready);
	wait_started(bad_pid, NULL);

	test_provider(sdt_bin, sdt_pid, bad_bin, bad_pid);

	kill(sdt_pid, SIGKILL);
	kill(bad_pid, SIGKILL);
	waitpid(sdt_pid, NULL, 0);
	waitpid(bad_pid, NULL, 0);
	unlink(sdt_bin);
	unlink(bad_bin);
	unlink(bad_c);
	unlink(ready);
	rmdir(tmpdir);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
