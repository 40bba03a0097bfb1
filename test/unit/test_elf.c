/* SPDX-License-Identifier: MIT */
/*
 * test_elf.c: dt_elf against the running process and copies of this test's
 * own binary: modules from /proc/self/maps, libc's symbols, address <-> file
 * offset, address -> symbol round trips, and separate debug files found by
 * build-id and by .gnu_debuglink for a stripped copy; a file released by
 * each of its holders leaves the cache.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dt_elf.h"
#include "unit_check.h"
#include "unit_fds.h"

/* A local function: in .symtab only, never in .dynsym. */
__attribute__((noinline)) static int elf_test_local_marker(int x)
{
	return x * 3 + 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const dt_elf_module_t *module_named(const dt_elf_proc_t *p,
					   const char *name)
{
	int i;

	for (i = 0; i < p->nmods; i++)
		if (dt_elf_module_name_is(&p->mods[i], name))
			return &p->mods[i];
	return NULL;
}

/* The modules of this process: a.out and libc, with consistent biases. */
static void test_modules(dt_elf_cache_t *c, dt_elf_proc_t *p)
{
	const dt_elf_module_t *exe = module_named(p, "a.out");
	const dt_elf_module_t *libc = module_named(p, "libc.so.6");
	const dt_elf_module_t *m;
	const dt_elf_sym_t *s;
	uint64_t off;

	CHECK(exe != NULL && exe->is_exe);
	CHECK(libc != NULL && !libc->is_exe);
	CHECK(module_named(p, "libc") == libc);
	CHECK(module_named(p, "libc.so") == libc);
	CHECK(module_named(p, "libc.s") == NULL);
	if (libc)
		CHECK(module_named(p, libc->path) == libc);
	/* our own function, looked up by its run-time address */
	CHECK(dt_elf_proc_lookup(c, p, (uint64_t)(uintptr_t)elf_test_local_marker
				 + 2, &m, &s, &off) == 0);
	CHECK(m == exe);
	CHECK(s != NULL && strcmp(s->name, "elf_test_local_marker") == 0);
	CHECK(off == 2);
	CHECK(dt_elf_proc_lookup(c, p, 16, &m, &s, &off) == -ENOENT);
}

/* libc: malloc found with a size; versions bare.  The time to read the
 * symbols is printed, not checked: a timed test fails under load. */
static void test_libc(dt_elf_cache_t *c, dt_elf_proc_t *p)
{
	const dt_elf_module_t *libc = module_named(p, "libc.so.6");
	dt_elf_sym_t *const *first;
	const dt_elf_sym_t *s;
	const dt_elf_module_t *m;
	uint64_t addr, off, off2;
	void *rt_malloc;
	char msg[256];
	double t0, t1;
	size_t n, i;

	if (libc == NULL)
		return;
	t0 = now_ms();
	CHECK(dt_elf_symbols(c, libc->file, msg, sizeof(msg)) == 0);
	t1 = now_ms();
	printf("libc: %zu function symbols in %.2f ms\n", libc->file->nsyms,
	       t1 - t0);
	CHECK(libc->file->nsyms > 1000);
	n = dt_elf_sym_by_name(libc->file, "malloc", &first);
	CHECK(n == 1);
	if (n == 0)
		return;
	CHECK(first[0]->size > 0);
	/* no name carries a version suffix */
	for (i = 0; i < libc->file->nsyms; i++)
		CHECK(strchr(libc->file->syms[i].name, '@') == NULL);
	/* run-time address == link-time address + bias */
	{	/* libc's own malloc, not a sanitizer's interceptor */
		void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

		CHECK(h != NULL);
		rt_malloc = h ? dlsym(h, "malloc") : NULL;
		if (h)
			dlclose(h);
	}
	if (rt_malloc == NULL)
		return;
	CHECK((uint64_t)(uintptr_t)rt_malloc == first[0]->addr + libc->bias);
	/* file offset and back */
	CHECK(dt_elf_vaddr_to_offset(libc->file, first[0]->addr, &off) == 0);
	CHECK(dt_elf_offset_to_vaddr(libc->file, off, &addr) == 0);
	CHECK(addr == first[0]->addr);
	{
		unsigned char a[16], b[16];

		CHECK(dt_elf_read(libc->file, off, a, sizeof(a)) == 16);
		memcpy(b, rt_malloc, sizeof(b));
		CHECK(memcmp(a, b, sizeof(a)) == 0);
	}
	/* address -> symbol round trip, inside the function */
	CHECK(dt_elf_proc_lookup(c, p, (uint64_t)(uintptr_t)rt_malloc + 1, &m,
				 &s, &off2) == 0);
	CHECK(m == libc && s != NULL && s->addr == first[0]->addr);
	CHECK(off2 == 1);
	/* every symbol maps back to itself or to an alias at its address */
	for (i = 0; i < libc->file->nsyms; i++) {
		const dt_elf_sym_t *x = &libc->file->syms[i];

		s = dt_elf_sym_by_addr(libc->file, x->addr);
		CHECK(s != NULL && s->addr == x->addr);
	}
}

static int run(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		fprintf(stderr, "failed (%d): %s\n", r, cmd);
	return r;
}

/* A stripped copy of this binary: its local function is found only through
 * the separate debug file, by build-id or by .gnu_debuglink. */
static void test_debug_file(const char *self, const char *dir, bool by_id)
{
	char cmd[6 * PATH_MAX], copy[PATH_MAX], debug[PATH_MAX], msg[256];
	const dt_elf_file_t *f;
	dt_elf_sym_t *const *first;
	dt_elf_cache_t *c = dt_elf_cache_create();
	size_t n;

	snprintf(copy, sizeof(copy), "%s/%s", dir, by_id ? "byid" : "bylink");
	snprintf(debug, sizeof(debug), "%s/%s.debug", dir,
		 by_id ? "byid" : "bylink");
	/* by build-id: no debuglink, the debug file is moved under
	 * DIR/.build-id below; by link: the debug file stays next to it */
	snprintf(cmd, sizeof(cmd),
		 "objcopy --only-keep-debug '%s' '%s' && "
		 "objcopy --strip-all %s%s%s '%s' '%s'", self, debug,
		 by_id ? "" : "--add-gnu-debuglink='", by_id ? "" : debug,
		 by_id ? "" : "'", self, copy);
	if (run(cmd) != 0) {
		failures++;
		dt_elf_cache_destroy(c);
		return;
	}
	CHECK(dt_elf_open(c, copy, &f, msg, sizeof(msg)) == 0);
	if (by_id) {
		/* the build-id is read with a stripped file's symbols, which
		 * it leads to: read them once in a cache of their own */
		dt_elf_cache_t *c0 = dt_elf_cache_create();
		const dt_elf_file_t *id;
		char idpath[PATH_MAX];
		int len;
		size_t i;

		CHECK(dt_elf_open(c0, copy, &id, msg, sizeof(msg)) == 0);
		CHECK(dt_elf_symbols(c0, id, msg, sizeof(msg)) == 0);
		CHECK(id->build_id_len > 1 && f->build_id_len == 0);
		len = snprintf(idpath, sizeof(idpath), "%s/.build-id/%02x", dir,
			       id->build_id[0]);
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", idpath);
		CHECK(run(cmd) == 0);
		idpath[len++] = '/';
		for (i = 1; i < id->build_id_len; i++)
			len += snprintf(idpath + len, sizeof(idpath) - len,
					"%02x", id->build_id[i]);
		snprintf(idpath + len, sizeof(idpath) - len, ".debug");
		dt_elf_cache_destroy(c0);
		CHECK(rename(debug, idpath) == 0);
		snprintf(debug, sizeof(debug), "%s", idpath);
		CHECK(dt_elf_cache_set_debug_dir(c, dir) == 0);
	}
	CHECK(dt_elf_symbols(c, f, msg, sizeof(msg)) == 0);
	n = dt_elf_sym_by_name(f, "elf_test_local_marker", &first);
	CHECK(n == 1);
	CHECK(f->debug_path != NULL && strcmp(f->debug_path, debug) == 0);
	if (n == 1) {	/* same link-time address as in the original */
		dt_elf_cache_t *c2 = dt_elf_cache_create();
		const dt_elf_file_t *orig;
		dt_elf_sym_t *const *o;

		CHECK(dt_elf_open(c2, self, &orig, msg, sizeof(msg)) == 0);
		CHECK(dt_elf_symbols(c2, orig, msg, sizeof(msg)) == 0);
		CHECK(dt_elf_sym_by_name(orig, "elf_test_local_marker", &o) == 1);
		CHECK(orig->debug_path == NULL);
		CHECK(o[0]->addr == first[0]->addr);
		dt_elf_cache_destroy(c2);
	}
	dt_elf_cache_destroy(c);
}

/* A file goes from the cache, its descriptor closed, when each open of it
 * was released, and not before. */
static void test_release(const char *self)
{
	dt_elf_cache_t *c = dt_elf_cache_create();
	const dt_elf_file_t *f, *g;
	char msg[256];
	int before = unit_open_fds();

	CHECK(dt_elf_open(c, self, &f, msg, sizeof(msg)) == 0);
	CHECK(dt_elf_open(c, self, &g, msg, sizeof(msg)) == 0);
	CHECK(f == g && f->refs == 2);
	CHECK(unit_open_fds() == before + 1);
	dt_elf_release(c, g);
	CHECK(f->refs == 1 && f->fd >= 0);
	CHECK(dt_elf_read(f, 0, msg, 4) == 4 && memcmp(msg, ELFMAG, 4) == 0);
	dt_elf_release(c, f);
	CHECK(unit_open_fds() == before);
	CHECK(dt_elf_open(c, self, &f, msg, sizeof(msg)) == 0 && f->refs == 1);
	dt_elf_cache_destroy(c);
	CHECK(unit_open_fds() == before);
}

/* Files that are not ELF and missing files give errors, not crashes. */
static void test_bad_files(dt_elf_cache_t *c)
{
	const dt_elf_file_t *f;
	dt_elf_proc_t *p;
	char msg[256];

	CHECK(dt_elf_open(c, "/nonexistent/file", &f, msg, sizeof(msg)) ==
	      -ENOENT);
	CHECK(strstr(msg, "/nonexistent/file") != NULL);
	CHECK(dt_elf_open(c, "/proc/self/status", &f, msg, sizeof(msg)) ==
	      -ENOEXEC);
	CHECK(dt_elf_proc_modules(c, 999999999, &p, msg, sizeof(msg)) ==
	      -ESRCH);
}

int main(void)
{
	char self[PATH_MAX], dir[] = "/tmp/test_elf.XXXXXX", msg[256];
	dt_elf_cache_t *c = dt_elf_cache_create();
	dt_elf_proc_t *p = NULL;
	ssize_t n;

	CHECK(elf_test_local_marker(1) == 4);
	CHECK(dt_elf_proc_modules(c, getpid(), &p, msg, sizeof(msg)) == 0);
	if (p != NULL) {
		test_modules(c, p);
		test_libc(c, p);
		dt_elf_proc_free(p);
	}
	test_bad_files(c);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	if (n > 0)
		test_release(self);
	if (n > 0 && mkdtemp(dir) != NULL) {
		char cmd[PATH_MAX + 32];

		test_debug_file(self, dir, true);
		test_debug_file(self, dir, false);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		run(cmd);
	}
	dt_elf_cache_destroy(c);
	if (failures)
		fprintf(stderr, "test_elf: %d failures\n", failures);
	return failures ? 1 : 0;
}
