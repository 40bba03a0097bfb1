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
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "dtprobed.h"
#include "../plugins/usdt/usdt_impl.h"

/* The .dtrace_prov section of the file at path, malloc'ed; NULL if none. */
static unsigned char *prov_section_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *copy = NULL;
	Elf_Data *data;
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    (data = usdt_elf_progbits(elf, ".dtrace_prov")) != NULL &&
	    data->d_size > 0 && data->d_size <= DTPV_MSG_MAX &&
	    (copy = malloc(data->d_size)) != NULL) {
		memcpy(copy, data->d_buf, data->d_size);
		*len = data->d_size;
	}
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return copy;
}

/* The run-time address of file offset off of file (dev, ino) in the
 * mappings, or 0 when no mapping (executable if exec) holds it. */
static uint64_t offset_addr(const proc_map_t *maps, int n, const proc_map_t *file,
			    uint64_t off, bool exec)
{
	for (int i = 0; i < n; i++) {
		const proc_map_t *m = &maps[i];

		if (m->dev == file->dev && m->ino == file->ino &&
		    (!exec || m->exec) && off >= m->pgoff &&
		    off - m->pgoff < m->end - m->start)
			return m->start + (off - m->pgoff);
	}
	return 0;
}

/* Append provider decl's sites (probe index as in decl) to the message. */
static uint32_t sites_put(unsigned char *msg, uint32_t at, uint32_t max,
			  const usdt_file_t *f, const usdt_decl_t *decl,
			  const proc_map_t *maps, int n, const proc_map_t *file)
{
	for (int i = 0; i < f->nnotes && at + sizeof(dtpv_site_t) <= max; i++) {
		const usdt_note_t *note = &f->notes[i];
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

/* Build provider decl's registration message from its image (size bytes,
 * checked to be in the section) and hand it to the checks, unless it has
 * no site in this process: nothing to trace. */
static void provider_register(pid_t pid, const unsigned char *image,
			      uint32_t size, const usdt_file_t *f,
			      const usdt_decl_t *decl, const proc_map_t *maps,
			      int n, const proc_map_t *file)
{
	size_t max = size + (size_t)f->nnotes * sizeof(dtpv_site_t);
	unsigned char *msg;
	usdt_reg_t *reg;
	dtpv_msg_t h;
	uint64_t base;
	char why[256];
	int op;

	if (max > DTPV_MSG_MAX) {
		dtp_log(LOG_WARNING, "refused found registration of pid %d "
			"(%s): message exceeds %u bytes", (int)pid, file->path,
			DTPV_MSG_MAX);
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
	if (h.nsites == 0) {
		free(msg);
		return;
	}
	memcpy(&h.base, msg + size, sizeof(h.base));	/* the first site */
	memcpy(msg, &h, sizeof(h));
	if (dtp_msg_parse(msg, h.size, &op, &base, &reg, why, sizeof(why)) != 0 ||
	    dtp_state_apply(pid, op, base, reg, why, sizeof(why)) != 0)
		dtp_log(LOG_WARNING, "refused found registration of pid %d "
			"(%s): %s", (int)pid, file->path, why);
	else
		dtp_log(LOG_INFO, "found registration of pid %d: provider %s "
			"in %s", (int)pid, decl->provider, file->path);
	free(msg);
}

/* Register the providers of one mapped file of pid.  The images are walked
 * as usdt_decls_parse walks them, so the k-th image is decls[k]; an image
 * that it refused (so that the probes' names are unknown) is logged. */
static void file_register(pid_t pid, const proc_map_t *maps, int n,
			  const proc_map_t *file)
{
	char path[64];
	unsigned char *sec;
	usdt_file_t *f;
	size_t len = 0, off = 0;
	int err, k = 0;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, file->start, file->end);
	if ((sec = prov_section_read(path, &len)) == NULL)
		return;
	f = usdt_file_read(path, &err);
	while (off + sizeof(dtpv_msg_t) <= len) {
		dtpv_msg_t h;

		memcpy(&h, sec + off, sizeof(h));
		if (memcmp(h.magic, DTPV_MAGIC, 4) != 0) {
			off += 8;
			continue;
		}
		if (f == NULL || k >= f->ndecls || h.size < sizeof(h) ||
		    h.size > len - off) {
			dtp_log(LOG_WARNING, "refused found registration of "
				"pid %d (%s): %s", (int)pid, file->path,
				f == NULL ? "notes unreadable" :
				"damaged declarations in .dtrace_prov");
			break;
		}
		provider_register(pid, sec + off, h.size, f, &f->decls[k++],
				  maps, n, file);
		off += (h.size + 7) & ~(size_t)7;
	}
	if (f != NULL)
		usdt_file_free(f);
	free(sec);
}

/* Was (dev, ino) seen in an executable mapping before maps[i]? */
static bool seen_before(const proc_map_t *maps, int i)
{
	for (int j = 0; j < i; j++)
		if (maps[j].exec && maps[j].dev == maps[i].dev &&
		    maps[j].ino == maps[i].ino)
			return true;
	return false;
}

/* Would pid's registration code have sent to sock?  It reads
 * DTPROBED_SOCKET from its environment, else uses the default path; a
 * process that talks to another daemon (a test's own) is left to it. */
static bool proc_uses_socket(pid_t pid, const char *sock)
{
	static const char var[] = USDT_REG_SOCKET_ENV "=";
	static char env[1 << 16];
	const char *want = USDT_REG_SOCKET_DEFAULT;
	char path[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, env, sizeof(env) - 1);
	close(fd);
	env[len > 0 ? len : 0] = '\0';
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(env + i) + 1)
		if (strncmp(env + i, var, sizeof(var) - 1) == 0 &&
		    env[i + sizeof(var) - 1] != '\0')
			want = env + i + sizeof(var) - 1;
	return strcmp(want, sock) == 0;
}

static void proc_discover(pid_t pid, const char *sock)
{
	proc_map_t *maps;
	int n;

	if (!proc_uses_socket(pid, sock) || dtp_proc_maps(pid, &maps, &n) != 0)
		return;
	for (int i = 0; i < n; i++)
		if (maps[i].exec && !seen_before(maps, i) &&
		    !dtp_state_has_file(pid, maps[i].dev, maps[i].ino))
			file_register(pid, maps, n, &maps[i]);
	free(maps);
}

void dtp_discover(const char *sock)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (isdigit((unsigned char)e->d_name[0]) && *end == '\0' &&
		    pid > 0 && pid != getpid())
			proc_discover((pid_t)pid, sock);
	}
	closedir(d);
}
