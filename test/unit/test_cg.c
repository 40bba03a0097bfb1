/* SPDX-License-Identifier: MIT */
/*
 * test_cg.c: the checker and the code generator (dt_check.c, dt_cg*.c).
 *
 * Each case parses a one-clause D program, compiles it with
 * dt_cg_clause() against a hand-made probe (two arguments: int and
 * char *), wraps the clause in a small program (look the mstate up, call
 * the clause) and loads it into the kernel, which must accept it; the
 * verifier log is printed when it does not.  Error cases must fail to
 * compile with the expected tag.  Needs root for the loads; without BPF
 * the load cases are skipped (exit 77 when nothing could be loaded).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_bpf.h"
#include "dt_btf.h"
#include "dt_cg_impl.h"

static dtrace_hdl_t hdl;
static dtrace_probe_t probe;
static int nfail, npass, nloaded;
static bool bpf_ok = true;

static void setup(void)
{
	memset(&hdl, 0, sizeof(hdl));
	hdl.types = dt_typetab_create();
	hdl.opt.strsize = 256;
	hdl.opt.bufsize = 1 << 20;
	hdl.opt.aggsize = 1 << 20;
	hdl.opt.destructive = false;
	dt_bpf_init(&hdl);

	probe.id = 1;
	static char prv[] = "test", mod[] = "mod", fun[] = "fun",
		    prb[] = "entry";
	probe.prv = prv;
	probe.mod = mod;
	probe.fun = fun;
	probe.prb = prb;
	dt_probe_args_alloc(&probe, 2);
	probe.argtypes[0] = dt_type_int(hdl.types, 4, true);
	probe.argtypes[1] = dt_type_ptr(hdl.types, dt_type_int(hdl.types, 1,
							       true));
	probe.args[0].mapping = 0;
	probe.args[1].mapping = 1;
}

static void teardown(void)
{
	dt_probe_args_alloc(&probe, 0);
	dt_cg_fini(&hdl);
	dt_btf_fini(&hdl);
	dt_bpf_fini(&hdl);
	dt_typetab_destroy(hdl.types);
}

/* Compile src; NULL and the tag in *tag on a compile error. */
static dt_compiled_clause_t *compile(const char *src, int *tag)
{
	dt_pcb_t pcb;
	dtrace_probe_t *probes[1] = { &probe };
	dt_compiled_clause_t *volatile cc = NULL;

	hdl.errmsg[0] = '\0';
	*tag = -1;
	dt_pcb_init(&pcb, &hdl, src, strlen(src), "x.d", false);
	if (setjmp(pcb.jb) != 0) {
		*tag = hdl.errtag;
		dt_pcb_fini(&pcb);
		return NULL;
	}
	dt_parse(&pcb);
	dt_cg_declare(&pcb, pcb.prog);
	for (dt_clause_ast_t *c = pcb.prog->clauses; c != NULL; c = c->next)
		cc = dt_cg_clause(&pcb, c, probes, 1);
	dt_pcb_fini(&pcb);
	return cc;
}

/* The test program: mstate = lookup(mstate, 0); clause(ctx, mstate). */
static int load_wrapped(dt_compiled_clause_t *cc)
{
	dt_as_t as;
	uint32_t msize = dt_cg_mstate_size(&hdl);
	dtrace_map_t *mst = dt_bpf_map(&hdl, "mstate",
				       BPF_MAP_TYPE_PERCPU_ARRAY, 4, msize, 1);

	dt_bpf_map(&hdl, "output", BPF_MAP_TYPE_RINGBUF, 0, 0, 1 << 20);
	dt_bpf_map(&hdl, "state", BPF_MAP_TYPE_ARRAY, 4, 8, DT_STATE_NSLOTS);
	dt_bpf_map(&hdl, "cpuinfo", BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		   sizeof(dt_cpuinfo_t), 1);
	dt_bpf_map(&hdl, "probedesc", BPF_MAP_TYPE_ARRAY, 4,
		   sizeof(dt_probedesc_rt_t), 2);
	if (mst == NULL || dt_bpf_maps_create(&hdl) < 0 ||
	    dt_cg_maps_init(&hdl) < 0) {
		fprintf(stderr, "maps: %s\n", hdl.errmsg);
		return -1;
	}
	dt_as_init(&as);
	int clause = dt_as_label(&as), out = dt_as_label(&as);
	dt_as_emit(&as, DT_MOV64_REG(DT_R6, DT_R1));
	dt_as_emit(&as, DT_STORE_IMM(BPF_W, DT_FP, -4, 0));
	dt_as_load_map(&as, DT_R1, mst);
	dt_as_emit(&as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(&as, DT_ALU64_IMM(BPF_ADD, DT_R2, -4));
	dt_as_emit(&as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(&as, BPF_JEQ, DT_R0, 0, out);
	dt_as_emit(&as, DT_MOV64_REG(DT_R1, DT_R6));
	dt_as_emit(&as, DT_MOV64_REG(DT_R2, DT_R0));
	dt_as_call(&as, clause);
	dt_as_place(&as, out);
	dt_as_emit(&as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(&as, DT_EXIT());
	dt_as_place(&as, clause);
	dt_as_append(&as, &cc->code);
	dt_as_finish(&as);
	int fd = dt_bpf_prog_load(&hdl, "test_cg", &as);
	dt_as_fini(&as);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* A fresh session per case, so that maps are sized for it. */
static void ok_case(const char *src, int line)
{
	int tag;

	setup();
	dt_compiled_clause_t *cc = compile(src, &tag);
	if (cc == NULL) {
		fprintf(stderr, "test_cg.c:%d: %s\n  compile error %s: %s\n",
			line, src, tag >= 0 ? dt_errtag_name(tag) : "?",
			hdl.errmsg);
		nfail++;
	} else if (bpf_ok && load_wrapped(cc) < 0) {
		fprintf(stderr, "test_cg.c:%d: %s\n  load failed: %s\n%s\n",
			line, src, hdl.errmsg, hdl.bpf && hdl.bpf->verifier_log
			? hdl.bpf->verifier_log : "");
		if (hdl.bpf && hdl.bpf->verifier_log &&
		    strstr(hdl.bpf->verifier_log, "Operation not permitted"))
			bpf_ok = false;
		nfail++;
	} else {
		nloaded += bpf_ok;
		npass++;
	}
	if (cc != NULL) {	/* the session frees its clauses this way */
		hdl.clauses = &cc;
		hdl.nclauses = 1;
	}
	teardown();
	if (cc != NULL) {
		dt_as_fini(&cc->code);
		free(cc);
	}
}

static void err_case(const char *src, dt_errtag_t want, int line)
{
	int tag;

	setup();
	dt_compiled_clause_t *cc = compile(src, &tag);
	if (cc != NULL || tag != (int)want) {
		fprintf(stderr, "test_cg.c:%d: %s\n  want %s, got %s: %s\n",
			line, src, dt_errtag_name(want),
			cc ? "success" : dt_errtag_name(tag), hdl.errmsg);
		nfail++;
	} else {
		npass++;
	}
	if (cc != NULL) {	/* the session frees its clauses this way */
		hdl.clauses = &cc;
		hdl.nclauses = 1;
	}
	teardown();
	if (cc != NULL) {
		dt_as_fini(&cc->code);
		free(cc);
	}
}

#define OK(src)		ok_case(src, __LINE__)
#define ERR(tag, src)	err_case(src, tag, __LINE__)

static void test_expressions(void)
{
	OK("BEGIN { }");
	OK("BEGIN { trace(1 + 2 * 3); }");
	OK("BEGIN { trace(arg0); trace(arg1 / (arg0 + 1)); }");
	OK("BEGIN { trace(arg0 % 7); trace(-arg0 >> 3); trace(~arg1); }");
	OK("BEGIN { x = 1; y = x << 4; trace(x ^ y | 3 & 1); }");
	OK("BEGIN { trace(arg0 < arg1 ? arg0 : arg1); }");
	OK("BEGIN { trace(arg0 && arg1 || !arg0 ^^ arg1); }");
	OK("BEGIN { trace((char)arg0); trace((unsigned short)arg1); }");
	OK("BEGIN { trace(sizeof (int)); trace(sizeof (arg0)); }");
	OK("BEGIN /arg0 > 3/ { trace(arg0); }");
	OK("BEGIN { a = 1; b = 2; c = 3; d = 4; e = 5;"
	   " trace(a + (b + (c + (d + (e + (a + (b + c))))))); }");
	OK("BEGIN { trace((unsigned)arg0 < -1); trace(arg0 == 3); }");
	OK("BEGIN { x = 3; x += 2; x -= 1; x *= 4; x /= 2; x %= 5; x <<= 1;"
	   " x >>= 1; x &= 7; x |= 8; x ^= 1; x++; ++x; x--; --x;"
	   " trace(x); }");
	OK("BEGIN { trace(args[0]); trace(args[1]); }");
	OK("BEGIN { trace(*args[1]); trace(args[1][3]); }");
}

static void test_builtins(void)
{
	OK("BEGIN { trace(pid); trace(tid); trace(uid); trace(gid); }");
	OK("BEGIN { trace(ppid); trace(vtimestamp); }");
	OK("BEGIN { trace(timestamp); trace(walltimestamp); trace(cpu); }");
	OK("BEGIN { trace(id); trace(epid); trace(errno); trace(ucaller); }");
	OK("BEGIN { trace(execname); trace(probeprov); trace(probemod);"
	   " trace(probefunc); trace(probename); }");
	OK("BEGIN { trace(uregs[R_PC]); trace(uregs[R_SP]); }");
	OK("BEGIN { trace(caller); trace(stackdepth); x = caller + stackdepth; }");
	OK("BEGIN { trace(curthread); trace(rand()); }");
}

static void test_variables(void)
{
	OK("BEGIN { x = 1; s = \"hello\"; trace(x); trace(s); }");
	OK("BEGIN { self->t = timestamp; trace(self->t); self->t = 0; }");
	OK("BEGIN { this->x = 5; this->s = execname; trace(this->x);"
	   " trace(this->s); }");
	OK("BEGIN { a[1, \"x\"] = 3; trace(a[1, \"x\"]); a[1, \"x\"] = 0; }");
	OK("BEGIN { self->a[pid] = execname; trace(self->a[pid]); }");
	OK("BEGIN { a[1] = 2; b[a[1]] = 3; trace(b[a[1]]); }");
	OK("BEGIN { s = execname; t = s; trace(s == t); trace(s < \"abc\"); }");
	OK("BEGIN { a[\"k\"]++; a[\"k\"] += 3; trace(a[\"k\"]); }");
	OK("int x; self int y; BEGIN { x = 1; self->y = 2; trace(x); }");
	OK("inline int N = 4 * 2; BEGIN { trace(N); }");
}

static void test_strings(void)
{
	OK("BEGIN { trace(copyinstr(arg1)); trace(copyinstr(arg1, 8)); }");
	OK("BEGIN { trace(strlen(execname)); }");
	OK("BEGIN { trace(strjoin(execname, \"-x\")); }");
	OK("BEGIN { trace(stringof(args[1])); }");
	OK("BEGIN { trace(strjoin(strjoin(\"a\", \"b\"), strjoin(\"c\", execname))); }");
	OK("BEGIN /execname == \"bash\"/ { trace(probefunc != \"main\"); }");
	OK("BEGIN { trace(substr(execname, 1)); trace(substr(\"abc\", -2, 1)); }");
	OK("BEGIN { trace(strchr(\"a/b\", '/')); }");
	OK("BEGIN { trace(index(execname, \"t\")); trace(rindex(\"aa\", \"a\", 1)); }");
	OK("BEGIN { trace(strstr(execname, \"ra\")); }");
	OK("BEGIN { trace(strrchr(execname, 'a')); trace(toupper(execname)); }");
	OK("BEGIN { trace(tolower(\"ABC\")); trace(basename(\"/a/b\")); }");
	OK("BEGIN { trace(dirname(\"/a/b\")); trace(lltostr(-1234)); }");
	OK("BEGIN { trace(progenyof(1)); }");
	OK("BEGIN { trace(toupper(strjoin(execname, substr(execname, 2)))); }");
}

static void test_actions(void)
{
	OK("BEGIN { printf(\"%d %s\\n\", pid, execname); }");
	OK("BEGIN { exit(0); }");
	OK("BEGIN { tracemem(arg1, 16); }");
	OK("BEGIN { if (arg0 > 1) { trace(1); } else { trace(2); } trace(3); }");
	OK("BEGIN { @ = count(); printa(@); clear(@); trunc(@, 3); }");
	OK("BEGIN { @a = sum(5); normalize(@a, 2); denormalize(@a); }");
	OK("BEGIN { setopt(\"quiet\"); setopt(\"bufsize\", \"4m\"); }");
}

static void test_aggregations(void)
{
	OK("BEGIN { @[probefunc] = count(); }");
	OK("BEGIN { @s[pid, execname] = sum(arg0); @a = avg(arg0); }");
	OK("BEGIN { @mn = min(arg0); @mx = max(arg0); @sd = stddev(arg0); }");
	OK("BEGIN { @q = quantize(arg0); @q2[1] = quantize(arg0, 3); }");
	OK("BEGIN { @l = lquantize(arg0, 0, 100, 10); }");
	OK("BEGIN { @l = lquantize(arg0, -10, 10); @l2 = lquantize(arg0, 0, 8, 2, 5); }");
	OK("BEGIN { @c[execname] = count(); printa(\"%s %@d\\n\", @c); }");
}

static void test_errors(void)
{
	ERR(D_IDENT_UNDEF, "BEGIN { trace(nosuch); }");
	OK("BEGIN { trace(self->nosuch); trace(this->nosuch); }");
	ERR(D_OP_INCOMPAT, "BEGIN { x = 1; x = \"s\"; }");
	ERR(D_FUNC_UNDEF, "BEGIN { nosuch(1); }");
	ERR(D_PROTO_LEN, "BEGIN { trace(1, 2); }");
	ERR(D_PROTO_ARG, "BEGIN { trace(strlen(1)); }");
	/* destructive actions compile; the enabling refuses them */
	OK("BEGIN { raise(9); }");
	OK("BEGIN { stop(); }");
	ERR(D_DIV_ZERO, "BEGIN { trace(1 / 0); }");
	ERR(D_ARGS_IDX, "BEGIN { trace(args[5]); }");
	ERR(D_AGG_REDEF, "BEGIN { @a = count(); @a = sum(1); }");
	ERR(D_PROTO_ARG, "BEGIN { @a[1] = count(); @a[\"x\"] = count(); }");
	ERR(D_PROTO_LEN, "BEGIN { @a[1] = count(); @a[1, 2] = count(); }");
	ERR(D_AGG_FUNC, "BEGIN { @a = 1; }");
	ERR(D_AGG_SCALAR, "BEGIN { @a = count(); trace(@a); }");
	ERR(D_OP_WRITE, "BEGIN { pid = 1; }");
	ERR(D_OP_INCOMPAT, "BEGIN { trace(\"a\" == 1); }");
	ERR(D_PROTO_ARG, "BEGIN { a[1] = 1; a[\"x\"] = 2; }");
	ERR(D_PRINTF_ARG_PROTO, "BEGIN { printf(\"%d\\n\"); }");
	ERR(D_FUNC_UNDEF, "BEGIN { trace(no_such_subr(\"a\")); }");
	ERR(D_PROTO_ARG, "BEGIN { trace(substr(1, 1)); }");
}

int main(void)
{
	test_errors();
	test_expressions();
	test_builtins();
	test_variables();
	test_strings();
	test_actions();
	test_aggregations();
	printf("test_cg: %d passed, %d failed (%d loaded)\n", npass, nfail,
	       nloaded);
	return nfail ? 1 : 0;
}
