/* SPDX-License-Identifier: MIT */
/*
 * dt_link.c: dtrace -G, the object that carries the provider descriptions
 * and registers them with dtprobed.
 *
 * Steps: check every input (an ELF relocatable object; its stapsdt notes
 * name only declared probes of our providers, with the declared number of
 * arguments), build one registration message image per provider (the format
 * of libusdt's dtprobed_proto.h, written by its usdt_decl_image), write a C
 * file holding the images, the probes' semaphores and the fixed
 * registration code below, and compile it with the system C compiler ($CC,
 * else cc) into a temporary file renamed onto the output.  Inputs are only
 * read: the sites stay as the compiler made them (a nop and a note), so -G
 * can run any number of times.
 *
 * Objects compiled with -flto (no fat objects) carry no notes yet: they are
 * accepted unchecked.  Objects without probes are accepted when another
 * input has some (build systems such as PostgreSQL's pass every object);
 * when no input has any probe of the declared providers, that is an error.
 * No object at all is accepted too, as systemtap's -G accepts it (glib's
 * build calls it so): the registration code finds the sites at run time
 * (dtrace_usdt_sites), so the object serves whatever objects it is linked
 * with, unchecked.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt_usdt_gen.h"
#include "dtprobed_proto.h"	/* libusdt: the registration message */
#include "usdt_decl.h"		/* libusdt: the .dtrace_prov image */
#include "usdt_note.h"		/* libusdt: a probe site's note */

/* ---- checking the inputs ---- */

typedef struct link_check {
	dtrace_hdl_t *dtp;
	const dt_program_ast_t *prog;
	const char *obj;
	int nprobes;		/* sites of declared providers found */
	int nenabled;		/* PROV_PROBE_ENABLED() uses: references to a
				   declared probe's semaphore */
	bool lto;		/* an LTO object without notes */
} link_check_t;

static const dt_providerdecl_t *link_find_provider(const dt_program_ast_t *prog,
						   const char *name)
{
	for (const dt_providerdecl_t *pv = prog->providers; pv; pv = pv->next)
		if (strcmp(pv->name, name) == 0)
			return pv;
	return NULL;
}

static const dt_probedecl_t *link_find_probe(const dt_providerdecl_t *pv,
					     const char *name)
{
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next)
		if (strcmp(pr->name, name) == 0)
			return pr;
	return NULL;
}

/* Number of arguments in a stapsdt argument specification. */
static int link_count_args(const char *spec)
{
	int n = 0;
	bool in = false;

	for (; *spec != '\0'; spec++) {
		if (*spec == ' ') {
			in = false;
		} else if (!in) {
			in = true;
			n++;
		}
	}
	return n;
}

/* One stapsdt note's descriptor (usdt_note.h); a malformed one is not
 * ours to judge, and skipped. */
static int link_check_note(link_check_t *lc, const char *desc, size_t size)
{
	const dt_providerdecl_t *pv;
	const dt_probedecl_t *pr;
	usdt_note_desc_t d;

	if (!usdt_note_decode(desc, size, 8, &d))
		return 0;
	pv = link_find_provider(lc->prog, d.provider);
	if (pv == NULL)
		return 0;	/* another provider's <sys/sdt.h> probe */
	pr = link_find_probe(pv, d.name);
	if (pr == NULL) {
		dt_set_error(lc->dtp, "failed to link %s: probe %s:::%s is used "
			     "but not declared by provider %s", lc->obj,
			     d.provider, d.name, d.provider);
		return -1;
	}
	if (link_count_args(d.args) != pr->nargs) {
		dt_set_error(lc->dtp, "failed to link %s: probe %s:::%s fired "
			     "with %d arguments, declared with %d", lc->obj,
			     d.provider, d.name, link_count_args(d.args),
			     pr->nargs);
		return -1;
	}
	lc->nprobes++;
	return 0;
}

static int link_check_notes(link_check_t *lc, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data != NULL &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (!usdt_note_is_site((char *)data->d_buf + name_off,
				       nh.n_namesz, nh.n_type))
			continue;
		if (link_check_note(lc, (char *)data->d_buf + desc_off,
				    nh.n_descsz) != 0)
			return -1;
	}
	return 0;
}

/* The machine this dtrace writes objects for: its own. */
#if defined(__x86_64__)
#define LINK_MACHINE	EM_X86_64
#elif defined(__aarch64__)
#define LINK_MACHINE	EM_AARCH64
#else
#error "dtrace -G: unsupported machine"
#endif

/* A machine's name as people say it, for messages. */
static const char *link_machine_name(unsigned machine, char *buf, size_t len)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_AARCH64: return "AArch64";
	case EM_386: return "i386";
	case EM_ARM: return "ARM";
	case EM_RISCV: return "RISC-V";
	case EM_PPC64: return "PowerPC64";
	case EM_S390: return "s390";
	default:
		snprintf(buf, len, "machine %u", machine);
		return buf;
	}
}

/* An object of another machine (or byte order) cannot be linked with the
 * object -G writes, which is for this machine. */
static int link_check_machine(link_check_t *lc, const GElf_Ehdr *eh)
{
	char b1[32], b2[32];

	if (eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		dt_set_error(lc->dtp, "failed to link %s: its ELF header says "
			     "big-endian, and dtrace -G writes little-endian "
			     "objects", lc->obj);
		return -1;
	}
	if (eh->e_machine == LINK_MACHINE)
		return 0;
	dt_set_error(lc->dtp, "failed to link %s: its ELF header says %s, "
		     "and dtrace -G writes objects for %s", lc->obj,
		     link_machine_name(eh->e_machine, b1, sizeof(b1)),
		     link_machine_name(LINK_MACHINE, b2, sizeof(b2)));
	return -1;
}

/* Whether name is the semaphore of a declared probe (PROV_PROBE_ENABLED()
 * reads it). */
static bool link_is_semaphore(const dt_program_ast_t *prog, const char *name)
{
	for (const dt_providerdecl_t *pv = prog->providers; pv; pv = pv->next) {
		size_t n = strlen(pv->name);

		if (strncmp(name, pv->name, n) != 0 || name[n] != '_')
			continue;
		for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next) {
			size_t m = strlen(pr->name);

			if (strncmp(name + n + 1, pr->name, m) == 0 &&
			    strcmp(name + n + 1 + m, "_semaphore") == 0)
				return true;
		}
	}
	return false;
}

/* Count the object's references to declared probes' semaphores: an object
 * whose only uses are PROV_PROBE_ENABLED() is linked as DTrace links it. */
static void link_count_enabled(link_check_t *lc, Elf *elf, Elf_Scn *scn,
			       const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Sym sym;

	for (size_t i = 1; d != NULL && sh->sh_entsize != 0 &&
	     i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;

		if (gelf_getsym(d, (int)i, &sym) == NULL ||
		    sym.st_shndx != SHN_UNDEF ||
		    (name = elf_strptr(elf, sh->sh_link, sym.st_name)) == NULL)
			continue;
		if (link_is_semaphore(lc->prog, name))
			lc->nenabled++;
	}
}

static int link_check_elf(link_check_t *lc, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL) {
		dt_set_error(lc->dtp, "failed to link %s: not an ELF file",
			     lc->obj);
		return -1;
	}
	if (link_check_machine(lc, &eh) < 0)
		return -1;
	if (eh.e_type != ET_REL || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		dt_set_error(lc->dtp, "failed to link %s: not a 64-bit ELF "
			     "relocatable object", lc->obj);
		return -1;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto bad;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			goto bad;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name == NULL)
			goto bad;
		if (strncmp(name, ".gnu.lto_", 9) == 0)
			lc->lto = true;
		if (sh.sh_type == SHT_NOTE && strcmp(name, USDT_NOTE_SECTION) == 0 &&
		    link_check_notes(lc, scn) != 0)
			return -1;
		if (sh.sh_type == SHT_SYMTAB)
			link_count_enabled(lc, elf, scn, &sh);
	}
	return 0;
bad:
	dt_set_error(lc->dtp, "failed to link %s: malformed ELF file: %s",
		     lc->obj, elf_errmsg(-1));
	return -1;
}

/* Check one input; add its probe count to *nprobes, flag LTO objects. */
static int link_check_object(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
			     const char *obj, int *nprobes, bool *lto)
{
	link_check_t lc = { dtp, prog, obj, 0, 0, false };
	Elf *elf;
	int fd, rc;

	fd = open(obj, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dt_set_error(dtp, "failed to open %s: %s", obj, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL) {
		dt_set_error(dtp, "failed to link %s: not an ELF file", obj);
		close(fd);
		return -1;
	}
	rc = link_check_elf(&lc, elf);
	elf_end(elf);
	close(fd);
	*nprobes += lc.nprobes + lc.nenabled;
	*lto = *lto || (lc.lto && lc.nprobes == 0);
	return rc;
}

/* ---- the registration message image of a provider ---- */

static const char *link_type_name(const dt_type_t *t)
{
	return t ? t->name : "";
}

/* The image of pv's declaration (usdt_decl.c writes the format), malloc'ed
 * into *img and *len.  Its counts were checked (link_check_decls).
 * Returns 0 or -ENOMEM. */
static int link_image(const dt_providerdecl_t *pv, unsigned char **img,
		       size_t *len)
{
	usdt_decl_t d = { .provider = pv->name };
	int i = 0, rc;

	memcpy(d.attrs, pv->attrs, sizeof(d.attrs));
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next)
		d.nprobes++;
	d.probes = dt_zalloc(((size_t)d.nprobes + 1) * sizeof(*d.probes));
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next, i++) {
		usdt_decl_probe_t *p = &d.probes[i];

		p->name = pr->name;
		p->nargs = pr->nargs;
		p->nxargs = pr->nxargs;
		for (int a = 0; a < pr->nargs; a++)
			p->native[a] = link_type_name(pr->args[a]);
		for (int a = 0; a < pr->nxargs; a++) {
			p->xlate[a] = link_type_name(pr->xargs[a]);
			p->mapping[a] = pr->mapping ? pr->mapping[a] : a;
		}
	}
	rc = usdt_decl_image(&d, img, len);
	free(d.probes);
	return rc;
}

static int link_check_decls(dtrace_hdl_t *dtp, const dt_providerdecl_t *pv)
{
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next) {
		if (pr->nargs > DTPV_ARGS_MAX || pr->nxargs > DTPV_ARGS_MAX) {
			dt_set_error(dtp, "probe %s:::%s has more than %d "
				     "arguments", pv->name, pr->name,
				     DTPV_ARGS_MAX);
			return -1;
		}
		for (int i = 0; pr->mapping && i < pr->nxargs; i++) {
			if (pr->mapping[i] < 0 || pr->mapping[i] >= pr->nargs) {
				dt_set_error(dtp, "probe %s:::%s: translated "
					     "argument %d maps to no native "
					     "argument", pv->name, pr->name, i);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- the generated C file ---- */

/*
 * The fixed part: at load, for each provider, collect the module's sites of
 * its probes (dtrace_usdt_sites entries whose semaphore is one of the
 * provider's), append them to the image and send it to dtprobed; at unload,
 * send it again as an unregistration; in the child of a fork, send it again
 * so the child is registered under its own pid.  The message is built once,
 * at the first connection to dtprobed: on a machine without it, a program
 * reads none of its image and allocates nothing (the copy cost 21 page
 * faults for 1,000 probes).  The fork handler then makes only system calls,
 * unless the daemon came after the parent's start: the child builds the
 * message, with malloc(), which glibc's fork leaves usable.  A child
 * registers only while a dtrace session may want it named (the daemon's
 * DTPV_TRACING_SUFFIX file exists: one access()), else it costs the
 * daemon nothing, nor at its exit (only the process that registered
 * unregisters); a session that starts later finds it among the
 * processes, its file's declarations in the file.  After a
 * registration it waits for dtprobed's answer (dtprobed_proto.h,
 * Handshake), which comes once the subscribed dtrace sessions placed the
 * process's probes, so that none of its firings is missed.  Never blocks
 * for long (non-blocking socket, 100 ms to send and 200 ms for the answer
 * at most, only when connected), never raises SIGPIPE, never prints,
 * keeps errno.  Root's program connects to the daemon's privileged
 * socket (dtprobed_proto.h), out of other users' reach, and to the public
 * one when it finds none.  A message the daemon closed unanswered (it was over a
 * bound: too many connections or messages) or could not take (backlog
 * full, daemon restarting) is sent again, three times at most, after 10,
 * 100 and 400 ms; no socket at all means no daemon, and nothing is
 * retried.  The socket's path is read from the environment once, at load:
 * the fork handler and the unregistration at exit use that copy, so a
 * program that damaged its environment (environ is the program's to
 * change) still unloads cleanly.
 */
static const char link_runtime[] =
"#include <errno.h>\n"
"#include <poll.h>\n"
"#include <pthread.h>\n"
"#include <stdint.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"#include <sys/socket.h>\n"
"#include <sys/un.h>\n"
"#include <time.h>\n"
"#include <unistd.h>\n"
"struct dtpv_site_ent { uint64_t pc, sema; };\n"
"extern const struct dtpv_site_ent __start_dtrace_usdt_sites[] DTPV_HIDDEN __attribute__((weak));\n"
"extern const struct dtpv_site_ent __stop_dtrace_usdt_sites[] DTPV_HIDDEN __attribute__((weak));\n"
"extern const char dtpv_stapsdt_base __asm__(\"_.stapsdt.base\") DTPV_HIDDEN __attribute__((weak));\n"
"static int dtpv_wait_done(int fd)\n"
"{\n"
"	struct timespec t0, t;\n"
"	struct pollfd pfd = { .fd = fd, .events = POLLIN };\n"
"	unsigned char reply[16];\n"
"	long left = 200;\n"
"	clock_gettime(CLOCK_MONOTONIC, &t0);\n"
"	while (left > 0) {\n"
"		int r = poll(&pfd, 1, (int)left);\n"
"		if (r > 0)\n"
"			return recv(fd, reply, sizeof(reply), MSG_DONTWAIT) > 0 ? 1 : -1;\n"
"		if (r == 0 || errno != EINTR)\n"
"			return 0;\n"
"		clock_gettime(CLOCK_MONOTONIC, &t);\n"
"		left = 200 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);\n"
"	}\n"
"	return 0;\n"
"}\n"
"static struct sockaddr_un dtpv_sun = { .sun_family = AF_UNIX };\n"
"static struct sockaddr_un dtpv_sun_priv = { .sun_family = AF_UNIX };\n"
"static char dtpv_tracing[sizeof(dtpv_sun.sun_path) + sizeof(DTPV_TRACING_SUFFIX)];\n"
"static pid_t dtpv_registered;\n"
"static void dtpv_socket_path(void)\n"
"{\n"
"	const char *path = secure_getenv(\"DTPROBED_SOCKET\");\n"
"	if (path == NULL || *path == 0)\n"
"		path = \"/run/dtprobed.sock\";\n"
"	if (strlen(path) < sizeof(dtpv_sun.sun_path)) {\n"
"		strcpy(dtpv_sun.sun_path, path);\n"
"		strcpy(dtpv_tracing, path);\n"
"		strcat(dtpv_tracing, DTPV_TRACING_SUFFIX);\n"
"	}\n"
"	if (geteuid() == 0 && strlen(path) + sizeof(DTPV_PRIV_SUFFIX) <= sizeof(dtpv_sun.sun_path)) {\n"
"		strcpy(dtpv_sun_priv.sun_path, path);\n"
"		strcat(dtpv_sun_priv.sun_path, DTPV_PRIV_SUFFIX);\n"
"	}\n"
"}\n"
"static int dtpv_connect(int fd)\n"
"{\n"
"	if (dtpv_sun_priv.sun_path[0] != 0 &&\n"
"	    connect(fd, (struct sockaddr *)&dtpv_sun_priv, sizeof(dtpv_sun_priv)) == 0)\n"
"		return 0;\n"
"	return connect(fd, (struct sockaddr *)&dtpv_sun, sizeof(dtpv_sun));\n"
"}\n"
"static void dtpv_build(struct dtpv_desc *d)\n"
"{\n"
"	const struct dtpv_site_ent *s;\n"
"	uintptr_t lo = (uintptr_t)d->semas, hi = lo + 2 * (uintptr_t)d->nprobes;\n"
"	uint32_t n = 0, at;\n"
"	unsigned char *m;\n"
"	uint64_t base = (uintptr_t)&dtpv_stapsdt_base;\n"
"	if (__start_dtrace_usdt_sites == 0)\n"
"		return;\n"
"	for (s = __start_dtrace_usdt_sites; s < __stop_dtrace_usdt_sites; s++)\n"
"		n += s->sema >= lo && s->sema < hi;\n"
"	if (n > 200000 || (m = malloc(d->size + 24 * (size_t)n)) == NULL)\n"
"		return;\n"
"	memcpy(m, d->image, d->size);\n"
"	at = d->size;\n"
"	for (s = __start_dtrace_usdt_sites; s < __stop_dtrace_usdt_sites; s++) {\n"
"		uint32_t probe = (uint32_t)((s->sema - lo) / 2), pad = 0;\n"
"		if (s->sema < lo || s->sema >= hi)\n"
"			continue;\n"
"		memcpy(m + at, &s->pc, 8); memcpy(m + at + 8, &s->sema, 8);\n"
"		memcpy(m + at + 16, &probe, 4); memcpy(m + at + 20, &pad, 4);\n"
"		at += 24;\n"
"	}\n"
"	memcpy(m + DTPV_OFF_SIZE, &at, 4);\n"
"	memcpy(m + DTPV_OFF_NSITES, &n, 4);\n"
"	memcpy(m + DTPV_OFF_BASE, &base, 8);\n"
"	d->msg = m;\n"
"	d->msgsize = at;\n"
"}\n"
"static int dtpv_send_once(struct dtpv_desc *d, uint16_t op)\n"
"{\n"
"	struct pollfd pfd;\n"
"	ssize_t sent;\n"
"	int fd, rc;\n"
"	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);\n"
"	if (fd < 0)\n"
"		return 1;\n"
"	if (dtpv_connect(fd) != 0) {\n"
"		rc = errno == EAGAIN || errno == ECONNREFUSED ? -1 : 1;\n"
"		close(fd);\n"
"		return rc;\n"
"	}\n"
"	if (d->msg == NULL)\n"
"		dtpv_build(d);\n"
"	if (d->msg == NULL) {\n"
"		close(fd);\n"
"		return 1;\n"
"	}\n"
"	memcpy(d->msg + DTPV_OFF_OP, &op, 2);\n"
"	sent = send(fd, d->msg, d->msgsize, MSG_NOSIGNAL | MSG_DONTWAIT);\n"
"	if (sent < 0 && errno == EAGAIN) {\n"
"		pfd.fd = fd; pfd.events = POLLOUT;\n"
"		if (poll(&pfd, 1, 100) == 1)\n"
"			sent = send(fd, d->msg, d->msgsize, MSG_NOSIGNAL | MSG_DONTWAIT);\n"
"	}\n"
"	if (sent != (ssize_t)d->msgsize)\n"
"		rc = -1;\n"
"	else\n"
"		rc = op == 1 ? dtpv_wait_done(fd) : 1;\n"
"	close(fd);\n"
"	return rc;\n"
"}\n"
"static void dtpv_send(struct dtpv_desc *d, uint16_t op)\n"
"{\n"
"	static const long pause_ms[] = { 10, 100, 400 };\n"
"	int saved = errno;\n"
"	if (dtpv_sun.sun_path[0] == 0)\n"
"		return;\n"
"	for (unsigned i = 0; dtpv_send_once(d, op) < 0 && i < 3; i++) {\n"
"		struct timespec ts = { 0, pause_ms[i] * 1000000 };\n"
"		nanosleep(&ts, NULL);\n"
"	}\n"
"	errno = saved;\n"
"}\n"
"static void dtpv_register_all(void)\n"
"{\n"
"	for (unsigned i = 0; i < sizeof(dtpv_descs) / sizeof(dtpv_descs[0]); i++)\n"
"		dtpv_send(&dtpv_descs[i], 1);\n"
"	dtpv_registered = getpid();\n"
"}\n"
"static void dtpv_atfork_child(void)\n"
"{\n"
"	int saved = errno;\n"
"	if (dtpv_tracing[0] != 0 && access(dtpv_tracing, F_OK) == 0)\n"
"		dtpv_register_all();\n"
"	errno = saved;\n"
"}\n"
"__attribute__((constructor)) static void dtpv_init(void)\n"
"{\n"
"	int saved = errno;\n"
"	dtpv_socket_path();\n"
"	dtpv_register_all();\n"
"	(void)pthread_atfork(NULL, NULL, dtpv_atfork_child);\n"
"	errno = saved;\n"
"}\n"
"__attribute__((destructor)) static void dtpv_fini(void)\n"
"{\n"
"	for (unsigned i = 0; i < sizeof(dtpv_descs) / sizeof(dtpv_descs[0]); i++) {\n"
"		if (dtpv_descs[i].msg && dtpv_registered == getpid())\n"
"			dtpv_send(&dtpv_descs[i], 2);\n"
"		free(dtpv_descs[i].msg);\n"
"		dtpv_descs[i].msg = NULL;\n"
"	}\n"
"}\n";

/* The data part of provider number idx: image, semaphores (one array in
 * .probes; each probe's named semaphore is an alias into it, so the
 * run-time code finds a site's probe from its semaphore address).
 * Returns 0 or -ENOMEM. */
static int link_emit_provider(FILE *f, const dt_providerdecl_t *pv, int idx)
{
	unsigned char *img;
	size_t len;
	int nprobes = 0, i = 0;

	if (link_image(pv, &img, &len) != 0)
		return -ENOMEM;
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next)
		nprobes++;
	fprintf(f, "/* provider %s */\n", pv->name);
	/* A string literal as long as the array (no NUL kept): the compiler
	 * reads it far faster than as many integer constants, whose cost
	 * grew faster than their number. */
	fprintf(f, "static const unsigned char dtpv_image_%d[%zu] "
		"__attribute__((section(\".dtrace_prov\"), aligned(8), used)) =",
		idx, len);
	for (size_t k = 0; k < len; k++)
		fprintf(f, "%s\\x%02x%s", k % 16 ? "" : "\n\t\"",
			img[k], k % 16 == 15 || k + 1 == len ? "\"" : "");
	fprintf(f, "%s;\n", len ? "" : " \"\"");
	fprintf(f, "volatile unsigned short dtpv_semas_%d_%s[%d] DTPV_HIDDEN "
		"__attribute__((section(\".probes\"), aligned(2), used));\n",
		idx, pv->name, nprobes ? nprobes : 1);
	for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next, i++)
		fprintf(f, "__asm__(\".globl %s_%s_semaphore\\n.hidden "
			"%s_%s_semaphore\\n.type %s_%s_semaphore, @object\\n"
			".size %s_%s_semaphore, 2\\n.set %s_%s_semaphore, "
			"dtpv_semas_%d_%s + %d\\n\");\n", pv->name, pr->name,
			pv->name, pr->name, pv->name, pr->name, pv->name,
			pr->name, pv->name, pr->name, idx, pv->name, 2 * i);
	free(img);
	return 0;
}

static int link_write_source(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
			     const char *path)
{
	const dt_providerdecl_t *pv;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int n = 0, rc;

	if (f == NULL) {
		dt_set_error(dtp, "failed to link: %s", strerror(errno));
		return -1;
	}
	fprintf(f, "/* Generated by dtrace -G: provider descriptions and "
		"their registration with dtprobed. */\n#define _GNU_SOURCE\n");
	fprintf(f, "#define DTPV_HIDDEN __attribute__((visibility(\"hidden\")))\n");
	fprintf(f, "#define DTPV_PRIV_SUFFIX \"%s\"\n", DTPV_PRIV_SUFFIX);
	fprintf(f, "#define DTPV_TRACING_SUFFIX \"%s\"\n",
		DTPV_TRACING_SUFFIX);
	fprintf(f, "#define DTPV_OFF_OP %zu\n#define DTPV_OFF_SIZE %zu\n"
		"#define DTPV_OFF_NSITES %zu\n#define DTPV_OFF_BASE %zu\n",
		offsetof(dtpv_msg_t, op), offsetof(dtpv_msg_t, size),
		offsetof(dtpv_msg_t, nsites), offsetof(dtpv_msg_t, base));
	for (pv = prog->providers; pv != NULL; pv = pv->next) {
		if (link_emit_provider(f, pv, n++) != 0) {
			fclose(f);
			free(buf);
			dt_set_error(dtp, "failed to link: out of memory");
			return -1;
		}
	}
	fprintf(f, "struct dtpv_desc { const unsigned char *image; "
		"unsigned size; volatile unsigned short *semas; unsigned nprobes; "
		"unsigned char *msg; unsigned msgsize; };\n");
	fprintf(f, "static struct dtpv_desc dtpv_descs[] = {\n");
	n = 0;
	for (pv = prog->providers; pv != NULL; pv = pv->next, n++) {
		int np = 0;

		for (const dt_probedecl_t *pr = pv->probes; pr; pr = pr->next)
			np++;
		fprintf(f, "\t{ dtpv_image_%d, sizeof(dtpv_image_%d), "
			"dtpv_semas_%d_%s, %d, 0, 0 },\n", n, n, n, pv->name, np);
	}
	fprintf(f, "};\n%s", link_runtime);
	fclose(f);
	rc = dt_usdt_write_file(dtp, path, buf, size);
	free(buf);
	return rc;
}

/* Run $CC (else cc) -c -fPIC on src into obj; 0 or -1 with an error. */
static int link_compile(dtrace_hdl_t *dtp, const char *src, const char *obj)
{
	const char *cc = getenv("CC");
	char cmd[8192];
	int status;

	if (cc == NULL || *cc == '\0')
		cc = "cc";
	/* $CC may hold several words ("ccache gcc"), hence the shell; the
	 * paths are ours (a mkdtemp directory), quoted all the same. */
	snprintf(cmd, sizeof(cmd), "%s -std=gnu11 -O2 -fPIC -fno-lto -c "
		 "-o '%s' '%s'", cc, obj, src);
	status = system(cmd);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		dt_set_error(dtp, "failed to link: the C compiler (%s) failed "
			     "on the generated %s", cc, src);
		return -1;
	}
	return 0;
}

static int link_check_inputs(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
			     char *const objs[], int nobjs)
{
	int nprobes = 0;
	bool lto = false;

	if (prog->providers == NULL) {
		dt_set_error(dtp, "failed to link: no providers are declared");
		return -1;
	}
	for (const dt_providerdecl_t *pv = prog->providers; pv; pv = pv->next)
		if (link_check_decls(dtp, pv) != 0)
			return -1;
	if (nobjs == 0)		/* the script alone, as systemtap's -G */
		return 0;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		dt_set_error(dtp, "failed to link: libelf: %s", elf_errmsg(-1));
		return -1;
	}
	for (int i = 0; i < nobjs; i++)
		if (link_check_object(dtp, prog, objs[i], &nprobes, &lto) != 0)
			return -1;
	if (nprobes == 0 && !lto) {
		dt_set_error(dtp, "failed to link: no probe sites of provider "
			     "%s found in %s%s", prog->providers->name, objs[0],
			     nobjs > 1 ? " and the other objects" : "");
		return -1;
	}
	return 0;
}

/* Copy the compiled object onto out_path atomically (it may be on another
 * file system than the temporary directory). */
static int link_move(dtrace_hdl_t *dtp, const char *obj, const char *out_path)
{
	char *buf = NULL;
	size_t size = 0, cap = 0;
	ssize_t n;
	int fd = open(obj, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		dt_set_error(dtp, "failed to link: %s: %s", obj, strerror(errno));
		return -1;
	}
	for (;;) {
		if (size == cap)
			buf = dt_realloc(buf, cap = cap * 2 + 65536);
		n = read(fd, buf + size, cap - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size += (size_t)n;
	}
	close(fd);
	if (n < 0) {
		dt_set_error(dtp, "failed to link: %s: %s", obj, strerror(errno));
		free(buf);
		return -1;
	}
	rc = dt_usdt_write_file(dtp, out_path, buf, size);
	free(buf);
	return rc;
}

int dt_link_generate(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
		     const char *out_path, char *const objs[], int nobjs)
{
	char dir[] = "/tmp/dtrace-G.XXXXXX", src[64], obj[64];
	int rc = -1;

	if (link_check_inputs(dtp, prog, objs, nobjs) != 0)
		return -1;
	for (int i = 0; i < nobjs; i++) {
		if (strcmp(objs[i], out_path) == 0) {
			dt_set_error(dtp, "failed to link: output %s is also an "
				     "input", out_path);
			return -1;
		}
	}
	if (mkdtemp(dir) == NULL) {
		dt_set_error(dtp, "failed to link: %s", strerror(errno));
		return -1;
	}
	snprintf(src, sizeof(src), "%s/prov.c", dir);
	snprintf(obj, sizeof(obj), "%s/prov.o", dir);
	if (link_write_source(dtp, prog, src) == 0 &&
	    link_compile(dtp, src, obj) == 0)
		rc = link_move(dtp, obj, out_path);
	if (getenv("DTRACE_KEEP_G") == NULL)
		unlink(src);
	unlink(obj);
	rmdir(dir);
	return rc;
}
