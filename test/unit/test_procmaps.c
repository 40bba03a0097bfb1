/* SPDX-License-Identifier: MIT */
/*
 * test_procmaps.c: the one reader of /proc/PID/maps (dt_procmaps.c), which
 * the engine, dtprobed and the plugins (host->proc->maps) share.
 *
 * From text: every kind of line the kernel writes is read with its fields
 * (anonymous, [vdso], [heap], a shared mapping, a path with spaces, a file
 * deleted since it was mapped) and a line that is not a mapping is
 * skipped.  From this process: a file mapped at an offset from a directory
 * and under a name with spaces is found at its address with its path,
 * device, inode, protection and offset, then shows as deleted once removed;
 * an anonymous mapping and the vDSO are found as such; no such process is
 * -ESRCH.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dt_procmaps.h"
#include "unit_check.h"

static const char maps_text[] =
	"55d0c0000000-55d0c0002000 r--p 00000000 08:01 1234"
	"                       /usr/bin/true\n"
	"55d0c0002000-55d0c0006000 r-xp 00002000 08:01 1234"
	"                       /usr/bin/true\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0"
	"                          [heap]\n"
	"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
	"7f0000001000-7f0000003000 rw-s 00001000 00:05 77"
	"                         /dev/zero (deleted)\n"
	"7f0000003000-7f0000004000 r-xp 00003000 fd:02 987654321"
	"                  /tmp/a dir/lib with  spaces.so\n"
	"7f0000004000-7f0000005000 r-xp 00000000 fd:02 42"
	"                         /tmp/gone.so (deleted)\n"
	"not a mapping line\n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0"
	"                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
	"                  [vsyscall]";	/* no final newline */

static void test_text(void)
{
	FILE *fp = fmemopen((void *)maps_text, sizeof(maps_text) - 1, "r");
	dt_mapping_t *m;
	size_t n;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	CHECK(dt_proc_maps_read(fp, &m, &n) == 0);
	fclose(fp);
	CHECK(n == 9);
	if (n != 9) {
		dt_proc_maps_free(m, n);
		return;
	}
	CHECK(m[1].start == 0x55d0c0002000 && m[1].end == 0x55d0c0006000);
	CHECK(m[1].pgoff == 0x2000 && m[1].prot == (PROT_READ | PROT_EXEC));
	CHECK(m[1].dev == makedev(8, 1) && m[1].ino == 1234);
	CHECK(strcmp(m[1].path, "/usr/bin/true") == 0 && !m[1].deleted);
	CHECK(dt_mapping_is_file(&m[1]) && !m[1].shared);

	CHECK(strcmp(m[2].path, "[heap]") == 0 && m[2].ino == 0);
	CHECK(!dt_mapping_is_file(&m[2]));
	CHECK(strcmp(m[3].path, "") == 0 && m[3].ino == 0);
	CHECK(m[3].prot == (PROT_READ | PROT_WRITE) && !dt_mapping_is_file(&m[3]));
	CHECK(m[4].shared && m[4].deleted && m[4].pgoff == 0x1000);
	CHECK(strcmp(m[4].path, "/dev/zero (deleted)") == 0);

	CHECK(strcmp(m[5].path, "/tmp/a dir/lib with  spaces.so") == 0);
	CHECK(m[5].dev == makedev(0xfd, 2) && m[5].ino == 987654321);
	CHECK(!m[5].deleted && dt_mapping_is_file(&m[5]));
	CHECK(m[6].deleted && dt_mapping_is_file(&m[6]));
	CHECK(strcmp(m[6].path, "/tmp/gone.so (deleted)") == 0);

	CHECK(strcmp(m[7].path, "[vdso]") == 0 && !m[7].deleted);
	CHECK(m[8].start == 0xffffffffff600000ull && m[8].prot == PROT_EXEC);
	CHECK(strcmp(m[8].path, "[vsyscall]") == 0);

	CHECK(dt_proc_map_at(m, n, 0x55d0c0002000) == &m[1]);
	CHECK(dt_proc_map_at(m, n, 0x55d0c0005fff) == &m[1]);
	CHECK(dt_proc_map_at(m, n, 0x55d0c0001fff) == &m[0]);
	CHECK(dt_proc_map_at(m, n, 0x55d0c0006000) == NULL);	/* a hole */
	CHECK(dt_proc_map_at(m, n, 0x7f0000003abc) == &m[5]);
	CHECK(dt_proc_map_at(m, n, 0xffffffffff600fffull) == &m[8]);
	CHECK(dt_proc_map_at(m, n, 0x1000) == NULL);
	CHECK(dt_proc_map_at(m, 0, 0x55d0c0002000) == NULL);
	dt_proc_maps_free(m, n);
}

/* The mapping of this process holding addr, read now: 0 or -1. */
static int own_mapping(const void *addr, dt_mapping_t *out, char *path,
		       size_t len)
{
	const dt_mapping_t *f;
	dt_mapping_t *m;
	size_t n;

	if (dt_proc_maps(0, &m, &n) != 0)
		return -1;
	f = dt_proc_map_at(m, n, (uint64_t)(uintptr_t)addr);
	if (f != NULL) {
		*out = *f;
		snprintf(path, len, "%s", f->path);
		out->path = path;
	}
	dt_proc_maps_free(m, n);
	return f != NULL ? 0 : -1;
}

static void test_own_file(void)
{
	char dir[] = "/tmp/test procmaps.XXXXXX", file[PATH_MAX];
	char seen[PATH_MAX + 16], want[PATH_MAX + 16];
	long pg = sysconf(_SC_PAGESIZE);
	dt_mapping_t m;
	struct stat sb;
	void *p;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/lib with  spaces.so", dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, 3 * pg) == 0 && fstat(fd, &sb) == 0);
	p = mmap(NULL, (size_t)pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, pg);
	CHECK(p != MAP_FAILED);
	if (fd < 0 || p == MAP_FAILED) {
		rmdir(dir);
		return;
	}
	CHECK(own_mapping((char *)p + 17, &m, seen, sizeof(seen)) == 0);
	CHECK(strcmp(m.path, file) == 0 && !m.deleted);
	CHECK(m.start == (uint64_t)(uintptr_t)p && m.pgoff == (uint64_t)pg);
	CHECK(m.end == m.start + (uint64_t)pg);
	CHECK(m.dev == sb.st_dev && m.ino == sb.st_ino);
	CHECK(m.prot == (PROT_READ | PROT_EXEC) && !m.shared);

	unlink(file);
	snprintf(want, sizeof(want), "%s (deleted)", file);
	CHECK(own_mapping(p, &m, seen, sizeof(seen)) == 0);
	CHECK(m.deleted && strcmp(m.path, want) == 0);
	CHECK(dt_mapping_is_file(&m));
	munmap(p, (size_t)pg);
	close(fd);
	rmdir(dir);
}

static void test_own_pseudo(void)
{
	char seen[PATH_MAX + 16];
	void *vdso = (void *)getauxval(AT_SYSINFO_EHDR);
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dt_mapping_t m;

	CHECK(anon != MAP_FAILED);
	if (anon != MAP_FAILED) {
		CHECK(own_mapping(anon, &m, seen, sizeof(seen)) == 0);
		CHECK(m.ino == 0 && !dt_mapping_is_file(&m) && !m.deleted);
		CHECK(m.prot == (PROT_READ | PROT_WRITE));
		munmap(anon, 4096);
	}
	if (vdso != NULL) {
		CHECK(own_mapping(vdso, &m, seen, sizeof(seen)) == 0);
		CHECK(strcmp(m.path, "[vdso]") == 0 && m.ino == 0);
		CHECK(!dt_mapping_is_file(&m));
	}
}

static void test_no_process(void)
{
	dt_mapping_t *m = (dt_mapping_t *)1;
	size_t n = 1;

	/* pid_max is at most 2^22: this pid never exists */
	CHECK(dt_proc_maps(0x7ffffff0, &m, &n) == -ESRCH);
	CHECK(m == NULL && n == 0);
}

int main(void)
{
	test_text();
	test_own_file();
	test_own_pseudo();
	test_no_process();
	return failures ? 1 : 0;
}
