/* SPDX-License-Identifier: MIT */
/*
 * test_bpf.c: maps, program loading and uprobe attachment (dt_bpf.c),
 * against the real kernel.
 *
 * A hand-assembled program counts its firings per attach cookie in an ARRAY
 * map ("counts") and sums a register of the context per cookie ("sums": the
 * first argument at entry, the return value at return).  It is attached to
 * test/progs/uprobe_target, whose target_fn(x) returns 2 * x and is called
 * for x = 1 .. N each round, and target_fn2 for x = 1 .. N / 2.  Every
 * attachment test runs with uprobe_multi links and with the perf-event
 * fallback (-x uprobe=perf).
 *
 * The target is $UPROBE_TARGET, else $B/test/progs/uprobe_target (B
 * defaults to build), else it is compiled from test/progs/uprobe_target.c.
 * Needs root; exits 77 (skip) when BPF is not usable at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dt_bpf.h"
#include "unit_proc.h"
#include "dt_impl.h"

#define N_CALLS		10	/* target_fn calls per round */
#define COOKIE_FN	7
#define COOKIE_FN2	9
#define NCOOKIES	16

/* struct pt_regs on x86_64 */
#define PT_REGS_AX	80
#define PT_REGS_DI	112

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

static char target_path[4096];
static uint64_t off_fn, off_fn2, target_size;

/*
 * The target process
 */

typedef struct target {
	pid_t pid;
	FILE *in, *out;
} target_t;

static int target_start(target_t *t)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0)
		return -1;
	t->pid = unit_fork();
	if (t->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(target_path, target_path, "10", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = fdopen(to[1], "w");
	t->out = fdopen(from[0], "r");
	long pid = 0;
	if (fscanf(t->out, "%ld", &pid) != 1 || pid != t->pid)
		return -1;
	return 0;
}

/* One round of calls; returns the sum the target printed. */
static long target_round(target_t *t)
{
	long sum = -1;

	fputc('\n', t->in);
	fflush(t->in);
	if (fscanf(t->out, " done %ld", &sum) != 1)
		return -1;
	return sum;
}

static void target_stop(target_t *t)
{
	int status;

	fclose(t->in);
	fclose(t->out);
	waitpid(t->pid, &status, 0);
}

/* Run a whole target process through one round. */
static void target_once(void)
{
	target_t t;

	if (target_start(&t) == 0)
		CHECK(target_round(&t) == N_CALLS * (N_CALLS + 1), "round");
	target_stop(&t);
}

/*
 * ELF: a function's file offset, through the PT_LOAD that holds it.
 */

static int sym_value(Elf *elf, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; data != NULL && i < n; i++) {
			GElf_Sym sym;
			if (gelf_getsym(data, (int)i, &sym) == NULL)
				continue;
			const char *s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s != NULL && strcmp(s, name) == 0 &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				*value = sym.st_value;
				return 0;
			}
		}
	}
	return -1;
}

static int func_file_offset(const char *path, const char *name,
			    uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	int rc = -1;
	size_t nph;
	uint64_t value;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf == NULL || sym_value(elf, name, &value) < 0 ||
	    elf_getphdrnum(elf, &nph) != 0)
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD || value < ph.p_vaddr ||
		    value >= ph.p_vaddr + ph.p_filesz)
			continue;
		*off = value - ph.p_vaddr + ph.p_offset;
		rc = 0;
		break;
	}
out:
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return rc;
}

static int find_target(void)
{
	const char *env = getenv("UPROBE_TARGET");
	const char *b = getenv("B");
	struct stat st;

	if (env != NULL)
		snprintf(target_path, sizeof(target_path), "%s", env);
	else
		snprintf(target_path, sizeof(target_path),
			 "%s/test/progs/uprobe_target", b ? b : "build");
	if (access(target_path, X_OK) != 0) {
		snprintf(target_path, sizeof(target_path),
			 "/tmp/dt_uprobe_target.%d", (int)getpid());
		char cmd[8192];
		snprintf(cmd, sizeof(cmd), "cc -O1 -g -fno-inline -o %s "
			 "test/progs/uprobe_target.c", target_path);
		if (system(cmd) != 0)
			return -1;
	}
	/* the kernel wants an absolute path for a stable inode lookup */
	char *abs = realpath(target_path, NULL);
	if (abs == NULL)
		return -1;
	snprintf(target_path, sizeof(target_path), "%s", abs);
	free(abs);
	if (stat(target_path, &st) < 0)
		return -1;
	target_size = (uint64_t)st.st_size;
	if (func_file_offset(target_path, "target_fn", &off_fn) < 0 ||
	    func_file_offset(target_path, "target_fn2", &off_fn2) < 0)
		return -1;
	return 0;
}

/*
 * The program
 */

/* counts[cookie] += 1; sums[cookie] += *(u64 *)(ctx + regoff) */
static void emit_counter(dt_as_t *as, dtrace_map_t *counts,
			 dtrace_map_t *sums, int regoff)
{
	int out = dt_as_label(as);

	dt_as_emit(as, DT_MOV64_REG(DT_R6, DT_R1));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_get_attach_cookie));
	dt_as_emit(as, DT_STORE(BPF_W, DT_FP, -4, DT_R0));
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R9, DT_R6, regoff));
	dt_as_load_map(as, DT_R1, counts);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -4));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	dt_as_emit(as, DT_MOV64_IMM(DT_R1, 1));
	dt_as_emit(as, DT_XADD(BPF_DW, DT_R0, 0, DT_R1));
	dt_as_load_map(as, DT_R1, sums);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -4));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	dt_as_emit(as, DT_XADD(BPF_DW, DT_R0, 0, DT_R9));
	dt_as_place(as, out);
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
}

typedef struct session {
	dtrace_hdl_t h;
	dtrace_map_t *counts, *sums;
	int prog;
	bool perf;
} session_t;

static int session_open(session_t *s, bool perf, int regoff)
{
	dt_as_t as;

	memset(s, 0, sizeof(*s));
	s->perf = perf;
	s->h.opt.uprobe_mech = perf ? "perf" : NULL;
	dt_bpf_init(&s->h);
	s->counts = dt_bpf_map(&s->h, "counts", BPF_MAP_TYPE_ARRAY, 4, 8,
			       NCOOKIES);
	s->sums = dt_bpf_map(&s->h, "sums", BPF_MAP_TYPE_ARRAY, 4, 8,
			     NCOOKIES);
	if (s->counts == NULL || s->sums == NULL ||
	    dt_bpf_maps_create(&s->h) < 0)
		return -1;
	dt_as_init(&as);
	emit_counter(&as, s->counts, s->sums, regoff);
	CHECK(dt_as_finish(&as) == 0, "assemble");
	s->prog = dt_bpf_prog_load(&s->h, "test_counter", &as);
	dt_as_fini(&as);
	CHECK(s->prog >= 0, "%s", s->h.errmsg);
	return s->prog >= 0 ? 0 : -1;
}

static uint64_t map_u64(const dtrace_map_t *m, uint32_t key)
{
	uint64_t v = ~0ull;
	CHECK(dt_bpf_map_lookup(m, &key, &v) == 0, "lookup %s[%u]", m->name,
	      key);
	return v;
}

/* Attach at target_fn (COOKIE_FN) and target_fn2 (COOKIE_FN2). */
static int attach_both(session_t *s, pid_t pid, bool ret, uint32_t *nfailed)
{
	uint64_t offs[] = { off_fn, off_fn2 };
	uint64_t cookies[] = { COOKIE_FN, COOKIE_FN2 };
	dt_attach_req_t req = {
		.prog_fd = s->prog, .path = target_path, .pid = pid,
		.retprobe = ret, .n = 2, .offsets = offs, .cookies = cookies,
		.nfailed = nfailed,
	};
	return dt_bpf_attach_uprobes(&s->h, &req);
}

/*
 * Tests
 */

static void test_maps(void)
{
	dtrace_hdl_t h;

	memset(&h, 0, sizeof(h));
	dt_bpf_init(&h);
	dtrace_map_t *m = dt_bpf_map(&h, "agg-1", BPF_MAP_TYPE_HASH, 8, 16, 4);
	CHECK(m != NULL && m->fd == -1, "lazy creation");
	CHECK(dt_bpf_map(&h, "agg-1", BPF_MAP_TYPE_HASH, 8, 32, 2) == m,
	      "same map by name");
	CHECK(m->vsize == 32 && m->nentries == 4, "grows before creation: "
	      "%u %u", m->vsize, m->nentries);
	CHECK(dt_bpf_map(&h, "agg-1", BPF_MAP_TYPE_ARRAY, 8, 16, 4) == NULL,
	      "type mismatch is an error");
	CHECK(dt_bpf_map_find(&h, "agg-1") == m, "find");
	CHECK(dt_bpf_map_find(&h, "nosuch") == NULL, "find missing");
	CHECK(dt_bpf_maps_create(&h) == 0, "%s", h.errmsg);
	CHECK(m->fd >= 0, "created");
	CHECK(dt_bpf_map(&h, "agg-1", BPF_MAP_TYPE_HASH, 8, 64, 4) == NULL,
	      "cannot grow after creation");
	CHECK(strstr(h.errmsg, "already created") != NULL, "%s", h.errmsg);

	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	CHECK(bpf_obj_get_info_by_fd(m->fd, &info, &len) == 0 &&
	      info.value_size == 32 && info.max_entries == 4 &&
	      (info.map_flags & BPF_F_NO_PREALLOC), "kernel sizes and flags");
	CHECK(strcmp(info.name, "agg_1") == 0, "object name '%s'", info.name);

	uint64_t key = 42, val[4] = { 1, 2, 3, 4 }, got[4] = { 0 };
	CHECK(dt_bpf_map_update(m, &key, val) == 0, "update");
	CHECK(dt_bpf_map_lookup(m, &key, got) == 0 && got[3] == 4, "lookup");

	/* created at once after realization */
	dtrace_map_t *late = dt_bpf_map(&h, "late", BPF_MAP_TYPE_ARRAY, 4, 8,
					1);
	CHECK(late != NULL && late->fd >= 0, "created at once");

	/* pinned */
	char pin[64];
	snprintf(pin, sizeof(pin), "/sys/fs/bpf/dt_test_bpf_%d", (int)getpid());
	if (bpf_obj_pin(late->fd, pin) == 0) {
		dtrace_map_t *p = dt_bpf_map_pinned(&h, pin);
		CHECK(p != NULL && p->pinned && p->type == BPF_MAP_TYPE_ARRAY &&
		      p->ksize == 4 && p->vsize == 8 && p->nentries == 1,
		      "pinned map info");
		CHECK(dt_bpf_map_pinned(&h, pin) == p, "pinned map once");
		unlink(pin);
	} else {
		CHECK(0, "bpf_obj_pin: %s", strerror(errno));
	}
	CHECK(dt_bpf_map_pinned(&h, "/sys/fs/bpf/dt_no_such_map") == NULL &&
	      strstr(h.errmsg, "No such file") != NULL, "%s", h.errmsg);
	dt_bpf_fini(&h);
	CHECK(h.bpf == NULL, "fini");
}

/* Many elements at once: in batches on an array and a hash, one by one
 * on a map that takes no batches (an LPM trie); each then reads back. */
static void test_map_batches(void)
{
	dtrace_hdl_t h;
	uint32_t keys[6] = { 5, 0, 3, 1, 4, 2 };
	uint64_t vals[6] = { 50, 0, 30, 10, 40, 20 }, got = 0;

	memset(&h, 0, sizeof(h));
	dt_bpf_init(&h);
	dtrace_map_t *a = dt_bpf_map(&h, "batch-a", BPF_MAP_TYPE_ARRAY, 4, 8,
				     6);
	dtrace_map_t *m = dt_bpf_map(&h, "batch-h", BPF_MAP_TYPE_HASH, 4, 8,
				     8);
	CHECK(dt_bpf_maps_create(&h) == 0, "%s", h.errmsg);
	CHECK(dt_bpf_map_update_many(a, keys, vals, 6) == 0, "array batch");
	CHECK(dt_bpf_map_update_many(m, keys, vals, 6) == 0, "hash batch");
	CHECK(dt_bpf_map_update_many(m, keys, vals, 0) == 0, "no elements");
	for (int i = 0; i < 6; i++) {
		CHECK(dt_bpf_map_lookup(a, &keys[i], &got) == 0 &&
		      got == vals[i], "array %u: %llu", keys[i],
		      (unsigned long long)got);
		CHECK(dt_bpf_map_lookup(m, &keys[i], &got) == 0 &&
		      got == vals[i], "hash %u: %llu", keys[i],
		      (unsigned long long)got);
	}

	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	struct { uint32_t prefixlen, addr; } lk[2] = { { 32, 1 }, { 32, 2 } };
	dtrace_map_t lpm = { .fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE,
		"batch_lpm", 8, 8, 4, &o), .type = BPF_MAP_TYPE_LPM_TRIE,
		.ksize = 8, .vsize = 8, .nentries = 4 };
	CHECK(lpm.fd >= 0, "LPM trie: %s", strerror(errno));
	CHECK(dt_bpf_map_update_many(&lpm, lk, vals, 2) == 0,
	      "one by one where batches are refused");
	CHECK(dt_bpf_map_lookup(&lpm, &lk[1], &got) == 0 && got == vals[1],
	      "LPM trie: %llu", (unsigned long long)got);
	close(lpm.fd);
	dt_bpf_fini(&h);
}

static void test_features(void)
{
	dtrace_hdl_t h;

	memset(&h, 0, sizeof(h));
	uint64_t t0 = dt_now_ns();
	const dt_features_t *f = dt_bpf_features(&h);
	uint64_t t1 = dt_now_ns();
	printf("features: uprobe_multi %d ringbuf %d cookie %d loop %d "
	       "(%.2f ms)\n", f->uprobe_multi, f->ringbuf, f->attach_cookie,
	       f->loop, (double)(t1 - t0) / 1e6);
	/* this machine runs 6.18 */
	CHECK(f->probed && f->uprobe_multi && f->ringbuf && f->attach_cookie &&
	      f->loop, "all features on this kernel");
	CHECK(dt_bpf_check_features(&h) == 0, "%s", h.errmsg);
	dt_bpf_fini(&h);
}

static void test_load_error(void)
{
	dtrace_hdl_t h;
	dt_as_t as;

	memset(&h, 0, sizeof(h));
	dt_bpf_init(&h);
	dt_as_init(&as);
	dt_as_emit(&as, DT_MOV64_IMM(DT_R1, 0));
	dt_as_emit(&as, DT_LOAD(BPF_DW, DT_R2, DT_R1, 8));  /* NULL deref */
	dt_as_emit(&as, DT_EXIT());
	dt_as_finish(&as);
	CHECK(dt_bpf_prog_load(&h, "bad", &as) < 0, "must not load");
	CHECK(strncmp(h.errmsg, "failed to load program bad: Permission "
		      "denied: R1 invalid mem access 'scalar' (at 1: (79) "
		      "r2 = *(u64 *)(r1 +8))", 200) == 0, "message: %s",
	      h.errmsg);
	CHECK(h.bpf->verifier_log != NULL &&
	      strstr(h.bpf->verifier_log, "processed") != NULL, "whole log");
	dt_as_fini(&as);

	/* an unfinished emitter and a sticky error are reported too */
	dt_as_init(&as);
	int l = dt_as_label(&as);
	dt_as_jump(&as, BPF_JA, 0, 0, l);
	CHECK(dt_as_finish(&as) < 0, "unplaced label");
	CHECK(dt_bpf_prog_load(&h, "unfinished", &as) < 0 &&
	      strstr(h.errmsg, "failed to load program unfinished: ") != NULL,
	      "%s", h.errmsg);
	dt_as_fini(&as);
	dt_bpf_fini(&h);
}

static void test_attach(bool perf)
{
	session_t s;
	target_t t;
	uint32_t nfailed = 99;

	if (session_open(&s, perf, PT_REGS_DI) < 0)
		goto out;
	uint64_t t0 = dt_now_ns();
	int rc = attach_both(&s, 0, false, &nfailed);
	printf("%s: attach 2 sites %.2f ms\n", perf ? "perf" : "multi",
	       (double)(dt_now_ns() - t0) / 1e6);
	CHECK(rc == 0 && nfailed == 0, "attach: %s", s.h.errmsg);
	CHECK(target_start(&t) == 0, "start target");
	CHECK(target_round(&t) == 110, "round");
	CHECK(target_round(&t) == 110, "round");
	target_stop(&t);
	CHECK(map_u64(s.counts, COOKIE_FN) == 2 * N_CALLS, "%s count %llu",
	      perf ? "perf" : "multi",
	      (unsigned long long)map_u64(s.counts, COOKIE_FN));
	CHECK(map_u64(s.counts, COOKIE_FN2) == N_CALLS, "count2");
	CHECK(map_u64(s.sums, COOKIE_FN) == 2 * 55, "arg sum");
	CHECK(map_u64(s.sums, COOKIE_FN2) == 2 * 15, "arg sum2");
	CHECK(map_u64(s.counts, 0) == 0, "no cookie-less firing");

	/* Closing the session detaches: a map fd kept past fini sees no
	 * more firings. */
	int keep = dup(s.counts->fd);
	t0 = dt_now_ns();
	dt_bpf_fini(&s.h);
	printf("%s: detach %.2f ms\n", perf ? "perf" : "multi",
	       (double)(dt_now_ns() - t0) / 1e6);
	target_once();
	uint32_t key = COOKIE_FN;
	uint64_t v = 0;
	CHECK(bpf_map_lookup_elem(keep, &key, &v) == 0 && v == 2 * N_CALLS,
	      "still attached after fini: %llu", (unsigned long long)v);
	close(keep);
	return;
out:
	dt_bpf_fini(&s.h);
}

static void test_pid_filter(bool perf)
{
	session_t s;
	target_t a, b;

	if (session_open(&s, perf, PT_REGS_DI) < 0)
		goto out;
	CHECK(target_start(&a) == 0 && target_start(&b) == 0, "start");
	CHECK(attach_both(&s, a.pid, false, NULL) == 0, "%s", s.h.errmsg);
	target_round(&a);
	target_round(&b);
	target_round(&b);
	target_stop(&a);
	target_stop(&b);
	CHECK(map_u64(s.counts, COOKIE_FN) == N_CALLS, "%s pid filter: %llu",
	      perf ? "perf" : "multi",
	      (unsigned long long)map_u64(s.counts, COOKIE_FN));
out:
	dt_bpf_fini(&s.h);
}

static void test_retprobe(bool perf)
{
	session_t s;

	if (session_open(&s, perf, PT_REGS_AX) < 0)
		goto out;
	CHECK(attach_both(&s, 0, true, NULL) == 0, "%s", s.h.errmsg);
	target_once();
	CHECK(map_u64(s.counts, COOKIE_FN) == N_CALLS, "ret count");
	CHECK(map_u64(s.sums, COOKIE_FN) == 110, "%s sum of return values: "
	      "%llu", perf ? "perf" : "multi",
	      (unsigned long long)map_u64(s.sums, COOKIE_FN));
	CHECK(map_u64(s.sums, COOKIE_FN2) == 2 + 3 + 4 + 5 + 6, "ret sum2");
out:
	dt_bpf_fini(&s.h);
}

/* A site beyond the end of the file is refused by the kernel: it is
 * reported and skipped, the others work. */
static void test_rejected_site(bool perf)
{
	session_t s;
	uint32_t nfailed = 0;
	uint64_t offs[] = { off_fn, target_size + 4096, off_fn2 };
	uint64_t cookies[] = { COOKIE_FN, 3, COOKIE_FN2 };

	if (session_open(&s, perf, PT_REGS_DI) < 0)
		goto out;
	dt_attach_req_t req = {
		.prog_fd = s.prog, .path = target_path, .n = 3,
		.offsets = offs, .cookies = cookies, .nfailed = &nfailed,
	};
	fprintf(stderr, "(a warning about offset 0x%llx is expected)\n",
		(unsigned long long)offs[1]);
	CHECK(dt_bpf_attach_uprobes(&s.h, &req) == 0, "%s", s.h.errmsg);
	CHECK(nfailed == 1, "nfailed %u", nfailed);
	target_once();
	CHECK(map_u64(s.counts, COOKIE_FN) == N_CALLS, "good site 1");
	CHECK(map_u64(s.counts, COOKIE_FN2) == N_CALLS / 2, "good site 2");

	/* nothing attachable: an error */
	req.n = 1;
	req.offsets = offs + 1;
	fprintf(stderr, "(and another one)\n");
	CHECK(dt_bpf_attach_uprobes(&s.h, &req) < 0 && nfailed == 1 &&
	      strstr(s.h.errmsg, "failed to attach 1 uprobe to ") != NULL,
	      "%s", s.h.errmsg);
out:
	dt_bpf_fini(&s.h);
}

/* A dtrace killed with SIGKILL leaves nothing attached. */
static void test_killed(bool perf)
{
	session_t s;
	int ready[2];

	if (session_open(&s, perf, PT_REGS_DI) < 0 ||
	    pipe2(ready, O_CLOEXEC) < 0)
		goto out;
	pid_t child = unit_fork();
	if (child == 0) {
		/* the child shares the maps, attaches and waits to die */
		int rc = attach_both(&s, 0, false, NULL);
		char c = rc == 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char c = 0;
	CHECK(read(ready[0], &c, 1) == 1 && c == 'y', "child attached");
	target_once();
	CHECK(map_u64(s.counts, COOKIE_FN) == N_CALLS, "attached in child");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	target_once();
	CHECK(map_u64(s.counts, COOKIE_FN) == N_CALLS, "%s: still attached "
	      "after kill -9: %llu", perf ? "perf" : "multi",
	      (unsigned long long)map_u64(s.counts, COOKIE_FN));
	close(ready[0]);
	close(ready[1]);
out:
	dt_bpf_fini(&s.h);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf: needs root, skipped\n");
		return 77;
	}
	if (find_target() < 0) {
		fprintf(stderr, "test_bpf: no target program %s\n",
			target_path);
		return 1;
	}
	test_features();
	test_maps();
	test_map_batches();
	test_load_error();
	for (int perf = 0; perf <= 1; perf++) {
		test_attach(perf);
		test_pid_filter(perf);
		test_retprobe(perf);
		test_rejected_site(perf);
		test_killed(perf);
	}
	if (failures)
		fprintf(stderr, "test_bpf: %d failures\n", failures);
	else
		printf("test_bpf: ok\n");
	return failures ? 1 : 0;
}
