/* SPDX-License-Identifier: MIT */
/*
 * test_usdt_gen.c: dtrace -h and dtrace -G through their entry points, on
 * the provider of test/usdt/prov.d built by hand (test/usdt/usdt_ast.h).
 *
 * Builds test/usdt/app.c as C and C++, at -O0, -O2 and -O3 -flto, PIE and
 * non-PIE, and test/usdt/lib.c as a shared library; checks the stapsdt notes
 * with readelf, that bpftrace lists the probes, that the programs run
 * silently with no dtprobed, the .dtrace_prov section, and the errors of -G
 * (not ELF, no probes, undeclared probe, wrong argument count, output equal
 * to an input) with the inputs left byte for byte as they were, and that -G
 * runs twice to the same result.
 *
 * It builds about twenty programs, some with -flto: a minute on a loaded
 * machine.
 * @timeout: 180
 *
 *	test_usdt_gen			run the checks (exit 0, 77 skip)
 *	test_usdt_gen gen DIR		only build DIR/{prov.h,app,app_lto,
 *					app_cxx,lib.so} for the shell tests
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_usdt_gen.h"
#include "../usdt/usdt_ast.h"
#include "unit_check.h"

static char srcdir[1024];	/* test/usdt */
static char dir[1024];		/* scratch */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	return st;
}

/* Output of a shell command (first 64 KiB), malloc'ed. */
static char *sh_out(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	if (p == NULL)
		return buf;
	n = fread(buf, 1, 65535, p);
	buf[n] = '\0';
	pclose(p);
	return buf;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

static bool same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *x = read_file(a, &la), *y = read_file(b, &lb);
	bool same = x && y && la == lb && memcmp(x, y, la) == 0;

	free(x);
	free(y);
	return same;
}

static void find_srcdir(void)
{
	const char *t = getenv("TESTDIR");

	if (t != NULL)
		snprintf(srcdir, sizeof(srcdir), "%s/usdt", t);
	else
		snprintf(srcdir, sizeof(srcdir), "test/usdt");
}

static int gen_link(dtrace_hdl_t *dtp, dt_program_ast_t *prog,
		    const char *out, const char *obj)
{
	char *objs[1] = { (char *)obj };

	return dt_link_generate(dtp, prog, out, objs, 1);
}

/* Build one program: compile src with flags, -G, link.  0 on success. */
static int build(dtrace_hdl_t *dtp, dt_program_ast_t *prog, const char *name,
		 const char *compiler, const char *src, const char *flags,
		 const char *ldflags)
{
	char obj[4600], gobj[4600], out[4600];

	snprintf(obj, sizeof(obj), "%s/%s.o", dir, name);
	snprintf(gobj, sizeof(gobj), "%s/%s_prov.o", dir, name);
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	if (sh("%s %s -I%s/../../include -I%s -c -o %s %s/%s", compiler, flags,
	       srcdir, dir, obj, srcdir, src) != 0)
		return -1;
	if (gen_link(dtp, prog, gobj, obj) != 0) {
		fprintf(stderr, "-G %s: %s\n", name, dtp->errmsg);
		return -1;
	}
	return sh("%s %s %s -o %s %s %s -ldl", compiler, flags, ldflags, out,
		  obj, gobj);
}

static int build_all(dtrace_hdl_t *dtp, dt_program_ast_t *prog)
{
	char hdr[4600];
	int rc = 0;

	snprintf(hdr, sizeof(hdr), "%s/prov.h", dir);
	if (dt_header_generate(dtp, prog, hdr) != 0) {
		fprintf(stderr, "-h: %s\n", dtp->errmsg);
		return -1;
	}
	rc |= build(dtp, prog, "app", "cc", "app.c", "-O2", "");
	rc |= build(dtp, prog, "app_O0", "cc", "app.c", "-O0 -g", "");
	rc |= build(dtp, prog, "app_lto", "cc", "app.c", "-O3 -flto", "");
	rc |= build(dtp, prog, "app_nopie", "cc", "app.c",
		    "-O2 -fno-pie", "-no-pie");
	rc |= build(dtp, prog, "app_cxx", "c++", "app.cc", "-O2", "");
	rc |= build(dtp, prog, "lib.so", "cc", "lib.c", "-O2 -fPIC",
		    "-shared");
	return rc;
}

/* The stapsdt notes of a file, "provider:name:args" per line. */
static char *notes(const char *file)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "readelf -n %s/%s | awk '"
		 "/Provider:/ {p=$2} /Name:/ {n=$2} "
		 "/Arguments:/ {$1=\"\"; print p \":\" n \":\" substr($0,2)}'"
		 " | sort -u", dir, file);
	return sh_out(cmd);
}

static void check_notes(const char *file, bool has_noargs)
{
	char *n = notes(file);

	CHECK(strstr(n, "myapp:tick:-4@") != NULL);
	CHECK(!has_noargs || strstr(n, "myapp:noargs:\n") != NULL);
	/* int then char *: "-4@... 8@..." */
	CHECK(strstr(n, "myapp:query__start:-4@") != NULL);
	CHECK(strstr(n, " 8@") != NULL);
	if (failures)
		fprintf(stderr, "%s notes:\n%s", file, n);
	free(n);
}

/*
 * An application run without dtprobed (its socket a path that does not
 * exist) says nothing and exits 0.  Its "enabled" line is left out: a
 * session that traces myapp*:::query-start (another test running at the
 * same time) raises the probe's semaphore in every process, this one's
 * too, and app.c then says so.
 */
static void check_runs_quietly(const char *app_and_args)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "o=$(DTPROBED_SOCKET=%s/nosock %s 2>&1); "
		 "r=$?; printf '%%s\\n' \"$o\" | grep -vx -e enabled -e ''; "
		 "echo rc=$r", dir, app_and_args);
	char *out = sh_out(cmd);
	CHECK(strcmp(out, "rc=0\n") == 0);
	if (strcmp(out, "rc=0\n") != 0)
		fprintf(stderr, "%s said:\n%s", app_and_args, out);
	free(out);
}

static void check_programs(void)
{
	static const char *const progs[] = {
		"app", "app_O0", "app_lto", "app_nopie", "app_cxx",
	};
	char cmd[8192], *out;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		check_notes(progs[i], true);
		/* No dtprobed: runs, prints nothing, exit 0. */
		snprintf(cmd, sizeof(cmd), "%s/%s 3", dir, progs[i]);
		check_runs_quietly(cmd);
	}
	check_notes("lib.so", false);
	snprintf(cmd, sizeof(cmd), "%s/app 2 0 dlopen %s/lib.so", dir, dir);
	check_runs_quietly(cmd);
	/* The non-PIE executable is ET_EXEC, the others ET_DYN. */
	snprintf(cmd, sizeof(cmd), "readelf -h %s/app_nopie | grep -c EXEC",
		 dir);
	out = sh_out(cmd);
	CHECK(strcmp(out, "1\n") == 0);
	free(out);
	/* The provider description travels in .dtrace_prov. */
	snprintf(cmd, sizeof(cmd), "readelf -x .dtrace_prov %s/app | "
		 "grep -c DTPV", dir);
	out = sh_out(cmd);
	CHECK(strcmp(out, "1\n") == 0);
	free(out);
}

static void check_bpftrace(void)
{
	char cmd[8192], *out;

	if (system("command -v bpftrace >/dev/null 2>&1") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "bpftrace -l 'usdt:%s/app:*' 2>&1 | sort",
		 dir);
	out = sh_out(cmd);
	CHECK(strstr(out, ":myapp:tick\n") != NULL);
	CHECK(strstr(out, ":myapp:query__start\n") != NULL);
	CHECK(strstr(out, ":myapp:noargs\n") != NULL);
	if (failures)
		fprintf(stderr, "bpftrace -l:\n%s", out);
	free(out);
}

/* -G must fail with msg in the error and leave obj untouched. */
static void check_link_error(dtrace_hdl_t *dtp, dt_program_ast_t *prog,
			     const char *obj, const char *msg)
{
	char copy[4600], out[4600];

	snprintf(copy, sizeof(copy), "%s.copy", obj);
	snprintf(out, sizeof(out), "%s/err_prov.o", dir);
	sh("cp %s %s", obj, copy);
	dtp->errmsg[0] = '\0';
	CHECK(gen_link(dtp, prog, out, obj) != 0);
	CHECK(strstr(dtp->errmsg, msg) != NULL);
	if (strstr(dtp->errmsg, msg) == NULL)
		fprintf(stderr, "expected \"%s\", got \"%s\"\n", msg,
			dtp->errmsg);
	CHECK(same_file(obj, copy));
	CHECK(access(out, F_OK) != 0);
}

static void check_errors(dtrace_hdl_t *dtp, dt_program_ast_t *prog)
{
	char path[4700], o1[4600], o2[4600], obj[4600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/notelf.o", dir);
	f = fopen(path, "w");
	fputs("this is not an object\n", f);
	fclose(f);
	check_link_error(dtp, prog, path, "not an ELF file");

	snprintf(path, sizeof(path), "%s/noprobes.o", dir);
	sh("echo 'int f(int x) { return x; }' | cc -x c -c -o %s -", path);
	check_link_error(dtp, prog, path, "no probe sites of provider myapp");

	snprintf(path, sizeof(path), "%s/undecl.o", dir);
	sh("printf '#include <dtrace/usdt.h>\\nDTRACE_USDT_DECLARE_SEMA(myapp,"
	   " bogus);\\nvoid f(void) { DTRACE_USDT_PROBE0(myapp, bogus); }\\n' "
	   "| cc -x c -I%s/../../include -c -o %s -", srcdir, path);
	check_link_error(dtp, prog, path, "myapp:::bogus is used but not "
			 "declared");

	snprintf(path, sizeof(path), "%s/nargs.o", dir);
	sh("printf '#include <dtrace/usdt.h>\\nDTRACE_USDT_DECLARE_SEMA(myapp,"
	   " tick);\\nvoid f(void) { DTRACE_USDT_PROBE0(myapp, tick); }\\n' "
	   "| cc -x c -I%s/../../include -c -o %s -", srcdir, path);
	check_link_error(dtp, prog, path, "fired with 0 arguments, declared "
			 "with 1");

	snprintf(path, sizeof(path), "%s/app_so.o", dir);	/* not ET_REL */
	sh("cp %s/lib.so %s", dir, path);
	check_link_error(dtp, prog, path, "not a 64-bit ELF relocatable");

	/* Twice over the same input: same output, input unchanged. */
	snprintf(obj, sizeof(obj), "%s/app.o", dir);
	snprintf(o1, sizeof(o1), "%s/twice1.o", dir);
	snprintf(o2, sizeof(o2), "%s/twice2.o", dir);
	sh("cp %s %s.orig", obj, obj);
	CHECK(gen_link(dtp, prog, o1, obj) == 0);
	CHECK(gen_link(dtp, prog, o2, obj) == 0);
	snprintf(path, sizeof(path), "%s.orig", obj);
	CHECK(same_file(obj, path));
	CHECK(sh("cmp -s %s %s", o1, o2) == 0);
	/* The output may not overwrite an input. */
	CHECK(gen_link(dtp, prog, obj, obj) != 0);
	CHECK(same_file(obj, path));
}

static void check_naming(void)
{
	char *d = dt_usdt_probe_dname("query__start"), *m;

	CHECK(strcmp(d, "query-start") == 0);
	m = dt_usdt_macro_name(d);
	CHECK(strcmp(m, "QUERY_START") == 0);
	free(m);
	free(d);
	d = dt_usdt_default_output("dir/prov.d", ".h");
	CHECK(strcmp(d, "dir/prov.h") == 0);
	free(d);
	d = dt_usdt_default_output("prov", ".o");
	CHECK(strcmp(d, "prov.o") == 0);
	free(d);
}

int main(int argc, char **argv)
{
	dtrace_hdl_t dtp = { 0 };
	dt_typetab_t *tt;
	dt_program_ast_t *prog;
	char hdr[4600], *h;
	size_t hl;

	if (system("command -v cc >/dev/null && command -v c++ >/dev/null "
		   "&& command -v readelf >/dev/null") != 0) {
		fprintf(stderr, "no compiler or readelf: skipped\n");
		return 77;
	}
	find_srcdir();
	tt = dt_typetab_create();
	prog = usdt_ast_build(tt);
	if (argc == 3 && strcmp(argv[1], "gen") == 0) {
		snprintf(dir, sizeof(dir), "%s", argv[2]);
		mkdir(dir, 0755);
		failures = build_all(&dtp, prog) != 0;
		usdt_ast_free(prog);
		dt_typetab_destroy(tt);
		return failures;
	}
	snprintf(dir, sizeof(dir), "%s/usdt_gen.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL)
		return 1;
	check_naming();
	CHECK(build_all(&dtp, prog) == 0);
	snprintf(hdr, sizeof(hdr), "%s/prov.h", dir);
	h = read_file(hdr, &hl);
	CHECK(h && strstr(h, "#define\tMYAPP_QUERY_START(arg0, arg1)"));
	CHECK(h && strstr(h, "#define\tMYAPP_QUERY_START_ENABLED()"));
	CHECK(h && strstr(h, "(char *)(arg1)"));
	free(h);
	if (failures == 0) {
		check_programs();
		check_bpftrace();
		check_errors(&dtp, prog);
	}
	if (failures == 0)
		sh("rm -rf %s", dir);
	else
		fprintf(stderr, "%d failures; files kept in %s\n", failures,
			dir);
	usdt_ast_free(prog);
	dt_typetab_destroy(tt);
	return failures ? 1 : 0;
}
