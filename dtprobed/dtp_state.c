/* SPDX-License-Identifier: MIT */
/*
 * dtp_state.c: the processes dtprobed knows, their registrations, and the
 * two places those are published: the state directory (one file per pid,
 * written atomically, format in usdt_reg.c) and the pinned BPF map keyed on
 * (pid, site address) (layout in usdt_reg.h).
 *
 * Privacy.  The state directory is 0700 and its files 0600: they show
 * where every registered process, root's too, maps what.  Readers are
 * root or dtrace with CAP_DAC_READ_SEARCH (which tracefs needs too).
 *
 * Invariants.  A process is known iff its state file exists; the map holds
 * an entry for (pid, site) iff the state file of pid lists the site.  Every
 * change goes: memory, then file, then map.  At start the files are the
 * truth: they are read back, dead processes dropped, and the map is cleared
 * and refilled from them, so dtrace sessions holding the map keep working
 * across a restart (the pinned map is reused, not recreated).
 *
 * Identity.  A process is (pid, start time from /proc/PID/stat); a
 * registration is (pid, module dev/inode, provider): registering again
 * replaces.  The module is the file mapped at the message's base address,
 * found in /proc/PID/maps; every site must lie in an executable mapping of
 * that same file, so a process can describe only its own code.
 *
 * Exit and exec are found by a check every second (dtp_state_check): the
 * start time changed or /proc/PID vanished (exit), or the file is no longer
 * mapped where its sites were (exec).  An exec of the same file at the same
 * address is not seen, but the new image registers again and replaces the
 * registration.  Chosen over the proc connector (needs CAP_NET_ADMIN and
 * loses events under load) and pidfds (no exec notification) for being
 * simple and self-healing.
 *
 * Fork: the registration code sends its registration again in the child
 * (pthread_atfork), under the child's own pid.
 *
 * Budgets (dtp_budget.c).  Each process records its user, its sites and the
 * bytes of its state file as last written; a user's holdings are the sums
 * over its processes, taken when a registration comes (at most
 * DTP_PROCS_MAX processes: no table to keep in step).  A registration is
 * measured before anything changes (its sites, the bytes its text adds to
 * the file) and refused whole, leaving the process's other registrations,
 * its file and the map as they were.  A registration whose sites the map
 * cannot all take is taken back from the map and refused.
 */
#include <bpf/bpf.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"
#include "dt_procfs.h"	/* dt_procfs_stat(), from libdtcommon.a */
#include "dt_untrusted.h"	/* dt_open_untrusted(), from libdtcommon.a */

#define DTP_PROCS_MAX		16384
#define DTP_REGS_PER_PROC	256
#define DTP_RATE_WINDOW		10	/* seconds */
#define DTP_RATE_MAX		200	/* messages per window per pid */

typedef struct dtp_proc {
	pid_t pid;
	uint64_t start;
	uid_t uid;		/* whose budget it counts against */
	uint64_t nsites;	/* of all its registrations: its map entries */
	uint64_t bytes;		/* of its state file as last written */
	usdt_reg_t *regs;
	struct dtp_proc *next;
} dtp_proc_t;

static struct {
	const char *statedir;
	const char *mappath;
	int mapfd;			/* -1: no BPF map */
	dtp_proc_t *procs;
	int nprocs;
	uint64_t next_id;
	struct { pid_t pid; time_t window; int count; } rate[1024]; /* window: start */
} st = { .mapfd = -1, .next_id = 1 };

/* ---- /proc ---- */

/* Start time of pid (field 22 of /proc/PID/stat), 0 if gone. */
static uint64_t proc_start_time(pid_t pid)
{
	dt_procfs_stat_t ps;

	return dt_procfs_stat(pid, &ps) == 0 ? ps.start_time : 0;
}

/* The owner of /proc/PID: the process's effective uid, or root for one
 * that is not dumpable (uid 0 when gone, so nothing is charged). */
static uid_t proc_owner(pid_t pid)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &sb) == 0 ? sb.st_uid : 0;
}

/* Link-time address of file offset 0: the first PT_LOAD's p_vaddr - p_offset,
 * read from the mapped file itself (through /proc/PID/map_files, which
 * also works across mount namespaces).  0 if unknown. */
static uint64_t elf_vaddr_of_offset0(pid_t pid, const dt_mapping_t *m)
{
	char path[128];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t v = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, m->start, m->end);
	/* the mapped file itself, which may be any file the process could
	 * map (a device): opened only if regular, never blocking */
	fd = dt_open_untrusted(path, NULL);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_phentsize == sizeof(ph) && eh.e_phnum < 256) {
		for (int i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			    (uint64_t)i * sizeof(ph))) != sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD) {
				v = (ph.p_vaddr - ph.p_offset) & ~(uint64_t)0xfff;
				break;
			}
		}
	}
	close(fd);
	return v;
}

/* ---- the BPF map ---- */

static void map_del(pid_t pid, const usdt_reg_t *r);

/* Put r's sites in the map; 0, or -1 with errno when one did not go in
 * (the map full): then none of r's are left in it.  Logged by the
 * caller, once: a line per site filled the disk. */
static int map_put(pid_t pid, const usdt_reg_t *r)
{
	for (int i = 0; st.mapfd >= 0 && i < r->nprobes; i++) {
		for (int j = 0; j < r->probes[i].nsites; j++) {
			usdt_reg_mapkey_t k = { (uint32_t)pid, 0,
						r->probes[i].sites[j].addr };
			usdt_reg_mapval_t v = { r->id, (uint32_t)i, 0 };

			if (bpf_map_update_elem(st.mapfd, &k, &v, BPF_ANY) != 0) {
				int err = errno;

				map_del(pid, r);
				errno = err;
				return -1;
			}
		}
	}
	return 0;
}

static void map_del(pid_t pid, const usdt_reg_t *r)
{
	for (int i = 0; st.mapfd >= 0 && i < r->nprobes; i++) {
		for (int j = 0; j < r->probes[i].nsites; j++) {
			usdt_reg_mapkey_t k = { (uint32_t)pid, 0,
						r->probes[i].sites[j].addr };

			bpf_map_delete_elem(st.mapfd, &k);
		}
	}
}

static void map_clear(void)
{
	usdt_reg_mapkey_t k, next;

	while (st.mapfd >= 0 && bpf_map_get_next_key(st.mapfd, NULL, &k) == 0) {
		if (bpf_map_delete_elem(st.mapfd, &k) != 0)
			break;
		(void)next;
	}
}

/* mkdir -p of the directory part of path. */
static void mkdir_parents(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
}

static int map_open(const char *path)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd = bpf_obj_get(path);

	if (fd >= 0) {
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    info.key_size == sizeof(usdt_reg_mapkey_t) &&
		    info.value_size == sizeof(usdt_reg_mapval_t))
			return fd;
		dtp_log(LOG_ERR, "%s: not a usdt_procs map; replacing it", path);
		close(fd);
		unlink(path);
	}
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "usdt_procs",
			    sizeof(usdt_reg_mapkey_t), sizeof(usdt_reg_mapval_t),
			    USDT_REG_MAP_ENTRIES, NULL);
	if (fd < 0) {
		dtp_log(LOG_WARNING, "cannot create the BPF map: %s",
			strerror(errno));
		return -1;
	}
	mkdir_parents(path);
	if (bpf_obj_pin(fd, path) != 0) {
		dtp_log(LOG_WARNING, "cannot pin the BPF map at %s: %s", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- state files ---- */

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	*(uint64_t *)cookie += n;
	return (ssize_t)n;
}

/* The bytes of the state text of list, not written anywhere (UINT64_MAX
 * if it cannot be told). */
static uint64_t text_bytes(const usdt_reg_t *list)
{
	cookie_io_functions_t io = { .write = count_write };
	uint64_t n = 0;
	FILE *f = fopencookie(&n, "w", io);

	if (f == NULL)
		return UINT64_MAX;
	usdt_reg_write(f, list);
	fclose(f);
	return n;
}

/* The same of r alone (with the file's header lines). */
static uint64_t reg_text_bytes(usdt_reg_t *r)
{
	usdt_reg_t *next = r->next;
	uint64_t n;

	r->next = NULL;
	n = text_bytes(r);
	r->next = next;
	return n;
}

static uint64_t reg_sites(const usdt_reg_t *r)
{
	uint64_t n = 0;

	for (int i = 0; i < r->nprobes; i++)
		n += (uint64_t)r->probes[i].nsites;
	return n;
}

/* A state file, new, for root's eyes only (mode 0600). */
static FILE *state_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f == NULL && fd >= 0)
		close(fd);
	return f;
}

/*
 * Written whole and renamed into place, so that a reader (a dtrace session,
 * the daemon restarted) sees the old file or the new one.  Not synced: a
 * state file describes running processes, and a crash of the machine ends
 * them all (at start a damaged file is skipped, and a stale one dropped as
 * its process's start time tells); a restarted daemon finds the file in
 * the page cache.  fsync() cost a millisecond and more of every
 * registration.
 */
static void state_write(dtp_proc_t *p)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;

	p->nsites = 0;
	for (const usdt_reg_t *r = p->regs; r != NULL; r = r->next)
		p->nsites += reg_sites(r);
	snprintf(path, sizeof(path), "%s/%d", st.statedir, (int)p->pid);
	if (p->regs == NULL) {
		p->bytes = 0;
		unlink(path);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/.%d.tmp", st.statedir, (int)p->pid);
	f = state_create(tmp);
	if (f == NULL) {
		dtp_log(LOG_ERR, "%s: %s", tmp, strerror(errno));
		return;
	}
	usdt_reg_write(f, p->regs);
	if (fflush(f) != 0) {
		dtp_log(LOG_ERR, "%s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return;
	}
	p->bytes = (uint64_t)ftell(f);
	fclose(f);
	if (rename(tmp, path) != 0)
		dtp_log(LOG_ERR, "%s: %s", path, strerror(errno));
}

/* ---- processes ---- */

static dtp_proc_t *proc_get(pid_t pid, bool create)
{
	dtp_proc_t *p;

	for (p = st.procs; p != NULL; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || st.nprocs >= DTP_PROCS_MAX)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->pid = pid;
	p->next = st.procs;
	st.procs = p;
	st.nprocs++;
	return p;
}

static void proc_forget(dtp_proc_t *p)
{
	dtp_proc_t **pp;

	for (usdt_reg_t *r = p->regs; r != NULL; r = r->next)
		map_del(p->pid, r);
	usdt_reg_free(p->regs);
	p->regs = NULL;
	state_write(p);
	for (pp = &st.procs; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	st.nprocs--;
	free(p);
}

/* The registration of p that reg would replace (same module dev/ino, same
 * provider), or NULL. */
static usdt_reg_t *proc_find(const dtp_proc_t *p, const usdt_reg_t *reg)
{
	for (usdt_reg_t *r = p->regs; r != NULL; r = r->next)
		if (r->dev == reg->dev && r->ino == reg->ino &&
		    strcmp(r->provider, reg->provider) == 0)
			return r;
	return NULL;
}

/* Remove the registration old of p, from the map too. */
static void proc_remove(dtp_proc_t *p, usdt_reg_t *old)
{
	for (usdt_reg_t **rp = &p->regs; *rp != NULL; rp = &(*rp)->next) {
		if (*rp == old) {
			map_del(p->pid, old);
			*rp = old->next;
			old->next = NULL;
			usdt_reg_free(old);
			return;
		}
	}
}

static int reg_count(const usdt_reg_t *r)
{
	int n = 0;

	for (; r != NULL; r = r->next)
		n++;
	return n;
}

/* What a registration needs of its process, read while the process lives
 * (see dtprobed.c, "Answer"): its start time, its mappings, and the module
 * mapped at the message's base address with the module's load bias. */
int dtp_state_snap(pid_t pid, uint64_t base, dtp_snap_t *s, char *why,
		   size_t whysz)
{
	memset(s, 0, sizeof(*s));
	s->uid = proc_owner(pid);
	s->start = proc_start_time(pid);
	if (s->start == 0 || dt_proc_maps(pid, &s->maps, &s->nmaps) != 0) {
		snprintf(why, whysz, "process vanished");
		return -1;
	}
	s->module = dt_proc_map_at(s->maps, s->nmaps, base);
	if (s->module == NULL || !dt_mapping_is_file(s->module)) {
		snprintf(why, whysz, "base address 0x%" PRIx64 " is not in a "
			 "mapped file", base);
		dtp_state_snap_free(s);
		return -1;
	}
	for (size_t i = 0; i < s->nmaps; i++) {
		const dt_mapping_t *m = &s->maps[i];
		if (m->dev == s->module->dev && m->ino == s->module->ino &&
		    m->pgoff == 0) {
			s->bias = m->start - elf_vaddr_of_offset0(pid, m);
			break;
		}
	}
	return 0;
}

void dtp_state_snap_free(dtp_snap_t *s)
{
	dt_proc_maps_free(s->maps, s->nmaps);
	memset(s, 0, sizeof(*s));
}

/* Fill the module, file offsets and bias of reg from the mappings of s;
 * -1 with why when a site is not in the module's code. */
static int resolve(const dtp_snap_t *s, usdt_reg_t *reg, char *why,
		   size_t whysz)
{
	const dt_mapping_t *bm = s->module;

	free(reg->module);
	reg->module = strdup(bm->path);
	reg->dev = bm->dev;
	reg->ino = bm->ino;
	reg->bias = s->bias;
	for (int i = 0; i < reg->nprobes; i++) {
		for (int j = 0; j < reg->probes[i].nsites; j++) {
			usdt_reg_site_t *site = &reg->probes[i].sites[j];
			const dt_mapping_t *m =
				dt_proc_map_at(s->maps, s->nmaps, site->addr);
			const dt_mapping_t *sm =
				dt_proc_map_at(s->maps, s->nmaps,
					       site->sema_addr);

			if (m == NULL || !(m->prot & PROT_EXEC) ||
			    m->dev != bm->dev || m->ino != bm->ino) {
				snprintf(why, whysz, "site 0x%" PRIx64 " is not "
					 "in the code of %s", site->addr,
					 bm->path);
				return -1;
			}
			site->offset = site->addr - m->start + m->pgoff;
			if (sm != NULL && sm->dev == bm->dev &&
			    sm->ino == bm->ino)
				site->sema_offset = site->sema_addr -
						    sm->start + sm->pgoff;
			else
				site->sema_addr = site->sema_offset = 0;
		}
	}
	return reg->module ? 0 : -1;
}

/* A window opens at a pid's first message and lasts DTP_RATE_WINDOW
 * seconds; within it at most DTP_RATE_MAX messages are served.  The table
 * is small and hashed on the pid: a collision only resets a count. */
bool dtp_state_rate_ok(pid_t pid)
{
	time_t now = time(NULL);
	typeof(st.rate[0]) *r = &st.rate[(unsigned)pid % 1024];

	if (r->pid != pid || now - r->window >= DTP_RATE_WINDOW) {
		r->pid = pid;
		r->window = now;
		r->count = 0;
	}
	return ++r->count <= DTP_RATE_MAX;
}

/* The first site of reg, 0 if it has none. */
static uint64_t first_site(const usdt_reg_t *r)
{
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].nsites > 0)
			return r->probes[i].sites[0].addr;
	return 0;
}

/* Unregistration needs no /proc lookup (the process may be exiting and its
 * mappings gone): the registration of the same provider whose first site is
 * the message's first site is removed.  Unknown ones are ignored. */
void dtp_state_unregister(pid_t pid, const char *provider, uint64_t site)
{
	dtp_proc_t *p = proc_get(pid, false);

	for (usdt_reg_t **rp = p ? &p->regs : NULL; rp && *rp; rp = &(*rp)->next) {
		usdt_reg_t *r = *rp;

		if (strcmp(r->provider, provider) != 0 || first_site(r) != site)
			continue;
		map_del(pid, r);
		*rp = r->next;
		r->next = NULL;
		usdt_reg_free(r);
		if (p->regs == NULL)
			proc_forget(p);
		else
			state_write(p);
		break;
	}
}

/* What uid holds in processes other than skip's: sites and bytes of
 * state; and what all unprivileged users hold so, in sites. */
typedef struct holdings {
	uint64_t sites, bytes;
	uint64_t unprivileged_sites;
} holdings_t;

static holdings_t holdings_of(uid_t uid, pid_t skip)
{
	holdings_t h = { 0, 0, 0 };

	for (const dtp_proc_t *p = st.procs; p != NULL; p = p->next) {
		if (p->pid == skip)
			continue;
		if (p->uid == uid) {
			h.sites += p->nsites;
			h.bytes += p->bytes;
		}
		if (!dtp_privileged(p->uid))
			h.unprivileged_sites += p->nsites;
	}
	return h;
}

/* Would uid, holding sites and bytes in all, go past a budget?  why
 * says which. */
static bool past_budget(uid_t uid, const holdings_t *h, char *why,
			size_t whysz)
{
	uint64_t share = USDT_REG_MAP_ENTRIES - DTP_MAP_RESERVE;

	if (dtp_privileged(uid))
		return false;
	if (h->sites > dtp_limits.user_sites)
		snprintf(why, whysz, "uid %u over its budget: %" PRIu64
			 " sites, of %" PRIu64, (unsigned)uid, h->sites,
			 dtp_limits.user_sites);
	else if (h->bytes > dtp_limits.user_bytes)
		snprintf(why, whysz, "uid %u over its budget: %" PRIu64
			 " bytes of state, of %" PRIu64, (unsigned)uid,
			 h->bytes, dtp_limits.user_bytes);
	else if (h->unprivileged_sites > share)
		snprintf(why, whysz, "uid %u: the users' share of the map is "
			 "full (%" PRIu64 " entries)", (unsigned)uid, share);
	else
		return false;
	return true;
}

bool dtp_state_over_budget(uid_t uid, pid_t pid, uint64_t nsites, char *why,
			   size_t whysz)
{
	holdings_t h = holdings_of(uid, pid);

	h.sites += nsites;
	h.unprivileged_sites += nsites;
	return past_budget(uid, &h, why, whysz);
}

/* May p, of uid, take reg in place of old (NULL: none)?  0, or
 * DTP_OVER_BUDGET with why.  Measured before anything changes. */
static int budget_check(const dtp_proc_t *p, uid_t uid, usdt_reg_t *old,
			usdt_reg_t *reg, char *why, size_t whysz)
{
	uint64_t add = reg_text_bytes(reg), sub = old ? reg_text_bytes(old) : 0;
	/* The header lines are in add: counted twice beside other
	 * registrations, a few bytes. */
	uint64_t kept = p->bytes >= sub ? p->bytes - sub : 0;
	uint64_t file = add == UINT64_MAX ? UINT64_MAX : kept + add;
	uint64_t nsites = p->nsites + reg_sites(reg) -
			  (old ? reg_sites(old) : 0);
	holdings_t h = holdings_of(uid, p->pid);

	if (file > dtp_limits.file_max) {
		snprintf(why, whysz, "its state file would be %" PRIu64
			 " bytes, past the largest, %" PRIu64, file,
			 dtp_limits.file_max);
		return DTP_OVER_BUDGET;
	}
	h.sites += nsites;
	h.bytes += file;
	if (!dtp_privileged(uid))
		h.unprivileged_sites += nsites;
	return past_budget(uid, &h, why, whysz) ? DTP_OVER_BUDGET : 0;
}

/* Put reg in p, in place of old: the map first (a state file on disk
 * means the sites are found), then the file.  0, or DTP_REFUSED with why
 * when the map cannot take its sites (old is gone all the same). */
static int proc_take(dtp_proc_t *p, usdt_reg_t *old, usdt_reg_t *reg,
		     char *why, size_t whysz)
{
	int rc = 0;

	if (old != NULL)
		proc_remove(p, old);
	reg->id = st.next_id++;
	if (map_put(p->pid, reg) != 0) {
		snprintf(why, whysz, "the BPF map took not all of its %" PRIu64
			 " sites: %s", reg_sites(reg), strerror(errno));
		usdt_reg_free(reg);
		rc = DTP_REFUSED;
	} else {
		reg->next = p->regs;
		p->regs = reg;
	}
	if (p->regs == NULL)
		proc_forget(p);
	else
		state_write(p);
	return rc;
}

int dtp_state_apply_snap(pid_t pid, const dtp_snap_t *snap, usdt_reg_t *reg,
			 char *why, size_t whysz)
{
	dtp_proc_t *p;
	usdt_reg_t *old;
	int rc = DTP_REFUSED;

	if (resolve(snap, reg, why, whysz) != 0)
		goto refuse;
	p = proc_get(pid, true);
	if (p != NULL && p->start != snap->start && p->start != 0) {
		proc_forget(p);		/* a recycled pid */
		p = proc_get(pid, true);
	}
	if (p == NULL) {
		snprintf(why, whysz, "too many processes");
		goto refuse;
	}
	p->start = snap->start;
	reg->pid = pid;
	reg->start_time = snap->start;
	old = proc_find(p, reg);
	if (old == NULL && reg_count(p->regs) >= DTP_REGS_PER_PROC)
		snprintf(why, whysz, "too many registrations");
	else if ((rc = budget_check(p, snap->uid, old, reg, why, whysz)) == 0) {
		p->uid = snap->uid;
		return proc_take(p, old, reg, why, whysz);
	}
	if (p->regs == NULL)
		proc_forget(p);
refuse:
	usdt_reg_free(reg);
	return rc;
}

int dtp_state_apply(pid_t pid, int op, uint64_t base, usdt_reg_t *reg,
		    char *why, size_t whysz)
{
	dtp_snap_t snap;
	int rc;

	if (op == DTPV_OP_UNREGISTER) {
		dtp_state_unregister(pid, reg->provider, first_site(reg));
		usdt_reg_free(reg);
		return 0;
	}
	if (dtp_state_snap(pid, base, &snap, why, whysz) != 0) {
		usdt_reg_free(reg);
		return -1;
	}
	rc = dtp_state_apply_snap(pid, &snap, reg, why, whysz);
	dtp_state_snap_free(&snap);
	return rc;
}

/* Is every registration's first site still mapped from the same file? */
static bool proc_same_image(dtp_proc_t *p)
{
	dt_mapping_t *maps;
	size_t n;
	bool same = true;

	if (dt_proc_maps(p->pid, &maps, &n) != 0)
		return false;
	for (usdt_reg_t **rp = &p->regs; *rp != NULL;) {
		usdt_reg_t *r = *rp;
		const dt_mapping_t *m = NULL;

		if (r->nprobes > 0 && r->probes[0].nsites > 0)
			m = dt_proc_map_at(maps, n, r->probes[0].sites[0].addr);
		if ((r->nprobes > 0 && r->probes[0].nsites > 0) &&
		    (m == NULL || m->dev != r->dev || m->ino != r->ino)) {
			map_del(p->pid, r);	/* unmapped (dlclose, exec) */
			*rp = r->next;
			r->next = NULL;
			usdt_reg_free(r);
			same = false;
			continue;
		}
		rp = &r->next;
	}
	dt_proc_maps_free(maps, n);
	if (!same)
		state_write(p);
	return p->regs != NULL;
}

void dtp_state_check(void)
{
	dtp_proc_t *p, *next;

	for (p = st.procs; p != NULL; p = next) {
		next = p->next;
		if (proc_start_time(p->pid) != p->start || !proc_same_image(p))
			proc_forget(p);
	}
}

bool dtp_state_has_file(pid_t pid, uint64_t dev, uint64_t ino)
{
	dtp_proc_t *p = proc_get(pid, false);

	for (usdt_reg_t *r = p ? p->regs : NULL; r != NULL; r = r->next)
		if (r->dev == dev && r->ino == ino)
			return true;
	return false;
}

/* Remove the files of the state directory that no known process owns:
 * those of dead processes, damaged or oversized ones (which no reader
 * takes), and temporary files a crash left.  The check drops exec'd
 * processes later. */
static void state_drop_strays(void)
{
	DIR *d = opendir(st.statedir);
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		char *end, path[PATH_MAX];
		long pid = strtol(n, &end, 10);
		bool pidfile = *n >= '0' && *n <= '9' && *end == '\0';
		bool tmpfile = n[0] == '.' && strstr(n, ".tmp") != NULL;

		if ((pidfile && proc_get((pid_t)pid, false) == NULL) ||
		    tmpfile) {
			snprintf(path, sizeof(path), "%s/%s", st.statedir, n);
			unlink(path);
		}
	}
	if (d != NULL)
		closedir(d);
}

/* Rebuild from the state files: keep live processes, refill the map. */
static void state_rebuild(void)
{
	usdt_reg_t *all = NULL, *r, *next;

	usdt_reg_read_all(st.statedir, &all);
	map_clear();
	for (r = all; r != NULL; r = next) {
		dtp_proc_t *p;

		next = r->next;
		r->next = NULL;
		if (r->id >= st.next_id)
			st.next_id = r->id + 1;
		p = proc_start_time(r->pid) == r->start_time ?
			proc_get(r->pid, true) : NULL;
		if (p == NULL) {
			usdt_reg_free(r);
			continue;
		}
		p->start = r->start_time;
		p->uid = proc_owner(r->pid);
		r->next = p->regs;
		p->regs = r;
		if (map_put(p->pid, r) != 0)
			dtp_log(LOG_WARNING, "pid %d: the BPF map took not all "
				"of registration %" PRIu64 ": %s", (int)p->pid,
				r->id, strerror(errno));
	}
	state_drop_strays();
	for (dtp_proc_t *p = st.procs; p != NULL; p = p->next)
		state_write(p);
	dtp_state_check();
}

int dtp_state_init(const char *statedir, const char *mappath)
{
	st.statedir = statedir;
	st.mappath = mappath;
	/* 0700: the files show the paths, inodes, load addresses and
	 * probe sites of every registered process, root's too.  A
	 * directory an older daemon made 0755 is closed as well. */
	if (mkdir(statedir, 0700) != 0 && errno != EEXIST) {
		dtp_log(LOG_ERR, "cannot create %s: %s", statedir,
			strerror(errno));
		return -1;
	}
	if (chmod(statedir, 0700) != 0)
		dtp_log(LOG_WARNING, "cannot make %s mode 0700: %s", statedir,
			strerror(errno));
	if (mappath != NULL && *mappath != '\0')
		st.mapfd = map_open(mappath);
	state_rebuild();
	return 0;
}
