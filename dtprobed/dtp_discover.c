/* SPDX-License-Identifier: MIT */
/*
 * dtp_discover.c: registrations that were sent while no daemon listened.
 *
 * A program linked with a `dtrace -G` object registers from a constructor
 * and gives up after a few retries, so one started while dtprobed was down
 * would stay unknown.  At start the daemon walks /proc/PID/maps: every file
 * mapped executable that carries a .dtrace_prov section and that the state
 * does not hold for that process is registered under the process's pid,
 * when the process would have sent its registration to this daemon's
 * socket (DTPROBED_SOCKET in its environment, else the default).
 * The message is the one the program's own registration code would send:
 * each provider's image from .dtrace_prov, followed by the provider's sites
 * from the file's .note.stapsdt, turned into run-time addresses through the
 * process's mappings.  The file is read through /proc/PID/map_files (the
 * mapped inode itself, in any mount namespace); the message then goes
 * through the same checks (dtp_msg_parse, dtp_state_apply) as one received
 * on the socket, since the file is as untrusted as a message.
 *
 * Isolation.  The file belongs to any process on the machine, so its ELF is
 * read (libdtcommon's ELF and note reader, the declaration reader) in a
 * child forked for that file, never in the daemon: the child runs under
 * limits (address space, CPU time, no files written, no new privileges,
 * killed with the daemon) and is jailed as the message parser is, as far
 * as a reader that opens a file and allocates can be: a seccomp filter
 * refuses (EPERM) every system call that changes anything outside it
 * (opening for writing, creating, removing or renaming files, signals to
 * others, exec, sockets, ptrace, bpf, mounts...), so that a reader
 * subverted by a crafted file can still only read.  It gets
 * DISCOVER_TIMEOUT_MS, and can only write records to a pipe:
 * 'M' and a built message, or 'E' and why the file was refused.  The
 * daemon reads at most DISCOVER_OUT_MAX bytes, kills a child that overruns
 * either bound, and hands each message to the checks above.  Files larger
 * than DISCOVER_FILE_MAX are not read.
 */
#include <ctype.h>
#include <dirent.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"
#include "dt_array.h"		/* from libdtcommon.a */
#include "dt_elf.h"
#include "dt_procfs.h"
#include "usdt_decl.h"		/* libusdt: .dtrace_prov declarations */

#define DISCOVER_NO_PROVIDERS	3		/* the child's status: the file
						   declares no provider */
#define DISCOVER_FILE_MAX	(1ull << 30)	/* bytes of a file read */
#define DISCOVER_TIMEOUT_MS	2000		/* for the child, per file */
#define DISCOVER_OUT_MAX	(8u * DTPV_MSG_MAX) /* the child's records */
#define DISCOVER_HEAP		(256ull << 20)	/* address space beyond the
						   file's size */

/* What the child read of one file: its <sys/sdt.h> sites and provider
 * declarations. */
typedef struct file_probes {
	const dtrace_stapsdt_t *notes;
	size_t nnotes;
	usdt_decl_t *decls;
	int ndecls;
} file_probes_t;

/* The .dtrace_prov section of f, malloc'ed; NULL if none. */
static unsigned char *prov_section_read(const dt_elf_file_t *f, size_t *len)
{
	const dt_elf_scn_t *scn = dt_elf_section(f, ".dtrace_prov");
	unsigned char *copy;

	if (scn == NULL || scn->type != SHT_PROGBITS || scn->size == 0 ||
	    scn->size > DTPV_MSG_MAX || (copy = malloc(scn->size)) == NULL)
		return NULL;
	if (dt_elf_read(f, scn->offset, copy, scn->size) != (ssize_t)scn->size) {
		free(copy);
		return NULL;
	}
	*len = scn->size;
	return copy;
}

/* The run-time address of file offset off of file (dev, ino) in the
 * mappings, or 0 when no mapping (executable if exec) holds it. */
static uint64_t offset_addr(const dt_mapping_t *maps, size_t n, const dt_mapping_t *file,
			    uint64_t off, bool exec)
{
	for (size_t i = 0; i < n; i++) {
		const dt_mapping_t *m = &maps[i];

		if (m->dev == file->dev && m->ino == file->ino &&
		    (!exec || (m->prot & PROT_EXEC)) && off >= m->pgoff &&
		    off - m->pgoff < m->end - m->start)
			return m->start + (off - m->pgoff);
	}
	return 0;
}

/* Append provider decl's sites (probe index as in decl) to the message. */
static uint32_t sites_put(unsigned char *msg, uint32_t at, uint32_t max,
			  const file_probes_t *f, const usdt_decl_t *decl,
			  const dt_mapping_t *maps, size_t n, const dt_mapping_t *file)
{
	for (size_t i = 0; i < f->nnotes && at + sizeof(dtpv_site_t) <= max; i++) {
		const dtrace_stapsdt_t *note = &f->notes[i];
		dtpv_site_t s = { 0 };
		int probe = -1;

		if (strcmp(note->provider, decl->provider) != 0)
			continue;
		for (int j = 0; j < decl->nprobes && probe < 0; j++)
			if (strcmp(decl->probes[j].name, note->name) == 0)
				probe = j;
		s.addr = offset_addr(maps, n, file, note->offset, true);
		if (probe < 0 || s.addr == 0)
			continue;
		s.sema = note->sema_offset ?
			offset_addr(maps, n, file, note->sema_offset, false) : 0;
		s.probe = (uint32_t)probe;
		memcpy(msg + at, &s, sizeof(s));
		at += sizeof(s);
	}
	return at;
}

/* The child's records on fd: a type byte ('M' message, 'E' reason), the
 * length (4 bytes), the bytes.  false when the pipe failed. */
static bool record_put(int fd, char type, const void *p, uint32_t len)
{
	unsigned char head[5] = { (unsigned char)type };
	const unsigned char *parts[2] = { head, p };
	size_t lens[2] = { sizeof(head), len };

	memcpy(head + 1, &len, 4);
	for (int i = 0; i < 2; i++) {
		for (size_t done = 0; done < lens[i];) {
			ssize_t n = write(fd, parts[i] + done, lens[i] - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return false;
			done += (size_t)n;
		}
	}
	return true;
}

static void reason_put(int fd, const char *why)
{
	record_put(fd, 'E', why, (uint32_t)strlen(why));
}

/* Build provider decl's registration message from its image (size bytes,
 * checked to be in the section) and write it to fd, unless it has no site
 * in this process: nothing to trace. */
static void provider_put(int fd, const unsigned char *image, uint32_t size,
			 const file_probes_t *f, const usdt_decl_t *decl,
			 const dt_mapping_t *maps, size_t n, const dt_mapping_t *file)
{
	size_t max = size + f->nnotes * sizeof(dtpv_site_t);
	unsigned char *msg;
	dtpv_msg_t h;

	if (max > DTPV_MSG_MAX) {
		reason_put(fd, "message exceeds the size limit");
		return;
	}
	if ((msg = malloc(max)) == NULL)
		return;
	memcpy(msg, image, size);
	memcpy(&h, msg, sizeof(h));
	h.size = sites_put(msg, size, (uint32_t)max, f, decl, maps, n, file);
	h.op = DTPV_OP_REGISTER;
	h.sites_off = size;
	h.nsites = (h.size - size) / (uint32_t)sizeof(dtpv_site_t);
	if (h.nsites > 0) {
		memcpy(&h.base, msg + size, sizeof(h.base)); /* the first site */
		memcpy(msg, &h, sizeof(h));
		record_put(fd, 'M', msg, h.size);
	}
	free(msg);
}

/* The messages of the providers of one mapped file (path), to fd.  The
 * images are walked as usdt_decls_parse walks them, so the k-th image is
 * decls[k]; an image that it refused (so that the probes' names are
 * unknown) is a reason.  false when the file declares no provider (it is
 * not ELF or has no .dtrace_prov). */
static bool file_put(int fd, const char *path, const dt_mapping_t *maps,
		     size_t n, const dt_mapping_t *file)
{
	dt_elf_cache_t *cache = dt_elf_cache_create();
	const dt_elf_file_t *ef;
	file_probes_t fp = { 0 }, *f = NULL;
	unsigned char *sec = NULL;
	size_t len = 0, off = 0;
	bool none = false;
	int k = 0, err;

	if (cache == NULL)
		return true;
	if ((err = dt_elf_open(cache, path, &ef, NULL, 0)) != 0) {
		none = err == -ENOEXEC;		/* not ELF */
		goto out;
	}
	if ((sec = prov_section_read(ef, &len)) == NULL) {
		none = dt_elf_section(ef, ".dtrace_prov") == NULL;
		goto out;
	}
	if (dt_elf_stapsdt(cache, ef, &fp.notes, &fp.nnotes, NULL, 0) == 0 &&
	    (fp.ndecls = usdt_decls_parse(sec, len, &fp.decls)) >= 0)
		f = &fp;
	while (off + sizeof(dtpv_msg_t) <= len) {
		dtpv_msg_t h;

		memcpy(&h, sec + off, sizeof(h));
		if (memcmp(h.magic, DTPV_MAGIC, 4) != 0) {
			off += 8;
			continue;
		}
		if (f == NULL || k >= f->ndecls || h.size < sizeof(h) ||
		    h.size > len - off) {
			reason_put(fd, f == NULL ? "notes unreadable" :
				   "damaged declarations in .dtrace_prov");
			break;
		}
		provider_put(fd, sec + off, h.size, f, &f->decls[k++], maps, n,
			     file);
		off += (h.size + 7) & ~(size_t)7;
	}
	if (f != NULL)
		usdt_decls_free(f->decls, f->ndecls);
out:
	free(sec);
	dt_elf_cache_destroy(cache);
	return !none;
}

/* The files found to declare no provider in this walk, by (dev, ino):
 * most processes map the same libraries, each read once. */
typedef struct walk {
	uint64_t (*none)[2];
	size_t nnone, cap;
} walk_t;

static bool walk_known_none(const walk_t *w, const dt_mapping_t *m)
{
	for (size_t i = 0; i < w->nnone; i++)
		if (w->none[i][0] == m->dev && w->none[i][1] == m->ino)
			return true;
	return false;
}

static void walk_add_none(walk_t *w, const dt_mapping_t *m)
{
	if (DT_ARRAY_ROOM(w->none, w->nnone, w->cap) == 0) {
		w->none[w->nnone][0] = m->dev;
		w->none[w->nnone++][1] = m->ino;
	}
}

#ifdef __x86_64__
/* The system calls the reader child may not make: none of them reads a
 * file, and each could change something outside the child. */
static const int jail_refused[] = {
	SYS_open, SYS_creat, SYS_execve, SYS_execveat, SYS_fork, SYS_vfork,
	SYS_clone, SYS_clone3, SYS_kill, SYS_tkill, SYS_tgkill,
	SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_pidfd_open,
	SYS_pidfd_send_signal, SYS_pidfd_getfd, SYS_ptrace,
	SYS_process_vm_writev, SYS_process_vm_readv, SYS_socket,
	SYS_socketpair, SYS_connect, SYS_bind, SYS_sendto, SYS_sendmsg,
	SYS_unlink, SYS_unlinkat, SYS_rmdir, SYS_rename, SYS_renameat,
	SYS_renameat2, SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat,
	SYS_mkdir, SYS_mkdirat, SYS_mknod, SYS_mknodat, SYS_chmod,
	SYS_fchmod, SYS_fchmodat, SYS_chown, SYS_fchown, SYS_lchown,
	SYS_fchownat, SYS_truncate, SYS_ftruncate, SYS_fallocate,
	SYS_utimensat, SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr,
	SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr, SYS_mount,
	SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_setns, SYS_unshare,
	SYS_bpf, SYS_perf_event_open, SYS_init_module, SYS_finit_module,
	SYS_delete_module, SYS_kexec_load, SYS_reboot, SYS_io_uring_setup,
	SYS_name_to_handle_at, SYS_open_by_handle_at, SYS_setuid,
	SYS_setgid, SYS_setreuid, SYS_setregid, SYS_setresuid,
	SYS_setresgid, SYS_setgroups, SYS_setpriority, SYS_ioctl,
	SYS_keyctl, SYS_add_key, SYS_request_key, SYS_fanotify_init,
	SYS_inotify_init1, SYS_userfaultfd, SYS_memfd_create,
};

#define JAIL_LEN	(6 + sizeof(jail_refused) / sizeof(jail_refused[0]) + 5)

/* The filter: another architecture's calls (and x32's) kill the child;
 * an openat for anything but reading and a refused call fail with
 * EPERM; the rest is allowed. */
static int jail_enter(void)
{
	enum { N = sizeof(jail_refused) / sizeof(jail_refused[0]) };
	struct sock_filter f[JAIL_LEN] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	size_t at = 6;

	for (int i = 0; i < N; i++)	/* a match jumps to the EPERM */
		f[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
			BPF_K, (uint32_t)jail_refused[i], (uint8_t)(N - i + 3),
			0);
	/* openat(dirfd, path, flags): anything but O_RDONLY is refused */
	f[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					       SYS_openat, 0, 2);
	f[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, args[2]));
	f[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND,
		1, 0);
	f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					       SECCOMP_RET_ALLOW);
	f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	struct sock_fprog prog = { (unsigned short)at, f };

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
#else
/* The list above names x86-64's calls: elsewhere, the limits alone. */
static int jail_enter(void)
{
	return 0;
}
#endif

/*
 * DTPROBED_FAULT_DISCOVER_ESCAPE=DIR, for the tests only: what a reader
 * subverted by a crafted file would try, tried by every reader child once
 * jailed (test/sh/dtprobed/dtprobed_discover_malformed.sh): create
 * DIR/created, remove DIR/kept and end the daemon; then a reason record
 * says what each got, which the daemon logs.
 */
static void jail_probe(void)
{
	const char *dir = getenv("DTPROBED_FAULT_DISCOVER_ESCAPE");
	char path[PATH_MAX], why[128];
	int created, removed, signalled;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/created", dir);
	created = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	snprintf(why, sizeof(why), "escape: create %s", created >= 0 ? "done" :
		 strerror(errno));
	snprintf(path, sizeof(path), "%s/kept", dir);
	removed = unlink(path);
	snprintf(why + strlen(why), sizeof(why) - strlen(why),
		 ", remove %s", removed == 0 ? "done" : strerror(errno));
	signalled = kill(getppid(), SIGTERM);
	snprintf(why + strlen(why), sizeof(why) - strlen(why),
		 ", signal %s", signalled == 0 ? "done" : strerror(errno));
	reason_put(3, why);
}

/* The child that reads one file: limits first, then the file; never
 * returns. */
static _Noreturn void file_child(const char *path, uint64_t size,
				 const dt_mapping_t *maps, size_t n,
				 const dt_mapping_t *file, int fd)
{
	struct rlimit as = { size + DISCOVER_HEAP, size + DISCOVER_HEAP };
	struct rlimit cpu = { 2, 3 }, none = { 0, 0 };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer's shadow takes terabytes of address space */
	as.rlim_cur = as.rlim_max = RLIM_INFINITY;
#endif
	if (dup2(fd, 3) < 0 || syscall(SYS_close_range, 4, ~0u, 0) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_DUMPABLE, 0) != 0 ||
	    setrlimit(RLIMIT_AS, &as) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0 ||
	    setrlimit(RLIMIT_FSIZE, &none) != 0 ||
	    setrlimit(RLIMIT_CORE, &none) != 0 || jail_enter() != 0)
		_exit(2);
	jail_probe();
	_exit(file_put(3, path, maps, n, file) ? 0 : DISCOVER_NO_PROVIDERS);
}

/* The child's records (bounded in size and time) into *buf; 0, or -errno
 * when it overran a bound or the pipe failed. */
static int child_collect(int fd, unsigned char **buf, size_t *len)
{
	struct timespec t0, t;
	size_t cap = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*buf = NULL;
	*len = 0;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = DISCOVER_TIMEOUT_MS -
			    ((t.tv_sec - t0.tv_sec) * 1000 +
			     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
			return -ETIMEDOUT;
		if (*len == cap) {
			unsigned char *b;

			if (cap >= DISCOVER_OUT_MAX)
				return -E2BIG;
			if ((b = realloc(*buf, cap = cap * 2 + 65536)) == NULL)
				return -ENOMEM;
			*buf = b;
		}
		ssize_t n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -errno;
		*len += (size_t)n;
	}
}

/* A reason from the child, printable only, for the log. */
static void reason_log(pid_t pid, const dt_mapping_t *file,
		       const unsigned char *p, uint32_t len)
{
	char why[128];
	uint32_t i;

	for (i = 0; i < len && i < sizeof(why) - 1; i++)
		why[i] = isprint(p[i]) ? (char)p[i] : '?';
	why[i] = '\0';
	dtp_log(LOG_WARNING, "refused found registration of pid %d (%s): %s",
		(int)pid, file->path, why);
}

/* One message the child built: through the checks of the socket's. */
static void message_register(pid_t pid, const dt_mapping_t *file,
			     const unsigned char *msg, uint32_t len)
{
	usdt_reg_t *reg;
	uint64_t base;
	char why[256], provider[128] = "";
	int op;

	if (dtp_msg_parse(msg, len, &op, &base, &reg, why, sizeof(why)) == 0)
		snprintf(provider, sizeof(provider), "%s", reg->provider);
	else
		reg = NULL;
	if (reg == NULL ||
	    dtp_state_apply(pid, op, base, reg, why, sizeof(why)) != 0)
		dtp_log(LOG_WARNING, "refused found registration of pid %d "
			"(%s): %s", (int)pid, file->path, why);
	else
		dtp_log(LOG_INFO, "found registration of pid %d: provider %s "
			"in %s", (int)pid, provider, file->path);
}

/* Act on the child's records (len bytes, untrusted). */
static void records_apply(pid_t pid, const dt_mapping_t *file,
			  const unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= 5) {
		uint32_t n;

		memcpy(&n, buf + off + 1, 4);
		if (n > len - off - 5 || n > DTPV_MSG_MAX)
			break;
		if (buf[off] == 'M')
			message_register(pid, file, buf + off + 5, n);
		else
			reason_log(pid, file, buf + off + 5, n);
		off += 5 + (size_t)n;
	}
}

/*
 * Can the file at path (size bytes) carry a .dtrace_prov section: is it
 * a 64-bit ELF file whose section headers lie within it?  Read here, in
 * the daemon, is its header's first 64 bytes only, four fields of it
 * compared; the rest is read in the child.  A process mapping 5,000 small
 * files executable delayed the daemon's start from 0.13 s to 11.4 s, a
 * child forked for each.
 */
static bool file_may_declare(const char *path, uint64_t size)
{
	Elf64_Ehdr eh;
	bool may;
	int fd;

	if (size < sizeof(eh))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	may = pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	      memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shnum > 0 &&
	      eh.e_shoff < size &&
	      (uint64_t)eh.e_shnum * eh.e_shentsize <= size - eh.e_shoff;
	close(fd);
	return may;
}

/* Register the providers of one mapped file of pid, read in a child. */
static void file_register(walk_t *w, pid_t pid, const dt_mapping_t *maps,
			  size_t n, const dt_mapping_t *file)
{
	char path[64];
	unsigned char *buf = NULL;
	size_t len = 0;
	struct stat sb;
	int pfd[2], status = 0, rc;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, file->start, file->end);
	if (stat(path, &sb) != 0)
		return;
	if ((uint64_t)sb.st_size > DISCOVER_FILE_MAX) {
		dtp_log(LOG_WARNING, "found registration of pid %d (%s) not "
			"read: the file is larger than %llu bytes", (int)pid,
			file->path, (unsigned long long)DISCOVER_FILE_MAX);
		return;
	}
	if (!file_may_declare(path, (uint64_t)sb.st_size)) {
		walk_add_none(w, file);
		return;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return;
	pid_t child = fork();
	if (child == 0)
		file_child(path, (uint64_t)sb.st_size, maps, n, file, pfd[1]);
	close(pfd[1]);
	rc = child < 0 ? -errno : child_collect(pfd[0], &buf, &len);
	close(pfd[0]);
	if (child > 0 && rc != 0)
		kill(child, SIGKILL);
	while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == DISCOVER_NO_PROVIDERS)
		walk_add_none(w, file);
	else if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		dtp_log(LOG_WARNING, "refused found registration of pid %d "
			"(%s): its reader %s", (int)pid, file->path,
			rc == -ETIMEDOUT ? "timed out" : rc == -E2BIG ?
			"wrote too much" : "failed");
	else
		records_apply(pid, file, buf, len);
	free(buf);
}

/* Was (dev, ino) seen in an executable mapping before maps[i]? */
static bool seen_before(const dt_mapping_t *maps, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if ((maps[j].prot & PROT_EXEC) && maps[j].dev == maps[i].dev &&
		    maps[j].ino == maps[i].ino)
			return true;
	return false;
}

/* Would pid's registration code have sent to sock?  It reads
 * DTPROBED_SOCKET from its environment, else uses the default path; a
 * process that talks to another daemon (a test's own) is left to it. */
static bool proc_uses_socket(pid_t pid, const char *sock)
{
	static char env[1 << 16];
	const char *want = dt_procfs_getenv(pid, USDT_REG_SOCKET_ENV, env,
					    sizeof(env));

	if (want == NULL || *want == '\0')	/* as its secure_getenv() */
		want = USDT_REG_SOCKET_DEFAULT;
	return strcmp(want, sock) == 0;
}

static void proc_discover(walk_t *w, pid_t pid, const char *sock)
{
	dt_mapping_t *maps;
	size_t n;

	if (!proc_uses_socket(pid, sock) || dt_proc_maps(pid, &maps, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (dt_mapping_is_file(&maps[i]) &&
		    (maps[i].prot & PROT_EXEC) && !seen_before(maps, i) &&
		    !walk_known_none(w, &maps[i]) &&
		    !dtp_state_has_file(pid, maps[i].dev, maps[i].ino))
			file_register(w, pid, maps, n, &maps[i]);
	dt_proc_maps_free(maps, n);
}

void dtp_discover(const char *sock)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	walk_t w = { 0 };

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (isdigit((unsigned char)e->d_name[0]) && *end == '\0' &&
		    pid > 0 && pid != getpid())
			proc_discover(&w, (pid_t)pid, sock);
	}
	closedir(d);
	free(w.none);
}
