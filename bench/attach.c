/*
 * bench/attach.c: time to attach and detach uprobes on every function entry
 * of libc, through dt_bpf.c: one uprobe_multi link for all of them, and
 * the perf-event fallback (one event and link per site) on a subset.
 *
 *   gcc -Iinclude -Idtrace -D_GNU_SOURCE -O2 -o build/bench/attach \
 *       bench/attach.c build/dtrace/dt_bpf.o build/dtrace/dt_as.o \
 *       build/dtrace/dt_subr.o -lbpf -lelf -lpthread
 *   build/bench/attach [-a] [-p NPERF] [LIBC]
 *
 * -a attaches for every process (default: this process only, so that the
 * rest of the machine does not run the probes meanwhile); -p is the number
 * of sites for the perf fallback (default 200, 0 to skip).  The program is
 * trivial (return 0): this measures the attachment, not the probes.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_bpf.h"
#include "dt_impl.h"

typedef struct sites {
	uint64_t *off;
	uint32_t n, cap;
} sites_t;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t vaddr_to_off(Elf *elf, uint64_t v)
{
	size_t nph;

	if (elf_getphdrnum(elf, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) != NULL &&
		    ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz)
			return v - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/* The file offsets of every defined function of the dynamic symbol table,
 * each once. */
static int libc_functions(const char *path, sites_t *s)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf != NULL && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d != NULL && i < n; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym) == NULL ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
				continue;
			uint64_t off = vaddr_to_off(elf, sym.st_value);
			if (off == 0)
				continue;
			if (s->n == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 1024;
				s->off = realloc(s->off, s->cap * sizeof(uint64_t));
			}
			s->off[s->n++] = off;
		}
	}
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	qsort(s->off, s->n, sizeof(uint64_t), cmp_u64);
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (k == 0 || s->off[i] != s->off[k - 1])
			s->off[k++] = s->off[i];
	s->n = k;
	return 0;
}

static double ms_since(uint64_t t0)
{
	return (double)(dt_now_ns() - t0) / 1e6;
}

/* Attach n sites with one mechanism, then detach; prints the times. */
static int run(const char *path, const uint64_t *offs, uint32_t n,
	       bool perf, pid_t pid)
{
	dtrace_hdl_t h;
	dt_as_t as;
	uint32_t nfailed = 0;

	memset(&h, 0, sizeof(h));
	h.opt.uprobe_mech = perf ? "perf" : NULL;
	dt_bpf_init(&h);
	dt_as_init(&as);
	dt_as_emit(&as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(&as, DT_EXIT());
	dt_as_finish(&as);
	int prog = dt_bpf_prog_load(&h, "bench", &as);
	dt_as_fini(&as);
	if (prog < 0) {
		fprintf(stderr, "%s\n", h.errmsg);
		return 1;
	}
	dt_attach_req_t req = {
		.prog_fd = prog, .path = path, .pid = pid, .n = n,
		.offsets = offs, .nfailed = &nfailed,
	};
	uint64_t t0 = dt_now_ns();
	int rc = dt_bpf_attach_uprobes(&h, &req);
	double attach = ms_since(t0);
	t0 = dt_now_ns();
	dt_bpf_fini(&h);
	double detach = ms_since(t0);
	if (rc < 0)
		fprintf(stderr, "%s\n", h.errmsg);
	printf("%-6s %5u sites (%u rejected): attach %8.1f ms, detach %8.1f "
	       "ms\n", perf ? "perf" : "multi", n, nfailed, attach, detach);
	return rc < 0;
}

int main(int argc, char **argv)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	bool all = false;
	uint32_t nperf = 200;
	int opt;
	sites_t s = { 0 };

	while ((opt = getopt(argc, argv, "ap:")) != -1) {
		if (opt == 'a')
			all = true;
		else if (opt == 'p')
			nperf = (uint32_t)strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind < argc)
		path = argv[optind];
	char *abs = realpath(path, NULL);
	if (abs == NULL || libc_functions(abs, &s) < 0 || s.n == 0) {
		fprintf(stderr, "attach: no functions in %s\n", path);
		return 1;
	}
	pid_t pid = all ? 0 : getpid();
	printf("%s: %u function entries, %s\n", abs, s.n,
	       all ? "every process" : "this process only");
	int rc = run(abs, s.off, s.n, false, pid);
	if (nperf > 0)
		rc |= run(abs, s.off, nperf < s.n ? nperf : s.n, true, pid);
	free(abs);
	free(s.off);
	return rc;
}
