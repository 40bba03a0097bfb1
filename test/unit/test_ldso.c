/* SPDX-License-Identifier: MIT */
/*
 * test_ldso.c: the startup-file resolver (dt_ldso.c) against the real
 * loader and against hostile files.
 *
 *  1. this test's own executable: every ELF file mapped in /proc/self/maps
 *     is resolved, and every resolved file is a mapped ELF file (nothing is
 *     dlopen'ed before the comparison);
 *  2. python3.11 (or /bin/ls) holds libc.so.6 and the interpreter; cold and
 *     warm timings are printed, not asserted;
 *  3. $ORIGIN in DT_RUNPATH and DT_RPATH (programs built with gcc; skipped
 *     without it), RPATH inherited by the libraries and RUNPATH not;
 *  4. LD_LIBRARY_PATH before ld.so.cache, its hwcaps subdirectory, a
 *     wrong-class file, a FIFO and relative entries passed over;
 *  5. hostile files: none crashes, each gives what ld.so could map;
 *  6. dt_ldso_has_section on real and made-up files.
 *
 * Prints a line per failed check; exits 0 when all passed.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dt_ldso.h"

static int failures;
static char tmpdir[64];

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		printf("FAIL %s:%d: ", __func__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Index in v of the file that is the same as path, or -1. */
static int find_file(char **v, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (same_file(v[i], path))
			return i;
	return -1;
}

static int find_base(char **v, int n, const char *base)
{
	for (int i = 0; i < n; i++) {
		const char *s = strrchr(v[i], '/');

		if (strcmp(s ? s + 1 : v[i], base) == 0)
			return i;
	}
	return -1;
}

static bool is_elf(const char *path)
{
	char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool ok = fd >= 0 && read(fd, m, 4) == 4 && memcmp(m, ELFMAG, 4) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

static int resolve(dt_ldso_t *ld, const char *path, const char *libpath,
		   char ***out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	*out = NULL;
	if (fd < 0)
		return -errno;
	n = dt_ldso_startup_files(ld, fd, path, libpath, out);
	close(fd);
	return n;
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		CHECK(0, "cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static bool copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;
	bool ok = true;

	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return false;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ok = false;
	close(in);
	close(out);
	return ok && n == 0;
}

/* ---- 1. this executable against /proc/self/maps ---------------------------- */

static void test_self_maps(void)
{
	char **v, line[PATH_MAX + 256];
	dt_ldso_t *ld = dt_ldso_open();
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), n;
	FILE *maps;

	CHECK(ld && fd >= 0, "open");
	if (!ld || fd < 0)
		return;
	n = dt_ldso_startup_files(ld, fd, NULL, getenv("LD_LIBRARY_PATH"), &v);
	close(fd);
	CHECK(n >= 3, "self: %d files", n);
	if (n < 3)
		goto out;
	CHECK(same_file(v[0], "/proc/self/exe"), "self: first is %s", v[0]);
	for (int i = 0; i < n; i++)
		CHECK(is_elf(v[i]), "self: %s is not ELF", v[i]);

	maps = fopen("/proc/self/maps", "re");
	CHECK(maps, "maps");
	bool *mapped = calloc((size_t)n, sizeof(bool));
	while (maps && mapped && fgets(line, sizeof(line), maps)) {
		char *p = strchr(line, '/'), *nl;
		struct stat st;
		int k;

		if (!p)
			continue;
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || !is_elf(p))
			continue;
		k = find_file(v, n, p);
		CHECK(k >= 0, "self: mapped %s not resolved", p);
		if (k >= 0)
			mapped[k] = true;
	}
	for (int i = 0; mapped && i < n; i++)
		CHECK(mapped[i], "self: resolved %s not mapped", v[i]);
	free(mapped);
	if (maps)
		fclose(maps);
out:
	dt_ldso_free_list(v, n);
	dt_ldso_close(ld);
}

/* ---- 2. a real program, and timings ---------------------------------------- */

static void test_program(void)
{
	const char *prog = access("/usr/bin/python3.11", R_OK) == 0 ?
			   "/usr/bin/python3.11" : "/bin/ls";
	uint64_t t0, t_open, t_cold, t_cold2, t_warm;
	const int warm_runs = 1000;
	dt_ldso_t *ld;
	char **v;
	int n;

	t0 = now_ns();
	ld = dt_ldso_open();
	t_open = now_ns() - t0;
	CHECK(ld, "open");
	if (!ld)
		return;
	t0 = now_ns();
	n = resolve(ld, prog, NULL, &v);
	t_cold = now_ns() - t0;
	/* Cold again in a fresh context: without the process's first-touch
	 * costs (page faults, malloc arenas), which the gate pays once. */
	{
		dt_ldso_t *ld2 = dt_ldso_open();
		char **v2;
		int n2;

		t0 = now_ns();
		n2 = ld2 ? resolve(ld2, prog, NULL, &v2) : 0;
		t_cold2 = now_ns() - t0;
		dt_ldso_free_list(v2, n2);
		dt_ldso_close(ld2);
	}
	CHECK(n >= 3, "%s: %d files", prog, n);
	CHECK(n > 0 && strcmp(v[0], prog) == 0, "%s: first is %s", prog,
	      n > 0 ? v[0] : "-");
	CHECK(find_base(v, n, "libc.so.6") >= 2, "%s: no libc.so.6", prog);
	CHECK(find_file(v, n, "/lib64/ld-linux-x86-64.so.2") == 1,
	      "%s: the interpreter is not second", prog);
	for (int i = 0; i < n; i++)
		printf("  %s[%d] %s\n", prog, i, v[i]);
	dt_ldso_free_list(v, n);

	t0 = now_ns();
	for (int r = 0; r < warm_runs; r++) {
		int m = resolve(ld, prog, NULL, &v);

		if (m != n)
			CHECK(0, "%s: warm run gave %d files, not %d", prog, m, n);
		dt_ldso_free_list(v, m);
	}
	t_warm = (now_ns() - t0) / warm_runs;
	printf("timing: dt_ldso_open %.1f us, %s cold %.1f us (first in the "
	       "process), cold %.1f us (fresh context), warm %.1f us "
	       "(targets: cold < 1000 us, warm < 50 us)\n", t_open / 1e3, prog,
	       t_cold / 1e3, t_cold2 / 1e3, t_warm / 1e3);
	dt_ldso_close(ld);
}

/* ---- 3. $ORIGIN, RPATH and RUNPATH -------------------------------------------- */

static bool run_cmd(const char *cmd)
{
	int st = system(cmd);

	CHECK(st == 0, "command failed (%d): %s", st, cmd);
	return st == 0;
}

/* The program built with dtags ("--enable-new-dtags" or "--disable-...").
 * prog -> sub/libdtx.so -> sub2/libdty.so; the program's path list is
 * $ORIGIN/sub:$ORIGIN/sub2 and the libraries have none, so libdty.so is
 * found only through an inherited RPATH. */
static void check_origin(dt_ldso_t *ld, const char *prog, bool rpath)
{
	char libx[PATH_MAX], liby[PATH_MAX], **v;
	int n, ix, iy, ic;

	tmp_path(libx, sizeof(libx), "sub/libdtx.so");
	tmp_path(liby, sizeof(liby), "sub2/libdty.so");
	n = resolve(ld, prog, NULL, &v);
	ix = find_file(v, n, libx);
	iy = find_file(v, n, liby);
	ic = find_base(v, n, "libc.so.6");
	CHECK(ix >= 2 && ic > ix, "%s: libdtx at %d, libc at %d", prog, ix, ic);
	if (rpath)
		CHECK(iy > ix, "%s: RPATH not inherited (libdty at %d)", prog, iy);
	else
		CHECK(iy < 0, "%s: RUNPATH was inherited", prog);
	dt_ldso_free_list(v, n);
}

static void test_origin(void)
{
	char cmd[4 * PATH_MAX + 512], prog[PATH_MAX];
	dt_ldso_t *ld;

	if (system("gcc --version >/dev/null 2>&1") != 0) {
		printf("skip: $ORIGIN tests need gcc\n");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p sub sub2 && "
		 "echo 'int y(void){return 0;}' >y.c && "
		 "echo 'int y(void); int x(void){return y();}' >x.c && "
		 "echo 'int x(void); int main(void){return x();}' >m.c && "
		 "gcc -shared -fPIC -o sub2/libdty.so y.c && "
		 "gcc -shared -fPIC -o sub/libdtx.so x.c -Lsub2 -ldty && "
		 "gcc -o runpath m.c -Lsub -ldtx -Wl,-rpath-link,sub2 "
		 "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/sub:$ORIGIN/sub2' && "
		 "gcc -o rpath m.c -Lsub -ldtx -Wl,-rpath-link,sub2 "
		 "-Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/sub:$ORIGIN/sub2' && "
		 "./rpath && ! ./runpath 2>/dev/null", tmpdir);
	if (!run_cmd(cmd))
		return;
	ld = dt_ldso_open();
	if (!ld)
		return;
	tmp_path(prog, sizeof(prog), "runpath");
	check_origin(ld, prog, false);
	tmp_path(prog, sizeof(prog), "rpath");
	check_origin(ld, prog, true);
	dt_ldso_close(ld);
}

/* ---- 4. LD_LIBRARY_PATH ----------------------------------------------------------- */

static void test_libpath(void)
{
	char llp[PATH_MAX], hw[PATH_MAX], bad[PATH_MAX], fifo[PATH_MAX];
	char libpath[4 * PATH_MAX], **v, **sys;
	Elf32_Ehdr e32 = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
				       ELFCLASS32, ELFDATA2LSB, EV_CURRENT },
			   .e_type = ET_DYN, .e_machine = EM_386,
			   .e_version = EV_CURRENT };
	dt_ldso_t *ld = dt_ldso_open();
	int n, nsys, isys;

	if (!ld)
		return;
	/* The system's libz, which this test links through libelf. */
	nsys = resolve(ld, "/proc/self/exe", NULL, &sys);
	isys = find_base(sys, nsys, "libz.so.1");
	CHECK(isys > 0, "no libz.so.1 in this executable's closure");
	if (isys <= 0)
		goto out;
	tmp_path(llp, sizeof(llp), "llp/libz.so.1");
	tmp_path(hw, sizeof(hw), "llp/glibc-hwcaps/x86-64-v3/libz.so.1");
	tmp_path(bad, sizeof(bad), "bad/libz.so.1");
	tmp_path(fifo, sizeof(fifo), "fifo/libz.so.1");
	snprintf(libpath, sizeof(libpath), "mkdir -p %s/llp/glibc-hwcaps/x86-64-v3 "
		 "%s/bad %s/fifo", tmpdir, tmpdir, tmpdir);
	if (!run_cmd(libpath))
		goto out;
	CHECK(copy_file(sys[isys], llp) && copy_file(sys[isys], hw), "copy libz");
	write_file(bad, &e32, sizeof(e32));
	CHECK(mkfifo(fifo, 0644) == 0, "mkfifo: %s", strerror(errno));

	/* Relative and empty entries name the cwd: passed over. */
	snprintf(libpath, sizeof(libpath), "%s/bad::relative;%s/fifo:%s/llp",
		 tmpdir, tmpdir, tmpdir);
	n = resolve(ld, "/proc/self/exe", libpath, &v);
	CHECK(n == nsys + 1, "libpath: %d files, %d without", n, nsys);
	CHECK(find_file(v, n, llp) > 0, "libpath: %s not used", llp);
	CHECK(find_file(v, n, hw) > 0, "libpath: %s not used", hw);
	CHECK(find_file(v, n, sys[isys]) < 0, "libpath: system libz kept");
	CHECK(find_file(v, n, bad) < 0, "libpath: an ELF32 file taken");
	dt_ldso_free_list(v, n);
out:
	dt_ldso_free_list(sys, nsys);
	dt_ldso_close(ld);
}

/* ---- 5. hostile files --------------------------------------------------------------- */

/* A small dynamic executable: PT_INTERP, one PT_LOAD of the whole file,
 * PT_DYNAMIC with two DT_NEEDED ("libc.so.6" and a missing library) and a
 * third one that names the file itself through $ORIGIN; section headers
 * with .shstrtab and .note.stapsdt. */
enum {
	IMG_PHOFF = 64, IMG_INTERP = 256, IMG_STR = 320, IMG_DYN = 384,
	IMG_SHOFF = 512, IMG_SHSTR = 704, IMG_SIZE = 768, IMG_VA = 0x400000,
};
static const char img_interp[] = "/lib64/ld-linux-x86-64.so.2";
static const char img_strs[] = "\0libc.so.6\0libdt_missing.so.9\0$ORIGIN/valid";
static const char img_shstrs[] = "\0.shstrtab\0.note.stapsdt";

static void make_image(unsigned char *img)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			     ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = IMG_PHOFF, .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 3,
		.e_shoff = IMG_SHOFF, .e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 3, .e_shstrndx = 1,
	};
	Elf64_Phdr ph[3] = {
		{ .p_type = PT_INTERP, .p_offset = IMG_INTERP,
		  .p_filesz = sizeof(img_interp) },
		{ .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = IMG_VA,
		  .p_filesz = IMG_SIZE, .p_memsz = IMG_SIZE },
		{ .p_type = PT_DYNAMIC, .p_offset = IMG_DYN,
		  .p_filesz = 6 * sizeof(Elf64_Dyn) },
	};
	Elf64_Dyn dyn[6] = {
		{ DT_NEEDED, { 1 } }, { DT_NEEDED, { 11 } }, { DT_NEEDED, { 31 } },
		{ DT_STRTAB, { IMG_VA + IMG_STR } },
		{ DT_STRSZ, { sizeof(img_strs) } }, { DT_NULL, { 0 } },
	};
	Elf64_Shdr sh[3] = {
		{ 0 },
		{ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = IMG_SHSTR,
		  .sh_size = sizeof(img_shstrs) },
		{ .sh_name = 11, .sh_type = SHT_NOTE, .sh_offset = IMG_SHSTR,
		  .sh_size = 0 },
	};

	memset(img, 0, IMG_SIZE);
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + IMG_PHOFF, ph, sizeof(ph));
	memcpy(img + IMG_INTERP, img_interp, sizeof(img_interp));
	memcpy(img + IMG_STR, img_strs, sizeof(img_strs));
	memcpy(img + IMG_DYN, dyn, sizeof(dyn));
	memcpy(img + IMG_SHOFF, sh, sizeof(sh));
	memcpy(img + IMG_SHSTR, img_shstrs, sizeof(img_shstrs));
}

/* Resolve a file made of data; expect n files (0: 1 or a negative errno)
 * and has_section(".note.stapsdt") == sect (2: anything but a crash). */
static void hostile(dt_ldso_t *ld, const char *what, const void *data,
		    size_t len, int expect, int sect)
{
	char path[PATH_MAX], **v;
	int n, fd, s;

	/* Each in a directory of its own, named "valid": the image's
	 * "$ORIGIN/valid" is the file itself. */
	tmp_path(path, sizeof(path), what);
	mkdir(path, 0755);
	strncat(path, "/valid", sizeof(path) - strlen(path) - 1);
	write_file(path, data, len);
	n = resolve(ld, path, NULL, &v);
	if (expect)
		CHECK(n == expect, "%s: %d files, expected %d", what, n, expect);
	else
		CHECK(n == 1 || n < 0, "%s: %d files", what, n);
	CHECK(n <= 0 || strcmp(v[0], path) == 0, "%s: first is not itself", what);
	dt_ldso_free_list(v, n);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	s = dt_ldso_has_section(fd, ".note.stapsdt");
	if (sect != 2)
		CHECK(s == sect, "%s: has_section gave %d, expected %d", what, s, sect);
	CHECK(dt_ldso_has_section(fd, ".text") <= 0, "%s: has .text", what);
	close(fd);
}

static void set_dyn(unsigned char *img, int i, int64_t tag, uint64_t val)
{
	Elf64_Dyn d = { tag, { val } };

	memcpy(img + IMG_DYN + i * sizeof(Elf64_Dyn), &d, sizeof(d));
}

#define EH_FIELD(img, field, val) do { \
	Elf64_Ehdr eh_; memcpy(&eh_, img, sizeof(eh_)); eh_.field = (val); \
	memcpy(img, &eh_, sizeof(eh_)); } while (0)
#define PH_FIELD(img, i, field, val) do { \
	Elf64_Phdr ph_; memcpy(&ph_, img + IMG_PHOFF + (i) * sizeof(ph_), sizeof(ph_)); \
	ph_.field = (val); memcpy(img + IMG_PHOFF + (i) * sizeof(ph_), &ph_, sizeof(ph_)); \
} while (0)

static void test_hostile(void)
{
	unsigned char img[IMG_SIZE], big[IMG_SIZE + 16 * 4096];
	const char script[] = "#!/bin/sh\necho hi\n";
	dt_ldso_t *ld = dt_ldso_open();

	if (!ld)
		return;
	/* The made-up image itself: itself, ld.so, libc (the missing
	 * library left out, $ORIGIN/valid is itself). */
	make_image(img);
	hostile(ld, "valid", img, IMG_SIZE, 3, 1);

	hostile(ld, "empty", "", 0, 0, 0);
	hostile(ld, "script", script, sizeof(script) - 1, 1, 0);
	hostile(ld, "truncated", img, 40, 1, 0);
	hostile(ld, "headers-only", img, 100, 1, -EINVAL);

	make_image(img);
	EH_FIELD(img, e_phnum, 0xffff);
	EH_FIELD(img, e_shnum, 0xffff);
	hostile(ld, "phnum-shnum-huge", img, IMG_SIZE, 1, -EINVAL);

	make_image(img);
	EH_FIELD(img, e_phoff, (uint64_t)1 << 62);
	EH_FIELD(img, e_shoff, ~(uint64_t)0);
	hostile(ld, "phoff-past-eof", img, IMG_SIZE, 1, -EINVAL);

	make_image(img);
	EH_FIELD(img, e_shstrndx, 7);
	hostile(ld, "shstrndx-out", img, IMG_SIZE, 3, -EINVAL);

	make_image(img);
	PH_FIELD(img, 2, p_offset, (uint64_t)1 << 40);
	hostile(ld, "dynamic-past-eof", img, IMG_SIZE, 1, 1);

	make_image(img);
	PH_FIELD(img, 2, p_filesz, ~(uint64_t)0);	/* runs to the end */
	PH_FIELD(img, 0, p_filesz, 4);			/* unterminated */
	hostile(ld, "dynamic-huge-interp-bad", img, IMG_SIZE, 1, 1);

	/* libc's name past the string table: left out, the rest resolved. */
	make_image(img);
	set_dyn(img, 0, DT_NEEDED, 1 << 20);
	hostile(ld, "needed-past-strtab", img, IMG_SIZE, 2, 1);

	/* DT_STRSZ ends in the middle of "libc.so.6": unterminated. */
	make_image(img);
	set_dyn(img, 4, DT_STRSZ, 5);
	hostile(ld, "needed-unterminated", img, IMG_SIZE, 2, 1);

	/* DT_STRTAB at an address no PT_LOAD holds: no names. */
	make_image(img);
	set_dyn(img, 3, DT_STRTAB, 0x10);
	hostile(ld, "strtab-unmapped", img, IMG_SIZE, 2, 1);

	/* A RUNPATH that loops back on itself many times, and thousands of
	 * DT_NEEDED entries of missing libraries: bounded. */
	make_image(big);
	memset(big + IMG_SIZE, 0, sizeof(big) - IMG_SIZE);
	PH_FIELD(big, 1, p_filesz, sizeof(big));
	PH_FIELD(big, 2, p_offset, IMG_SIZE);
	PH_FIELD(big, 2, p_filesz, sizeof(big) - IMG_SIZE);
	for (size_t i = 0; i < (sizeof(big) - IMG_SIZE) / sizeof(Elf64_Dyn) - 1; i++) {
		Elf64_Dyn d = { DT_NEEDED, { 11 } };

		if (i == 0)
			d = (Elf64_Dyn){ DT_STRTAB, { IMG_VA + IMG_STR } };
		else if (i == 1)
			d = (Elf64_Dyn){ DT_RUNPATH, { 31 } };	/* "$ORIGIN/valid" */
		else if (i % 2)
			d.d_un.d_val = 11 + (i % 7);	/* suffixes of a name */
		memcpy(big + IMG_SIZE + i * sizeof(d), &d, sizeof(d));
	}
	hostile(ld, "many-needed", big, sizeof(big), 2, 1);

	dt_ldso_close(ld);
}

/* ---- 6. sections ----------------------------------------------------------------- */

static int section_of(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = dt_ldso_has_section(fd, name);
	close(fd);
	return r;
}

static void test_sections(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	const char *cxx = "/lib/x86_64-linux-gnu/libstdc++.so.6";
	char garbage[PATH_MAX], junk[4096];

	if (access("/usr/bin/python3.11", R_OK) == 0)
		CHECK(section_of("/usr/bin/python3.11", ".note.stapsdt") == 1,
		      "python3.11 has no .note.stapsdt");
	else
		printf("skip: no /usr/bin/python3.11\n");
	/* Debian 12's libc.so.6 carries no stapsdt notes (readelf -S shows
	 * none); libstdc++ does. */
	if (access(cxx, R_OK) == 0)
		CHECK(section_of(cxx, ".note.stapsdt") == 1,
		      "libstdc++ has no .note.stapsdt");
	printf("info: libc.so.6 .note.stapsdt: %d\n",
	       section_of(libc, ".note.stapsdt"));
	CHECK(section_of(libc, ".text") == 1, "libc has no .text");
	CHECK(section_of(libc, ".dynsym") == 1, "libc has no .dynsym");
	CHECK(section_of(libc, ".note.stapsdt.x") == 0, "a prefix matched");
	CHECK(section_of("/bin/true", ".note.stapsdt") == 0, "/bin/true has notes");
	CHECK(section_of("/bin/true", ".text") == 1, "/bin/true has no .text");

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	tmp_path(garbage, sizeof(garbage), "garbage");
	write_file(garbage, junk, sizeof(junk));
	CHECK(section_of(garbage, ".text") == 0, "garbage has a .text");
	CHECK(dt_ldso_has_section(-1, ".text") < 0, "bad fd");
}

/* ---- 7. bad arguments -------------------------------------------------------------- */

static void test_args(void)
{
	dt_ldso_t *ld = dt_ldso_open();
	char **v = (char **)1;
	int fd;

	if (!ld)
		return;
	CHECK(dt_ldso_startup_files(ld, -1, NULL, NULL, &v) < 0 && !v, "fd -1");
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dt_ldso_startup_files(ld, fd, NULL, NULL, &v) < 0, "a directory");
	close(fd);
	dt_ldso_close(ld);
	dt_ldso_close(NULL);
	dt_ldso_free_list(NULL, 0);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	/* First, before anything could be loaded that the ELF files do not
	 * name. */
	test_self_maps();

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_ldso.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_program();
	test_origin();
	test_libpath();
	test_hostile();
	test_sections();
	test_args();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("warning: could not remove %s\n", tmpdir);
	printf("test_ldso: %s (%d failed checks)\n",
	       failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
