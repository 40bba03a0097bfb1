/* SPDX-License-Identifier: MIT */
/*
 * test_usdt_notes.c: the usdt provider's note reader, argument decoder and
 * trampoline (plugins/usdt), without the rest of the engine's pipeline.
 *
 *  1. Argument specifications of every form, decoded from text.
 *  2. test/progs/sdt_args.c built at -O0 and -O2 in a temporary directory:
 *     its notes are read; names, functions, semaphores and decoded
 *     arguments are checked, and each site's file offset must hold the nop
 *     <sys/sdt.h> put there, each semaphore's offset the semaphore symbol.
 *  3. Debian's python3.11 and libstdc++ notes are found (when installed).
 *  4. The trampoline, run for real: a small program (prologue, the usdt
 *     trampoline, a store of argv[] per cookie) is loaded and attached to
 *     every site of both builds with the engine's dt_bpf; the program runs
 *     once and every argument value is compared with what it passed.  The
 *     semaphore-guarded code must run only while attached.
 *  5. The file cache: a file rewritten in place is read again; a file
 *     read holds no descriptor; files without notes, and files forgotten,
 *     are remembered by identity alone.
 *
 * The plugin is not linked with the engine, so its sources are included.
 * Needs gcc and <sys/sdt.h>; part 4 needs root and BPF (skipped otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit_elfhost.h"
#include "unit_fds.h"
#include "../../plugins/usdt/usdt_args.c"
#include "../../plugins/usdt/usdt_notes.c"
#include "../../plugins/usdt/usdt_tramp.c"
#include "../../plugins/usdt/usdt_proc.c"
#include "../../plugins/usdt/usdt_place.c"

#include "dt_bpf.h"
#include "dt_impl.h"

static int failures;

/* A host table: the engine's ELF services (the notes are read by the
 * engine) and the assembler's functions (the trampoline). */
static void test_cold(dtrace_emitter_t *em, int on)
{
	dt_as_cold(em, on != 0);
}

/* BPF emission by the engine's assembler: the sites looked up are looked
 * up in a function at the program's end (cold code). */
static const dtrace_host_bpf_t test_host_bpf = {
	.size = sizeof(dtrace_host_bpf_t),
	.emit = dt_as_emit, .label_new = dt_as_label,
	.label_place = dt_as_place, .jump = dt_as_jump,
	.load_map = dt_as_load_map, .cold = test_cold, .call = dt_as_call,
};

static const dtrace_host_t test_host = {
	.major = DTRACE_PROVIDER_MAJOR, .minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_host_t),
	.bpf = &test_host_bpf, .elf = &unit_host_elf, .proc = &unit_host_proc,
};

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

/* pt_regs offsets used in expectations */
#define RAX 80
#define RBX 40
#define RCX 88
#define RDX 96
#define RSI 104
#define RDI 112
#define RBP 32
#define RSP 152
#define R8  72
#define R12 24
#define R15 0
#define RIP 128
#define NOREG USDT_NOREG

/* A file of one symbol for the decoder: "sym" at 0x5000. */
static int one_sym_value(const dtrace_elf_t *f, const char *name,
			 uint64_t *value)
{
	(void)f;
	if (strcmp(name, "sym") != 0)
		return -ENOENT;
	*value = 0x5000;
	return 0;
}

static usdt_symtab_t *one_sym_table(void)
{
	static const dtrace_host_elf_t sym_elf = {
		.size = sizeof(dtrace_host_elf_t), .sym_value = one_sym_value,
	};
	static const dtrace_host_t sym_host = { .elf = &sym_elf };
	static usdt_symtab_t st = {
		&sym_host, (const dtrace_elf_t *)&sym_host	/* any file */
	};
	return &st;
}

typedef struct arg_case {
	const char *spec;
	bool pie;
	int ok;
	usdt_loc_t loc;
	int size, is_signed, base, index, scale_shift;
	int64_t val;
} arg_case_t;

static void test_arg_forms(void)
{
	/* site 0x1000 for every case */
	static const arg_case_t cases[] = {
		{ "-4@%eax", 0, 1, USDT_LOC_REG, 4, 1, RAX, NOREG, 0, 0 },
		{ "8@%rax", 0, 1, USDT_LOC_REG, 8, 0, RAX, NOREG, 0, 0 },
		{ "2@%ax", 0, 1, USDT_LOC_REG, 2, 0, RAX, NOREG, 0, 0 },
		{ "1@%al", 0, 1, USDT_LOC_REG, 1, 0, RAX, NOREG, 0, 0 },
		{ "1@%ah", 0, 1, USDT_LOC_REG, 1, 0, RAX + 1, NOREG, 0, 0 },
		{ "-1@%r8b", 0, 1, USDT_LOC_REG, 1, 1, R8, NOREG, 0, 0 },
		{ "2@%r8w", 0, 1, USDT_LOC_REG, 2, 0, R8, NOREG, 0, 0 },
		{ "4@%r8d", 0, 1, USDT_LOC_REG, 4, 0, R8, NOREG, 0, 0 },
		{ "8@%r8", 0, 1, USDT_LOC_REG, 8, 0, R8, NOREG, 0, 0 },
		{ "1@%sil", 0, 1, USDT_LOC_REG, 1, 0, RSI, NOREG, 0, 0 },
		{ "1@%dil", 0, 1, USDT_LOC_REG, 1, 0, RDI, NOREG, 0, 0 },
		{ "1@%spl", 0, 1, USDT_LOC_REG, 1, 0, RSP, NOREG, 0, 0 },
		{ "-1@%bpl", 0, 1, USDT_LOC_REG, 1, 1, RBP, NOREG, 0, 0 },
		{ "-2@%r12w", 0, 1, USDT_LOC_REG, 2, 1, R12, NOREG, 0, 0 },
		{ "1@%r15b", 0, 1, USDT_LOC_REG, 1, 0, R15, NOREG, 0, 0 },
		{ "-4@$1234", 0, 1, USDT_LOC_IMM, 4, 1, NOREG, NOREG, 0, 1234 },
		{ "-4@$-5", 0, 1, USDT_LOC_IMM, 4, 1, NOREG, NOREG, 0, -5 },
		{ "8@$0x10", 0, 1, USDT_LOC_IMM, 8, 0, NOREG, NOREG, 0, 16 },
		{ "8@-16(%rbp)", 0, 1, USDT_LOC_MEM, 8, 0, RBP, NOREG, 0, -16 },
		{ "-4@112(%rsp)", 0, 1, USDT_LOC_MEM, 4, 1, RSP, NOREG, 0, 112 },
		{ "4@(%rdi)", 0, 1, USDT_LOC_MEM, 4, 0, RDI, NOREG, 0, 0 },
		{ "-2@(%rdx,%rcx,2)", 0, 1, USDT_LOC_MEM, 2, 1, RDX, RCX, 1, 0 },
		{ "8@24(%rbx,%rsi,8)", 0, 1, USDT_LOC_MEM, 8, 0, RBX, RSI, 3, 24 },
		{ "4@-8(%rax,%rdx)", 0, 1, USDT_LOC_MEM, 4, 0, RAX, RDX, 0, -8 },
		{ "4@(,%rax,4)", 0, 1, USDT_LOC_MEM, 4, 0, NOREG, RAX, 2, 0 },
		{ "-4@sym(%rip)", 1, 1, USDT_LOC_MEM, 4, 1, RIP, NOREG, 0,
		  0x5000 - 0x1000 },
		{ "-4@sym+8(%rip)", 1, 1, USDT_LOC_MEM, 4, 1, RIP, NOREG, 0,
		  0x5008 - 0x1000 },
		{ "-4@40+sym(%rip)", 1, 1, USDT_LOC_MEM, 4, 1, RIP, NOREG, 0,
		  0x5028 - 0x1000 },
		{ "-4@sym-4(%rip)", 1, 1, USDT_LOC_MEM, 4, 1, RIP, NOREG, 0,
		  0x4ffc - 0x1000 },
		/* absolute symbol: as is in a fixed program, ip-relative in a
		 * moving one */
		{ "8@sym", 0, 1, USDT_LOC_MEM, 8, 0, NOREG, NOREG, 0, 0x5000 },
		{ "8@sym", 1, 1, USDT_LOC_MEM, 8, 0, RIP, NOREG, 0, 0x4000 },
		{ "4@sym(,%rax,4)", 0, 1, USDT_LOC_MEM, 4, 0, NOREG, RAX, 2,
		  0x5000 },
		{ "8@$sym", 0, 1, USDT_LOC_IMM, 8, 0, NOREG, NOREG, 0, 0x5000 },
		{ "%rdi", 0, 1, USDT_LOC_REG, 8, 0, RDI, NOREG, 0, 0 },
		/* refused */
		{ "8@$sym", 1, 0 },
		{ "-4@nosuch(%rip)", 1, 0 },
		{ "4@8(%rip)", 1, 0 },
		{ "3@%eax", 0, 0 },
		{ "4@%xmm0", 0, -EOPNOTSUPP },
		{ "8f@%xmm15", 0, -EOPNOTSUPP },
		{ "2f@%ax", 0, 0 },
		{ "8g@%rax", 0, 0 },
		{ "8f@%xmm", 0, 0 },
		{ "4@%fs:8", 0, 0 },
		{ "4@(%rax,%rbx,3)", 0, 0 },
		{ "4@(%rax", 0, 0 },
		{ "4@%eax)", 0, 0 },
		{ "x@%eax", 0, 0 },
		{ "4@", 0, 0 },
		{ "4@(%ah)", 0, 0 },
		{ "4@%rip", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const arg_case_t *c = &cases[i];
		usdt_arg_t a;
		int rc = usdt_arg_parse(c->spec, 0x1000, c->pie,
					one_sym_table(), &a);
		if (c->ok != 1) {
			int want = c->ok ? c->ok : -EINVAL;
			CHECK(rc == want && a.error == want &&
			      a.loc == USDT_LOC_NONE,
			      "'%s' must be refused (%d), not %d", c->spec,
			      want, rc);
			continue;
		}
		CHECK(rc == 0, "'%s' refused", c->spec);
		CHECK(a.loc == c->loc && a.size == c->size &&
		      a.is_signed == c->is_signed && a.base == c->base &&
		      a.index == c->index && a.scale_shift == c->scale_shift &&
		      a.val == c->val,
		      "'%s': loc %d size %d signed %d base %d index %d "
		      "scale %d val %lld", c->spec, a.loc, a.size,
		      a.is_signed, a.base, a.index, a.scale_shift,
		      (long long)a.val);
	}
}

/* Floating-point values: their bits, read as an unsigned integer of
 * their size would be. */
static void test_arg_floats(void)
{
	static const struct {
		const char *spec;
		usdt_loc_t loc;
		int size, base;
	} cases[] = {
		{ "8f@%rax", USDT_LOC_REG, 8, RAX },
		{ "4f@%edx", USDT_LOC_REG, 4, RDX },
		{ "-8f@-16(%rbp)", USDT_LOC_MEM, 8, RBP },
		{ "4f@-20(%rbp)", USDT_LOC_MEM, 4, RBP },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		usdt_arg_t a;
		int rc = usdt_arg_parse(cases[i].spec, 0x1000, false,
					one_sym_table(), &a);
		CHECK(rc == 0 && a.is_float && !a.is_signed &&
		      a.loc == cases[i].loc && a.size == cases[i].size &&
		      a.base == cases[i].base,
		      "'%s': rc %d float %d signed %d loc %d size %d base %d",
		      cases[i].spec, rc, a.is_float, a.is_signed, a.loc,
		      a.size, a.base);
	}
}

static void test_names(void)
{
	char *s = usdt_probe_name("function__entry");
	CHECK(strcmp(s, "function-entry") == 0, "%s", s);
	free(s);
	s = usdt_probe_name("a__b__c_d");
	CHECK(strcmp(s, "a-b-c_d") == 0, "%s", s);
	free(s);
}

/*
 * Building and checking sdt_args
 */

static char tmpdir[] = "/tmp/test_usdt.XXXXXX";

static const char *source_path(void)
{
	static char path[4096];
	const char *td = getenv("TESTDIR");
	if (td != NULL)
		snprintf(path, sizeof(path), "%s/progs/sdt_args.c", td);
	else
		snprintf(path, sizeof(path), "test/progs/sdt_args.c");
	return path;
}

/* Build sdt_args at -Oopt; returns the binary's path or NULL. */
static const char *build(int opt)
{
	static char bins[3][4200];
	char cmd[9000];
	char *bin = bins[opt];
	snprintf(bin, sizeof(bins[0]), "%s/sdt_args_O%d", tmpdir, opt);
	snprintf(cmd, sizeof(cmd), "gcc -O%d -g -o %s %s", opt, bin,
		 source_path());
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot build: %s\n", cmd);
		return NULL;
	}
	return bin;
}

static const usdt_note_t *find_note(const usdt_file_t *f, const char *prov,
				    const char *name)
{
	for (int i = 0; i < f->nnotes; i++)
		if (strcmp(f->notes[i].provider, prov) == 0 &&
		    strcmp(f->notes[i].name, name) == 0)
			return &f->notes[i];
	return NULL;
}

/* The value of a symbol and the file offset of that address, computed from
 * the section headers (independently of the reader's PT_LOAD walk). */
static bool sym_file_offset(const char *path, const char *name,
			    uint64_t *off)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	bool found = false;
	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			gelf_getsym(d, (int)i, &s);
			if (strcmp(elf_strptr(elf, sh.sh_link, s.st_name),
				   name) == 0) {
				addr = s.st_value;
				found = true;
				break;
			}
		}
	}
	scn = NULL;
	while (found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type == SHT_PROGBITS &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size) {
			*off = addr - sh.sh_addr + sh.sh_offset;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static int byte_at(const char *path, uint64_t off)
{
	unsigned char b = 0;
	int fd = open(path, O_RDONLY);
	if (pread(fd, &b, 1, (off_t)off) != 1)
		b = 0;
	close(fd);
	return b;
}

static const char *const probe_names[] = {
	"consts", "regs", "globals", "array", "stack", "fields", "string",
	"many", "guarded",
};
#define NPROBES (sizeof(probe_names) / sizeof(probe_names[0]))

static void check_sdt_args(const char *bin, int opt)
{
	int err;
	usdt_file_t *f = usdt_file_read(&test_host, NULL, bin, &err);
	CHECK(f != NULL, "read %s: %s", bin, strerror(-err));
	if (f == NULL)
		return;
	CHECK(f->nnotes == (int)NPROBES, "-O%d: %d notes", opt, f->nnotes);
	CHECK(strcmp(f->module, strrchr(bin, '/') + 1) == 0, "module %s",
	      f->module);
	for (size_t i = 0; i < NPROBES; i++) {
		const usdt_note_t *n = find_note(f, "sdt_test", probe_names[i]);
		CHECK(n != NULL, "-O%d: no note %s", opt, probe_names[i]);
		if (n == NULL)
			continue;
		char func[64], sema[64];
		snprintf(func, sizeof(func), "fire_%s", probe_names[i]);
		/* -O2 may clone it: fire_string.constprop.0 */
		CHECK(strncmp(n->func, func, strlen(func)) == 0 &&
		      (n->func[strlen(func)] == '\0' ||
		       n->func[strlen(func)] == '.'),
		      "-O%d %s: function '%s'", opt, n->name, n->func);
		CHECK(n->bad_arg < 0, "-O%d %s: argument %d '%s' undecoded",
		      opt, n->name, n->bad_arg, n->bad_spec);
		CHECK(byte_at(bin, n->offset) == 0x90,
		      "-O%d %s: no nop at offset 0x%llx", opt, n->name,
		      (unsigned long long)n->offset);
		snprintf(sema, sizeof(sema), "sdt_test_%s_semaphore",
			 probe_names[i]);
		uint64_t off = 0;
		CHECK(sym_file_offset(bin, sema, &off) && n->sema != 0 &&
		      n->sema_offset == off,
		      "-O%d %s: semaphore offset 0x%llx, expected 0x%llx", opt,
		      n->name, (unsigned long long)n->sema_offset,
		      (unsigned long long)off);
	}
	const usdt_note_t *n = find_note(f, "sdt_test", "many");
	CHECK(n && n->nargs == 12, "many: %d args", n ? n->nargs : -1);
	n = find_note(f, "sdt_test", "consts");
	CHECK(n && n->nargs == 6 && n->args[0].loc == USDT_LOC_IMM &&
	      n->args[3].val == -5000000000LL,
	      "consts decoded: %s", n ? n->argstr : "");
	if (opt == 2) {
		n = find_note(f, "sdt_test", "globals");
		CHECK(n && n->args[0].loc == USDT_LOC_MEM &&
		      n->args[0].base == RIP, "globals: %s",
		      n ? n->argstr : "");
		n = find_note(f, "sdt_test", "array");
		CHECK(n && n->args[0].index != NOREG, "array: %s",
		      n ? n->argstr : "");
	}
	usdt_file_free(f);
}

/* Installed software: python3.11 and libstdc++ carry notes on Debian. */
static void test_system_notes(void)
{
	static const char *const pythons[] = {
		"/usr/bin/python3.11",
		"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
	};
	bool found = false;
	for (size_t i = 0; i < 2 && !found; i++) {
		int err;
		if (access(pythons[i], R_OK) != 0)
			continue;
		usdt_file_t *f = usdt_file_read(&test_host, NULL, pythons[i],
						&err);
		if (f == NULL)
			continue;
		const usdt_note_t *n = find_note(f, "python", "function__entry");
		if (n != NULL) {
			found = true;
			CHECK(n->nargs == 3 && n->bad_arg < 0,
			      "python function__entry: '%s'", n->argstr);
			CHECK(n->sema != 0 && n->sema_offset != 0,
			      "python function__entry has a semaphore");
			CHECK(byte_at(pythons[i], n->offset) == 0x90,
			      "python site is a nop");
		}
		usdt_file_free(f);
	}
	if (access(pythons[0], R_OK) == 0)
		CHECK(found, "python3.11's function__entry note not found");

	const char *cxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	int err;
	usdt_file_t *f = access(cxx, R_OK) == 0 ?
			 usdt_file_read(&test_host, NULL, cxx, &err) : NULL;
	if (f != NULL) {
		const usdt_note_t *t = find_note(f, "libstdcxx", "throw");
		const usdt_note_t *c = find_note(f, "libstdcxx", "catch");
		CHECK(t && c, "libstdcxx throw/catch notes");
		CHECK(t && strcmp(t->func, "__cxa_throw") == 0 &&
		      t->sema == 0 && t->nargs == 2 && t->bad_arg < 0,
		      "throw: func '%s' args '%s'", t ? t->func : "",
		      t ? t->argstr : "");
		usdt_file_free(f);
	}
}

/*
 * The trampoline, run for real
 */

typedef struct run_site {
	const usdt_note_t *note;
	int opt;
} run_site_t;

#define MAX_SITES 32


static void emit_test_program(const dtrace_host_t *host, dt_as_t *as,
			      dtrace_map_t *mstate, dtrace_map_t *specs,
			      dtrace_map_t *results,
			      const usdt_tramp_site_t *sites, int nsites)
{
	int out = dt_as_label(as);
	dt_as_emit(as, DT_MOV64_REG(DT_R6, DT_R1));
	dt_as_emit(as, DT_STORE_IMM(BPF_W, DT_FP, -4, 0));
	dt_as_load_map(as, DT_R1, mstate);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -4));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	dt_as_emit(as, DT_MOV64_REG(DT_R7, DT_R0));
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		dt_as_emit(as, DT_STORE_IMM(BPF_DW, DT_R7, 8 * i, 0));
	dt_as_emit(as, DT_MOV64_REG(DT_R1, DT_R6));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_get_attach_cookie));
	dt_as_emit(as, DT_STORE(BPF_W, DT_R7,
				offsetof(dtrace_mstate_t, key.cookie), DT_R0));
	dtrace_trampoline_t tr = {
		.size = sizeof(tr), .skip = out, .args_read = ~0ull,
		.prefilter_pass = -1,
	};
	usdt_tramp_emit(host, as, &tr, specs, NULL, sites, nsites);
	dt_as_load_map(as, DT_R1, results);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_R7));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2,
				    offsetof(dtrace_mstate_t, key.cookie)));
	dt_as_emit(as, DT_MOV64_REG(DT_R3, DT_R7));
	dt_as_emit(as, DT_MOV64_IMM(DT_R4, 0));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_update_elem));
	dt_as_place(as, out);
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
	dt_as_cold_place(as);
}

/* Run bin with one iteration; returns its output line. */
static void run_program(const char *bin, char *line, size_t len)
{
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "%s 1", bin);
	line[0] = '\0';
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		return;
	if (fgets(line, (int)len, p) == NULL)
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
}

/* The values sdt_args passes in its first iteration (string: checked as
 * non-zero for the pointer). */
static void expected(const char *name, int64_t v[DTRACE_ARGS_MAX], int *n)
{
	static const struct {
		const char *name;
		int n;
		int64_t v[DTRACE_ARGS_MAX];
	} tab[] = {
		{ "consts", 6, { -5, -300, -70000, -5000000000LL, 250, 65000 } },
		{ "regs", 6, { -5, -300, -70000, -5000000000LL, 250,
			       4000000000LL } },
		{ "globals", 6, { -7, 0x123456789abcdef0LL, 200, -100, -1234,
				  4000000000LL } },
		{ "array", 4, { -60, -6, -40, 70 } },
		{ "stack", 4, { -11, -22, 33000000000LL, 244 } },
		{ "fields", 4, { -31, -32, 33, 34 } },
		{ "string", 2, { -1, 0 } },
		{ "many", 12, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 } },
		{ "guarded", 2, { 0, 1 } },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(tab[i].name, name) == 0) {
			memcpy(v, tab[i].v, sizeof(tab[i].v));
			*n = tab[i].n;
			return;
		}
	*n = 0;
}

static void check_results(dtrace_map_t *results, const run_site_t *sites,
			  int nsites)
{
	for (int c = 1; c <= nsites; c++) {
		const run_site_t *s = &sites[c - 1];
		dtrace_mstate_t ms;
		uint32_t key = (uint32_t)c;
		memset(&ms, 0, sizeof(ms));
		CHECK(dt_bpf_map_lookup(results, &key, &ms) == 0,
		      "-O%d %s did not fire", s->opt, s->note->name);
		int64_t v[DTRACE_ARGS_MAX];
		int n;
		expected(s->note->name, v, &n);
		for (int i = 0; i < n; i++) {
			if (v[i] == -1 && strcmp(s->note->name, "string") == 0) {
				CHECK(ms.argv[i] != 0, "string pointer");
				continue;
			}
			int64_t got;
			memcpy(&got, (const char *)&ms + DTRACE_MSTATE_ARG(i),
			       sizeof(got));
			CHECK(got == v[i],
			      "-O%d %s arg%d (%s): %lld, expected %lld",
			      s->opt, s->note->name, i, s->note->argstr,
			      (long long)got, (long long)v[i]);
		}
	}
}

/*
 * Every site of both builds through one program: by the spec table
 * (ninline 0), or with the first ninline sites carried as code, whose
 * specs are then left out of the table so that only their code can give
 * their arguments, the others still looked up.
 */
static void test_trampoline(const dtrace_host_t *host, const char *bins[2],
			    usdt_file_t *files[2], int ninline)
{
	dtrace_hdl_t h;
	memset(&h, 0, sizeof(h));
	if (geteuid() != 0 || dt_bpf_init(&h) < 0) {
		fprintf(stderr, "skipping the trampoline run: no BPF\n");
		return;
	}
	dtrace_map_t *mstate = dt_bpf_map(&h, "mstate",
					  BPF_MAP_TYPE_PERCPU_ARRAY, 4,
					  sizeof(dtrace_mstate_t), 1);
	dtrace_map_t *specs = dt_bpf_map(&h, USDT_SPECS_MAP, BPF_MAP_TYPE_HASH,
					 4, sizeof(usdt_rtspec_t), 1024);
	dtrace_map_t *results = dt_bpf_map(&h, "results", BPF_MAP_TYPE_HASH,
					   4, sizeof(dtrace_mstate_t), 1024);
	CHECK(mstate && specs && results && dt_bpf_maps_create(&h) == 0,
	      "maps: %s", h.errmsg);
	run_site_t sites[MAX_SITES];
	usdt_rtspec_t rts[MAX_SITES];
	usdt_tramp_site_t tsites[MAX_SITES];
	int nsites = 0;
	for (int b = 0; b < 2; b++)
		for (int i = 0; i < files[b]->nnotes && nsites < MAX_SITES;
		     i++) {
			const usdt_note_t *note = &files[b]->notes[i];
			sites[nsites] = (run_site_t){ note, b ? 2 : 0 };
			usdt_rtspec_fill(note, 0, &rts[nsites]);
			tsites[nsites] = (usdt_tramp_site_t){
				(uint32_t)nsites + 1, &rts[nsites] };
			nsites++;
		}
	if (ninline > nsites)
		ninline = nsites;
	dt_as_t as;
	dt_as_init(&as);
	emit_test_program(host, &as, mstate, specs, results, tsites, ninline);
	CHECK(dt_as_finish(&as) == 0, "assemble: %s", as.errmsg);
	int prog = dt_bpf_prog_load(&h, "usdt_test", &as);
	CHECK(prog >= 0, "load: %s", h.errmsg);
	if (prog < 0) {
		dt_as_fini(&as);
		dt_bpf_fini(&h);
		return;
	}

	for (int b = 0, c = 0; b < 2; b++) {
		uint64_t offs[MAX_SITES], refs[MAX_SITES], cookies[MAX_SITES];
		uint32_t n = 0;
		for (; c < nsites && sites[c].opt == (b ? 2 : 0); c++) {
			const usdt_note_t *note = sites[c].note;
			if (c >= ninline)
				CHECK(usdt_rtspec_store(specs->fd,
							(uint32_t)c + 1,
							&rts[c]) == 0,
				      "store spec");
			offs[n] = note->offset;
			refs[n] = note->sema_offset;
			cookies[n] = (uint64_t)c + 1;
			n++;
		}
		dt_attach_req_t req = {
			.prog_fd = prog, .path = bins[b], .pid = 0, .n = n,
			.offsets = offs, .ref_ctr_offsets = refs,
			.cookies = cookies,
		};
		CHECK(dt_bpf_attach_uprobes(&h, &req) == 0, "attach %s: %s",
		      bins[b], h.errmsg);
	}
	char line[256];
	for (int b = 0; b < 2; b++) {
		run_program(bins[b], line, sizeof(line));
		CHECK(strcmp(line, "guarded 1 semaphore 1") == 0,
		      "traced -O%d: '%s'", b ? 2 : 0, line);
	}
	check_results(results, sites, nsites);
	dt_as_fini(&as);
	dt_bpf_fini(&h);	/* closes the links: the counters drop */
	for (int b = 0; b < 2; b++) {
		run_program(bins[b], line, sizeof(line));
		CHECK(strcmp(line, "guarded 0 semaphore 0") == 0,
		      "untraced -O%d: '%s'", b ? 2 : 0, line);
	}
}

/* Copy file src over dst in place: dst keeps its inode. */
static int rewrite_in_place(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_TRUNC);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

/* A file rewritten while cached (same inode; a rebuilt program whose inode
 * number was reused looks the same) is read again, not served stale. */
static void test_cache_rewrite(const char *bins[2], usdt_file_t *files[2])
{
	char path[4200];
	usdt_filecache_t fc = { 0 };
	struct stat before, after;

	snprintf(path, sizeof(path), "%s/rewritten", tmpdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd >= 0)
		close(fd);
	CHECK(rewrite_in_place(bins[0], path) == 0, "%s", path);
	usdt_file_t *f1 = usdt_file_get(&fc, &test_host, NULL, path);
	CHECK(f1 != NULL && f1->nnotes == files[0]->nnotes, "%s", path);
	CHECK(stat(path, &before) == 0, "%s", path);
	CHECK(rewrite_in_place(bins[1], path) == 0, "%s", path);
	/* a later mtime even on a coarse clock */
	struct timespec t[2] = { before.st_atim, before.st_mtim };
	t[1].tv_sec += 1;
	CHECK(utimensat(AT_FDCWD, path, t, 0) == 0, "%s", path);
	CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino, "%s", path);
	usdt_file_t *f2 = usdt_file_get(&fc, &test_host, NULL, path);
	CHECK(f2 != NULL && f2 != f1, "%s", path);
	CHECK(f2 && f2->nnotes == files[1]->nnotes && f2->nnotes > 0 &&
	      f2->notes[0].offset == files[1]->notes[0].offset, "%s", path);
	CHECK(usdt_file_get(&fc, &test_host, NULL, path) == f2, "%s", path);
	usdt_filecache_free(&fc);
	unlink(path);
}

/* What the cache keeps: a file with notes, read, holds no descriptor (the
 * engine's file released); a file without notes and a file forgotten are
 * remembered by identity alone, and not read again, unless rewritten in
 * place since. */
static void test_cache_keeps(const char *bin)
{
	char path[4200];
	usdt_filecache_t fc = { 0 };
	int before = unit_open_fds();

	usdt_file_t *f = usdt_file_get(&fc, &test_host, NULL, bin);
	CHECK(f != NULL && f->nnotes > 0 && f->elf == NULL, "%s", bin);
	CHECK(unit_open_fds() == before, "%s: a descriptor stayed open", bin);
	CHECK(f != NULL && strcmp(f->notes[0].provider, "sdt_test") == 0,
	      "%s: the notes' strings", bin);
	usdt_filecache_forget(&fc, f);
	CHECK(fc.files == NULL && dtrace_htab_count(&fc.ignored) == 1, "%s", bin);
	errno = EBADF;
	CHECK(usdt_file_get(&fc, &test_host, NULL, bin) == NULL && errno == 0,
	      "%s: forgotten, read again", bin);
	CHECK(fc.files == NULL && dtrace_htab_count(&fc.ignored) == 1, "%s", bin);

	snprintf(path, sizeof(path), "%s/plain", tmpdir);
	FILE *plain = fopen(path, "w");
	CHECK(plain != NULL && fputs("not ELF\n", plain) >= 0, "%s", path);
	if (plain)
		fclose(plain);
	CHECK(usdt_file_get(&fc, &test_host, NULL, path) == NULL && errno == 0,
	      "%s", path);
	CHECK(usdt_file_get(&fc, &test_host, NULL, path) == NULL && errno == 0,
	      "%s", path);
	CHECK(fc.files == NULL && dtrace_htab_count(&fc.ignored) == 2, "%s",
	      path);
	/* rewritten in place with notes: read again, not taken as ignored */
	struct stat plain_sb;
	CHECK(stat(path, &plain_sb) == 0, "%s", path);
	CHECK(rewrite_in_place(bin, path) == 0, "%s", path);
	struct timespec t[2] = { plain_sb.st_atim, plain_sb.st_mtim };
	t[1].tv_sec += 1;
	CHECK(utimensat(AT_FDCWD, path, t, 0) == 0, "%s", path);
	f = usdt_file_get(&fc, &test_host, NULL, path);
	CHECK(f != NULL && f->nnotes > 0, "%s: rewritten, not read again", path);
	CHECK(f != NULL && usdt_file_get_known(&fc, &test_host, NULL, path,
					       plain_sb.st_dev,
					       plain_sb.st_ino) == f,
	      "%s: known by (dev, inode) as the file with notes", path);
	CHECK(dtrace_htab_count(&fc.ignored) == 1, "%s", path);
	CHECK(usdt_file_get(&fc, &test_host, NULL, "/nonexistent") == NULL &&
	      errno == ENOENT, "a missing file");
	usdt_filecache_free(&fc);
	unlink(path);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_arg_forms();
	test_arg_floats();
	test_names();
	test_system_notes();

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	const char *bins[2] = { build(0), build(2) };
	usdt_file_t *files[2] = { NULL, NULL };
	for (int b = 0; b < 2; b++) {
		int err;
		if (bins[b] == NULL) {
			failures++;
			continue;
		}
		check_sdt_args(bins[b], b ? 2 : 0);
		files[b] = usdt_file_read(&test_host, NULL, bins[b], &err);
	}
	if (files[0] && files[1]) {
		test_trampoline(&test_host, bins, files, 0);
		test_trampoline(&test_host, bins, files, USDT_INLINE_SITES);
		test_cache_rewrite(bins, files);
		test_cache_keeps(bins[0]);
	}
	for (int b = 0; b < 2; b++) {
		usdt_file_free(files[b]);
		if (bins[b])
			unlink(bins[b]);
	}
	rmdir(tmpdir);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
