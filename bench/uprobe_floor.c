/* SPDX-License-Identifier: MIT */
/*
 * bench/uprobe_floor.c: the kernel's floor for the benchmarks, with nothing
 * of dtrace in the way: an empty BPF program (r0 = 0; exit) attached with
 * one uprobe_multi link, through raw bpf() syscalls.
 *
 *   uprobe_floor attach LIB [N [DEBUGFILE [REPEAT]]]
 *	every defined function of LIB's dynamic symbol table, and of the
 *	.symtab of DEBUGFILE (LIB's separate debug file) when given (the
 *	first N distinct offsets when N is not 0), attached for this process
 *	only: prints the number of sites and the time to create the link and
 *	to close it, REPEAT times (default 1; DEBUGFILE "" for none).
 *	Sites the kernel refuses are left out first (slow: each refusal
 *	costs the kernel a grace period).
 *   uprobe_floor names LIB N
 *	prints the names of the first N functions that "attach" would use
 *	(one name per offset), so that other tracers can be given the same
 *	subset.
 *   uprobe_floor run BIN SITE -- CMD [ARGS...]
 *	starts CMD, attaches the empty program to SITE of BIN for CMD's pid
 *	only before CMD executes anything, and waits for it; CMD's exit
 *	status is returned.  SITE is a function symbol of BIN (its entry), or
 *	sdt:PROVIDER:NAME for a <sys/sdt.h> probe, whose semaphore (if any)
 *	is raised through the link's reference-counter offset as a tracer
 *	would, or sdt5:PROVIDER:NAME, the 5-byte nop one byte past such a
 *	probe's nop in sites of <dtrace/usdt.h>.
 *   uprobe_floor run-arg0 BIN SITE -- CMD [ARGS...]
 *	the same with the program bpftrace makes of `/arg0 < 0/ { }' (the
 *	first argument's register loaded, then r0 = 0; exit): what bpftrace's
 *	figure is once attached as this floor is.
 *
 * Invariants: the program and link are the only BPF objects created; they
 * are closed before exit, so nothing stays attached.  Needs Linux 6.6 or
 * later (uprobe_multi links); the uprobe_multi attributes are laid out
 * here because the system's <linux/bpf.h> predates them.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* From the kernel's enum bpf_attach_type (Linux 6.6). */
#define UF_BPF_TRACE_UPROBE_MULTI 48

/* BPF_LINK_CREATE's attributes with the uprobe_multi member (Linux 6.6). */
typedef struct uf_link_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
} uf_link_attr_t;

/* A growable list of file offsets, with a parallel list of names. */
typedef struct uf_sites {
	uint64_t *off;
	uint64_t *ref;		/* semaphore file offsets (0: none) */
	char **name;
	size_t n, cap;
} uf_sites_t;

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static void sites_add(uf_sites_t *s, uint64_t off, uint64_t ref,
		      const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->off = realloc(s->off, s->cap * sizeof(*s->off));
		s->ref = realloc(s->ref, s->cap * sizeof(*s->ref));
		s->name = realloc(s->name, s->cap * sizeof(*s->name));
		if (s->off == NULL || s->ref == NULL || s->name == NULL) {
			fprintf(stderr, "uprobe_floor: out of memory\n");
			exit(1);
		}
	}
	s->off[s->n] = off;
	s->ref[s->n] = ref;
	s->name[s->n] = strdup(name);
	s->n++;
}

/* The file offset of virtual address v: inside a PT_LOAD segment's file
 * image.  Returns 0 when no segment holds it. */
static uint64_t vaddr_to_off(Elf *elf, uint64_t v)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) != NULL &&
		    ph.p_type == PT_LOAD && v >= ph.p_vaddr &&
		    v < ph.p_vaddr + ph.p_filesz)
			return v - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static Elf *elf_open(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	if (*fd < 0) {
		fprintf(stderr, "uprobe_floor: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf == NULL) {
		fprintf(stderr, "uprobe_floor: %s: %s\n", path, elf_errmsg(-1));
		close(*fd);
	}
	return elf;
}

static Elf_Scn *find_section(Elf *elf, uint32_t type, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type)
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name == NULL || (n != NULL && strcmp(n, name) == 0))
			return scn;
	}
	return NULL;
}

/* Defined functions of section scn (a symbol table of elf), in table
 * order, each offset once (aliases share an offset: the first name wins);
 * load is the file whose segments give the offsets (elf itself, or the
 * library a separate debug file describes).  When only is not NULL, only
 * that symbol. */
static void symbol_sites(Elf *elf, Elf_Scn *scn, Elf *load, const char *only,
			 uf_sites_t *s)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);

	if (d == NULL || gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0)
		return;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		if (gelf_getsym(d, (int)i, &sym) == NULL ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (name == NULL || (only != NULL && strcmp(name, only) != 0))
			continue;
		uint64_t off = vaddr_to_off(load, sym.st_value);
		bool seen = false;
		for (size_t k = 0; k < s->n && !seen && only == NULL; k++)
			seen = s->off[k] == off;
		if (off != 0 && !seen)
			sites_add(s, off, 0, name);
	}
}

/* The <sys/sdt.h> note PROVIDER:NAME of elf: the probe's file offset and
 * its semaphore's file offset.  The note's addresses are link-time; when
 * .stapsdt.base moved (prelink), the pc moves with it. */
static int sdt_site(Elf *elf, const char *prov, const char *name,
		    uf_sites_t *s)
{
	Elf_Scn *notes = find_section(elf, SHT_NOTE, ".note.stapsdt");
	Elf_Scn *base = find_section(elf, SHT_PROGBITS, ".stapsdt.base");
	GElf_Shdr bsh;
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	if (notes == NULL || (d = elf_getdata(notes, NULL)) == NULL)
		return -1;
	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) != 0) {
		const char *desc = (const char *)d->d_buf + doff;
		if (nh.n_type != 3 || nh.n_descsz < 3 * 8 + 2 ||
		    strcmp((const char *)d->d_buf + noff, "stapsdt") != 0)
			continue;
		uint64_t pc, link_base, sem;
		memcpy(&pc, desc, 8);
		memcpy(&link_base, desc + 8, 8);
		memcpy(&sem, desc + 16, 8);
		const char *p = desc + 24;
		const char *n = p + strnlen(p, nh.n_descsz - 24) + 1;
		if (strcmp(p, prov) != 0 || strcmp(n, name) != 0)
			continue;
		if (base != NULL && gelf_getshdr(base, &bsh) != NULL)
			pc += bsh.sh_addr - link_base;
		sites_add(s, vaddr_to_off(elf, pc),
			  sem ? vaddr_to_off(elf, sem) : 0, name);
		return 0;
	}
	return -1;
}

static int bpf_sys(int cmd, void *attr, size_t size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

/* The empty program: r0 = 0; exit; with load_arg0, first r1 = the first
 * argument's register (pt_regs' di). */
static int load_empty_prog(bool load_arg0)
{
	struct bpf_insn insns[3] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 1, .src_reg = 1,
		  .off = 112 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = UF_BPF_TRACE_UPROBE_MULTI;
	a.insns = (uint64_t)(uintptr_t)(load_arg0 ? insns : insns + 1);
	a.insn_cnt = load_arg0 ? 3 : 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	int fd = bpf_sys(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0)
		fprintf(stderr, "uprobe_floor: BPF_PROG_LOAD: %s\n",
			strerror(errno));
	return fd;
}

/* One uprobe_multi link of prog over the n sites at off (semaphores at ref,
 * or NULL) of path, for pid (0: all).  Returns the link or -errno. */
static int link_sites(int prog, const char *path, const uint64_t *off,
		      const uint64_t *ref, size_t n, pid_t pid)
{
	uf_link_attr_t a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog;
	a.attach_type = UF_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)off;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)ref;
	a.cnt = (uint32_t)n;
	a.pid = (uint32_t)pid;
	int fd = bpf_sys(BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

static void link_failed(const char *path, int err)
{
	fprintf(stderr, "uprobe_floor: uprobe_multi link on %s: %s\n", path,
		strerror(-err));
}

/* Links made while sorting out refused sites, closed together at the end:
 * each close waits for a grace period, and concurrent closes share them. */
typedef struct uf_fds {
	int fd[4096];
	size_t n;
} uf_fds_t;

static void *close_one(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

static void close_all(uf_fds_t *f)
{
	pthread_t t[4096];

	for (size_t i = 0; i < f->n; i++)
		if (pthread_create(&t[i], NULL, close_one,
				   (void *)(intptr_t)f->fd[i]) != 0)
			close_one((void *)(intptr_t)f->fd[i]), f->fd[i] = -1;
	for (size_t i = 0; i < f->n; i++)
		if (f->fd[i] >= 0)
			pthread_join(t[i], NULL);
	f->n = 0;
}

/* Drop the sites in [lo, hi) of s that the kernel refuses (it rejects
 * some instructions with ENOTSUPP), by bisection, so that the timed link
 * covers exactly the sites a tracer can use.  Survivors are packed at the
 * front of s; returns their number.  Test links go to fds. */
static size_t keep_attachable(int prog, const char *lib, uf_sites_t *s,
			      size_t lo, size_t hi, size_t *out, uf_fds_t *fds)
{
	if (hi == lo)
		return *out;
	int fd = link_sites(prog, lib, s->off + lo, NULL, hi - lo, getpid());
	if (fd >= 0 || hi - lo == 1) {
		if (fd >= 0) {
			if (fds->n == sizeof(fds->fd) / sizeof(fds->fd[0]))
				close_all(fds);
			fds->fd[fds->n++] = fd;
			for (size_t i = lo; i < hi; i++) {
				s->off[*out] = s->off[i];
				s->name[*out] = s->name[i];
				(*out)++;
			}
		}
		return *out;
	}
	size_t mid = lo + (hi - lo) / 2;
	keep_attachable(prog, lib, s, lo, mid, out, fds);
	return keep_attachable(prog, lib, s, mid, hi, out, fds);
}

/* The functions of lib's dynamic symbol table, then those of symfile's
 * .symtab (lib's separate debug file, NULL for none). */
static void library_sites(Elf *elf, const char *symfile, uf_sites_t *s)
{
	Elf_Scn *dynsym = find_section(elf, SHT_DYNSYM, NULL);
	int dfd;

	if (dynsym != NULL)
		symbol_sites(elf, dynsym, elf, NULL, s);
	if (symfile == NULL)
		return;
	Elf *dbg = elf_open(symfile, &dfd);
	Elf_Scn *symtab = dbg ? find_section(dbg, SHT_SYMTAB, NULL) : NULL;
	if (symtab != NULL)
		symbol_sites(dbg, symtab, elf, NULL, s);
	if (dbg != NULL) {
		elf_end(dbg);
		close(dfd);
	}
}

static int cmd_attach(const char *lib, size_t max, const char *symfile,
		      unsigned repeat, bool names_only)
{
	uf_sites_t s = { 0 };
	int efd;
	Elf *elf = elf_open(lib, &efd);

	if (elf != NULL) {
		library_sites(elf, symfile, &s);
		elf_end(elf);
		close(efd);
	}
	if (s.n == 0) {
		fprintf(stderr, "uprobe_floor: no functions in %s\n", lib);
		return 1;
	}
	int prog = load_empty_prog(false);
	if (prog < 0)
		return 1;
	size_t all = s.n, kept = 0;
	static uf_fds_t fds;
	s.n = keep_attachable(prog, lib, &s, 0, s.n, &kept, &fds);
	close_all(&fds);
	size_t n = max && max < s.n ? max : s.n;
	if (names_only) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", s.name[i]);
		return 0;
	}
	if (all != s.n)
		printf("floor: the kernel refuses %zu of %zu sites\n",
		       all - s.n, all);
	for (unsigned r = 0; r < repeat; r++) {
		struct timespec t0, t1, t2;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int link = link_sites(prog, lib, s.off, NULL, n, getpid());
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (link < 0) {
			link_failed(lib, link);
			return 1;
		}
		close(link);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		printf("floor %zu sites: attach %.1f ms, detach %.1f ms\n", n,
		       ms_between(&t0, &t1), ms_between(&t1, &t2));
	}
	close(prog);
	return 0;
}

/* The site of SPEC in bin: a function symbol, sdt:PROVIDER:NAME, or
 * sdt5:PROVIDER:NAME (the 5-byte nop after the note's nop, which sites of
 * <dtrace/usdt.h> have). */
static int resolve_site(const char *bin, const char *spec, uf_sites_t *s)
{
	int efd, rc = -1;
	Elf *elf = elf_open(bin, &efd);
	bool nop5 = strncmp(spec, "sdt5:", 5) == 0;
	char buf[256];

	if (elf == NULL)
		return -1;
	if (strncmp(spec, "sdt:", 4) == 0 || nop5) {
		snprintf(buf, sizeof(buf), "%s", spec + (nop5 ? 5 : 4));
		char *colon = strchr(buf, ':');
		if (colon != NULL) {
			*colon = '\0';
			rc = sdt_site(elf, buf, colon + 1, s);
		}
		if (rc == 0 && nop5)
			s->off[0] += 1;
	} else {
		Elf_Scn *tab = find_section(elf, SHT_SYMTAB, NULL);
		if (tab == NULL)
			tab = find_section(elf, SHT_DYNSYM, NULL);
		if (tab != NULL)
			symbol_sites(elf, tab, elf, spec, s);
		rc = s->n > 0 ? 0 : -1;
	}
	elf_end(elf);
	close(efd);
	if (rc < 0 || s->off[0] == 0)
		fprintf(stderr, "uprobe_floor: no site %s in %s\n", spec, bin);
	return rc < 0 || s->off[0] == 0 ? -1 : 0;
}

/* Fork CMD held on a pipe, attach for its pid, release it, wait. */
static int cmd_run(const char *bin, const char *spec, char **cmd,
		   bool load_arg0)
{
	uf_sites_t s = { 0 };
	int gate[2], status;
	char *abs = realpath(bin, NULL);

	if (abs == NULL || resolve_site(abs, spec, &s) < 0)
		return 1;
	int prog = load_empty_prog(load_arg0);
	if (prog < 0 || pipe(gate) < 0)
		return 1;
	pid_t child = fork();
	if (child == 0) {
		char c;
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "uprobe_floor: %s: %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	close(gate[0]);
	int link = link_sites(prog, abs, s.off, s.ref[0] ? s.ref : NULL, 1,
			      child);
	if (link < 0) {
		link_failed(abs, link);
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		return 1;
	}
	if (write(gate[1], "g", 1) != 1)
		return 1;
	close(gate[1]);
	waitpid(child, &status, 0);
	close(link);
	close(prog);
	free(abs);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: uprobe_floor attach LIB [N [DEBUGFILE [REPEAT]]]\n"
			"       uprobe_floor names LIB N\n"
			"       uprobe_floor run BIN SITE -- CMD [ARGS...]\n"
			"       uprobe_floor run-arg0 BIN SITE -- CMD [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 6 && strcmp(argv[1], "attach") == 0)
		return cmd_attach(argv[2], argc > 3 ? strtoul(argv[3], NULL, 10)
						    : 0,
				  argc > 4 && *argv[4] ? argv[4] : NULL,
				  argc > 5 ? (unsigned)atoi(argv[5]) : 1,
				  false);
	if (argc == 4 && strcmp(argv[1], "names") == 0)
		return cmd_attach(argv[2], strtoul(argv[3], NULL, 10), NULL, 0,
				  true);
	if (argc >= 6 && (strcmp(argv[1], "run") == 0 ||
			  strcmp(argv[1], "run-arg0") == 0) &&
	    strcmp(argv[4], "--") == 0)
		return cmd_run(argv[2], argv[3], argv + 5,
			       strcmp(argv[1], "run-arg0") == 0);
	return usage();
}
