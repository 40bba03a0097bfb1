/* SPDX-License-Identifier: MIT */
/*
 * dt_bpf.c: the session's BPF objects: maps, programs, links, and the
 * kernel features they depend on.
 *
 * Invariants:
 * - Every map of the session is a dtrace_map_t on dtp->bpf->maps, found by
 *   name.  Its fd is -1 until it is created in the kernel.  Before the
 *   session is "realized" (dt_bpf_maps_create()), a map only records the
 *   largest size asked for; afterwards it is created at once and its sizes
 *   are final.  A program load creates the maps it references that are
 *   still pending, so a relocation never sees fd -1.
 * - Every fd this file opens (maps, programs, links) is on a list of the
 *   state and is closed by dt_bpf_fini(), the only place that closes them
 *   (the links through dt_bpf_detach_links(), which leaves the slow part
 *   to a process of its own).
 *   The kernel detaches a uprobe when the last fd of its link closes, so a
 *   dtrace that is killed leaves nothing attached.
 * - Kernel features are probed once per session, on first use, by trying
 *   the real thing; nothing is guessed from the kernel version.
 * - uprobe_multi links are newer than the system headers and libbpf 1.1.2:
 *   their attach type and attribute layout are defined here and the link
 *   is created with the raw bpf(2) system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "dt_bpf.h"
#include "dt_bpf_detach.h"

/*
 * uprobe_multi (Linux 6.6).  The value of BPF_TRACE_UPROBE_MULTI in enum
 * bpf_attach_type (dt_bpf.h), the flag BPF_F_UPROBE_MULTI_RETURN, and the layout of
 * union bpf_attr's link_create for it: prog_fd, target_fd (unused, 0),
 * attach_type, flags (0), then the uprobe_multi member of the inner union:
 * path, offsets, ref_ctr_offsets, cookies (user pointers), cnt, flags
 * (BPF_F_UPROBE_MULTI_RETURN) and pid (0: every process).
 */
#define DT_BPF_F_UPROBE_MULTI_RETURN	(1u << 0)

typedef struct dt_uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t link_flags;
	uint64_t path;			/* uprobe_multi.path */
	uint64_t offsets;		/* uprobe_multi.offsets */
	uint64_t ref_ctr_offsets;	/* uprobe_multi.ref_ctr_offsets */
	uint64_t cookies;		/* uprobe_multi.cookies */
	uint32_t cnt;			/* uprobe_multi.cnt */
	uint32_t flags;			/* uprobe_multi.flags */
	uint32_t pid;			/* uprobe_multi.pid */
	uint32_t pad;
} dt_uprobe_multi_attr_t;

/* The kernel's shift of a USDT semaphore offset in a uprobe perf event's
 * config (PERF_UPROBE_REF_CTR_OFFSET_SHIFT). */
#define DT_PERF_UPROBE_REF_CTR_SHIFT	32

/* Rejected sites reported one by one before the rest are summarized. */
#define DT_MAX_SITE_WARNINGS	10

/* Verifier log sizes: the first retry, and the most we grow to when an
 * older kernel (fixed-size log, keeps the head) says it did not fit. */
#define DT_VLOG_SIZE		(1u << 20)
#define DT_VLOG_MAX		(16u << 20)

/*
 * fd lists
 */

static void fd_push(int **arr, int *n, int *cap, int fd)
{
	dt_array_room(*arr, *n, *cap);
	(*arr)[(*n)++] = fd;
}

/* A link on a perf event (perf), or another: closed at the end. */
static void session_link_keep(struct dt_bpf_state *st, int fd, bool perf)
{
	if (perf)
		fd_push(&st->perf_links, &st->nperf_links,
			&st->perf_links_cap, fd);
	else
		fd_push(&st->links, &st->nlinks, &st->links_cap, fd);
}

/* A uprobe link of req: closed at the end, or with its set. */
static void link_keep(struct dt_bpf_state *st, const dt_attach_req_t *req,
		      int fd, bool perf)
{
	session_link_keep(st, fd, perf);
	if (req->links != NULL)
		fd_push(&req->links->fds, &req->links->n, &req->links->cap,
			fd);
}

/* Takes fd off arr[0..n); whether it was there. */
static bool fd_drop(int *arr, int *n, int fd)
{
	for (int j = 0; j < *n; j++)
		if (arr[j] == fd) {
			arr[j] = arr[--*n];
			return true;
		}
	return false;
}

void dt_bpf_links_close(dtrace_hdl_t *dtp, dt_linkset_t *ls)
{
	struct dt_bpf_state *st = dtp->bpf;

	for (int i = 0; i < ls->n; i++) {
		if (!fd_drop(st->links, &st->nlinks, ls->fds[i]))
			fd_drop(st->perf_links, &st->nperf_links, ls->fds[i]);
		close(ls->fds[i]);
	}
	free(ls->fds);
	*ls = (dt_linkset_t){ 0 };
}

/*
 * Session
 */

/* Many perf uprobes mean many fds: take the hard limit. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int dt_bpf_init(dtrace_hdl_t *dtp)
{
	if (dtp->bpf != NULL)
		return 0;
	dtp->bpf = dt_zalloc(sizeof(struct dt_bpf_state));
	raise_fd_limit();
	return 0;
}

void dt_bpf_fini(dtrace_hdl_t *dtp)
{
	struct dt_bpf_state *st = dtp->bpf;

	if (st == NULL)
		return;
	dt_bpf_detach_links(st->links, st->nlinks, st->perf_links,
			    st->nperf_links);
	for (int i = 0; i < st->nprogs; i++)
		close(st->progs[i]);
	for (dtrace_map_t *m = st->maps, *next; m != NULL; m = next) {
		next = m->next;
		if (m->fd >= 0)
			close(m->fd);
		free(m->name);
		free(m);
	}
	free(st->links);
	free(st->perf_links);
	free(st->progs);
	free(st->verifier_log);
	free(st);
	dtp->bpf = NULL;
}

static struct dt_bpf_state *bpf_state(dtrace_hdl_t *dtp)
{
	if (dtp->bpf == NULL)
		dt_bpf_init(dtp);
	return dtp->bpf;
}

/*
 * Maps
 */

/* The kernel takes object names of at most 15 characters out of
 * [A-Za-z0-9_.]; anything else is replaced so that a name never makes a
 * creation fail. */
static void bpf_objname(char out[BPF_OBJ_NAME_LEN], const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i < BPF_OBJ_NAME_LEN - 1; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.';
		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

static int map_realize(dtrace_hdl_t *dtp, dtrace_map_t *map)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	char objname[BPF_OBJ_NAME_LEN];

	if (map->fd >= 0)
		return 0;
	/* Hash maps of the engine are sized for the worst case and mostly
	 * empty: allocate their elements on demand. */
	if (map->type == BPF_MAP_TYPE_HASH ||
	    map->type == BPF_MAP_TYPE_PERCPU_HASH)
		opts.map_flags = BPF_F_NO_PREALLOC;
	opts.map_flags |= map->flags;
	bpf_objname(objname, map->name);
	int fd = bpf_map_create(map->type, objname, map->ksize, map->vsize,
				map->nentries, &opts);
	if (fd < 0) {
		int err = errno;
		dt_set_error(dtp, "failed to create BPF map %s (type %d, key %u,"
			     " value %u, %u entries): %s", map->name,
			     (int)map->type, map->ksize, map->vsize,
			     map->nentries, strerror(err));
		return -err;
	}
	map->fd = fd;
	return 0;
}

dtrace_map_t *dt_bpf_map_find(dtrace_hdl_t *dtp, const char *name)
{
	for (dtrace_map_t *m = bpf_state(dtp)->maps; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

/* A second request for an existing map: same type and key size, and sizes
 * that grow only while the map is not created yet. */
static dtrace_map_t *map_reuse(dtrace_hdl_t *dtp, dtrace_map_t *m,
			       enum bpf_map_type type, uint32_t ksize,
			       uint32_t vsize, uint32_t nentries)
{
	if (m->type != type || m->ksize != ksize) {
		dt_set_error(dtp, "BPF map %s asked for with type %d and key "
			     "size %u, but it exists with type %d and key "
			     "size %u", m->name, (int)type, ksize,
			     (int)m->type, m->ksize);
		return NULL;
	}
	if (m->fd < 0 && !m->pinned) {
		if (vsize > m->vsize)
			m->vsize = vsize;
		if (nentries > m->nentries)
			m->nentries = nentries;
		return m;
	}
	if (vsize > m->vsize || nentries > m->nentries) {
		dt_set_error(dtp, "BPF map %s is already created with value "
			     "size %u and %u entries; %u and %u asked for",
			     m->name, m->vsize, m->nentries, vsize, nentries);
		return NULL;
	}
	return m;
}

dtrace_map_t *dt_bpf_map(dtrace_hdl_t *dtp, const char *name,
			 enum bpf_map_type type, uint32_t ksize,
			 uint32_t vsize, uint32_t nentries)
{
	struct dt_bpf_state *st = bpf_state(dtp);
	dtrace_map_t *m = dt_bpf_map_find(dtp, name);

	if (m != NULL)
		return map_reuse(dtp, m, type, ksize, vsize, nentries);
	m = dt_zalloc(sizeof(*m));
	m->name = dt_strdup(name);
	m->fd = -1;
	m->type = type;
	m->ksize = ksize;
	m->vsize = vsize;
	m->nentries = nentries;
	m->next = st->maps;
	st->maps = m;
	if (st->realized && map_realize(dtp, m) < 0)
		return NULL;	/* stays listed with fd -1; freed at fini */
	return m;
}

int dt_bpf_maps_create(dtrace_hdl_t *dtp)
{
	struct dt_bpf_state *st = bpf_state(dtp);

	st->realized = true;
	for (dtrace_map_t *m = st->maps; m != NULL; m = m->next) {
		int err = map_realize(dtp, m);
		if (err < 0)
			return err;
	}
	return 0;
}

dtrace_map_t *dt_bpf_map_pinned(dtrace_hdl_t *dtp, const char *path)
{
	struct dt_bpf_state *st = bpf_state(dtp);
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	dtrace_map_t *m = dt_bpf_map_find(dtp, path);

	if (m != NULL)
		return m;
	int fd = bpf_obj_get(path);
	if (fd < 0) {
		dt_set_error(dtp, "failed to open pinned BPF map %s: %s", path,
			     strerror(errno));
		return NULL;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0) {
		int err = errno;
		close(fd);
		dt_set_error(dtp, "%s is not a BPF map: %s", path,
			     strerror(err));
		return NULL;
	}
	m = dt_zalloc(sizeof(*m));
	m->name = dt_strdup(path);
	m->fd = fd;
	m->type = (enum bpf_map_type)info.type;
	m->ksize = info.key_size;
	m->vsize = info.value_size;
	m->nentries = info.max_entries;
	m->pinned = true;
	m->next = st->maps;
	st->maps = m;
	return m;
}

/* The kernel's own ENOTSUPP (524), which libc has no text for: what the
 * instruction decoder says of an instruction a uprobe cannot replace, and
 * what a map without batches answers a batch. */
#define DT_KERNEL_ENOTSUPP	524

int dt_bpf_map_update(const dtrace_map_t *map, const void *key,
		      const void *val)
{
	if (map->fd < 0)
		return -EBADF;
	return bpf_map_update_elem(map->fd, key, val, BPF_ANY) < 0 ? -errno
								   : 0;
}

int dt_bpf_map_update_many(const dtrace_map_t *map, const void *keys,
			   const void *vals, uint32_t n)
{
	const char *k = keys, *v = vals;
	uint32_t count = n;

	if (map->fd < 0)
		return -EBADF;
	if (n == 0 || bpf_map_update_batch(map->fd, keys, vals, &count,
					   NULL) == 0)
		return 0;
	if (errno != EINVAL && errno != DT_KERNEL_ENOTSUPP &&
	    errno != EOPNOTSUPP)
		return -errno;
	/* Batches refused: the elements one by one (those the batch
	 * wrote are written again, to the same values). */
	for (uint32_t i = 0; i < n; i++) {
		int err = dt_bpf_map_update(map, k + (size_t)i * map->ksize,
					    v + (size_t)i * map->vsize);
		if (err < 0)
			return err;
	}
	return 0;
}

int dt_bpf_map_lookup(const dtrace_map_t *map, const void *key, void *val)
{
	if (map->fd < 0)
		return -EBADF;
	return bpf_map_lookup_elem(map->fd, key, val) < 0 ? -errno : 0;
}

/*
 * Kernel features
 */

static int sys_bpf(int cmd, void *attr, size_t size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

/* A kprobe-type program of two or four instructions, for the probes; with
 * cookie true it calls bpf_get_attach_cookie(). */
static int load_probe_prog(bool cookie, int attach_type)
{
	struct bpf_insn insns[] = {
		DT_CALL_HELPER(BPF_FUNC_get_attach_cookie),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = attach_type);
	const struct bpf_insn *start = cookie ? insns : insns + 1;
	size_t n = cookie ? 3 : 2;

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dt_probe", DT_BPF_LICENSE, start,
			     n, &opts);
}

/*
 * Whether the kernel has uprobe_multi links.  A real attachment costs tens
 * of milliseconds, mostly to detach (the kernel waits for a grace period),
 * which start-up cannot afford.  So the real system call is made with a
 * path that does not exist: only a kernel that knows the attach type goes
 * as far as looking the path up and fails with ENOENT; others fail with
 * EINVAL (unknown attach type or attribute) or EOPNOTSUPP (no uprobes).
 */
static bool probe_uprobe_multi(int prog_fd)
{
	uint64_t off = 0, cookie = 1;
	dt_uprobe_multi_attr_t attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)prog_fd;
	attr.attach_type = DT_BPF_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)"/proc/self/dtrace-feature-probe";
	attr.offsets = (uint64_t)(uintptr_t)&off;
	attr.cookies = (uint64_t)(uintptr_t)&cookie;
	attr.cnt = 1;
	int fd = sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {		/* cannot happen; keep nothing attached */
		close(fd);
		return true;
	}
	return errno == ENOENT;
}

/* Whether the verifier takes a sign-extending move (r0 = (s8)r0). */
static bool probe_movsx(void)
{
	const struct bpf_insn insns[] = {
		DT_MOV64_IMM(DT_R0, 0),
		DT_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DT_R0, DT_R0, 8, 0),
		DT_EXIT(),
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dt_movsx",
			       DT_BPF_LICENSE, insns, 3, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void features_probe(dtrace_hdl_t *dtp, dt_features_t *f)
{
	struct dt_bpf_state *st = dtp->bpf;
	int fd;

	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF,
					       NULL) == 1;
	f->loop = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					  BPF_FUNC_loop, NULL) == 1;
	f->movsx = probe_movsx();
	/* One program tells both whether cookies exist and, attached, whether
	 * uprobe_multi links do. */
	fd = load_probe_prog(true, DT_BPF_TRACE_UPROBE_MULTI);
	f->attach_cookie = fd >= 0;
	if (fd < 0)
		fd = load_probe_prog(false, DT_BPF_TRACE_UPROBE_MULTI);
	f->uprobe_multi = fd >= 0 && probe_uprobe_multi(fd);
	if (fd >= 0)
		close(fd);
	f->probed = true;

	st->feat_msg[0] = '\0';
	if (!f->ringbuf)
		snprintf(st->feat_msg, sizeof(st->feat_msg), "the kernel lacks"
			 " the BPF ring buffer (BPF_MAP_TYPE_RINGBUF, Linux "
			 "5.8+)");
	else if (!f->attach_cookie)
		snprintf(st->feat_msg, sizeof(st->feat_msg), "the kernel lacks"
			 " BPF attach cookies (bpf_get_attach_cookie, Linux "
			 "5.15+)");
	else if (!f->uprobe_multi)
		snprintf(st->feat_msg, sizeof(st->feat_msg), "the kernel lacks"
			 " uprobe_multi links (Linux 6.6+): attaching one "
			 "perf-event uprobe per site");
	if (!f->uprobe_multi && f->ringbuf && f->attach_cookie &&
	    dtp->opt.verbose)
		dt_warn(dtp, "%s", st->feat_msg);
}

const dt_features_t *dt_bpf_features(dtrace_hdl_t *dtp)
{
	struct dt_bpf_state *st = bpf_state(dtp);

	if (!st->feat.probed)
		features_probe(dtp, &st->feat);
	return &st->feat;
}

int dt_bpf_check_features(dtrace_hdl_t *dtp)
{
	const dt_features_t *f = dt_bpf_features(dtp);

	if (f->ringbuf && f->attach_cookie)
		return 0;
	dt_set_error(dtp, "%s", dtp->bpf->feat_msg);
	return -ENOTSUP;
}

/*
 * Privilege.  The kernel answers a process without it EPERM at the first
 * map, which the feature probe would mistake for a kernel without the ring
 * buffer; so the effective capabilities are read first (capget(2), version
 * 3: two 32-bit words), and what lacks is named before any work.  CAP_BPF
 * and CAP_PERFMON are 39 and 38, newer than some headers.
 */
#define DT_CAP_PERFMON	38
#define DT_CAP_BPF	39

static bool cap_effective(const struct __user_cap_data_struct d[2], int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int dt_bpf_check_privilege(dtrace_hdl_t *dtp)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (syscall(SYS_capget, &hdr, d) < 0)
		return 0;	/* let the kernel itself say */
	bool admin = cap_effective(d, CAP_SYS_ADMIN);
	bool bpf = admin || cap_effective(d, DT_CAP_BPF);
	bool perfmon = admin || cap_effective(d, DT_CAP_PERFMON);
	if (bpf && perfmon)
		return 0;
	dt_set_error(dtp, "tracing needs root, or the capabilities CAP_BPF and "
		     "CAP_PERFMON (with CAP_SYS_PTRACE for other users' "
		     "processes): this process lacks %s", !bpf && !perfmon ?
		     "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" :
		     "CAP_PERFMON");
	return -EPERM;
}

/* Tracepoints.  Their files are under tracefs, mounted at one of these. */
static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

FILE *dt_bpf_tracefs_open(const char *category, const char *name,
			  const char *file)
{
	char path[512];

	for (size_t i = 0; i < sizeof(tracefs_roots) / sizeof(*tracefs_roots);
	     i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/%s",
			 tracefs_roots[i], category, name, file);
		FILE *fp = fopen(path, "r");
		if (fp != NULL)
			return fp;
	}
	errno = ENOENT;
	return NULL;
}

long dt_bpf_tracepoint_id(const char *category, const char *name)
{
	FILE *fp = dt_bpf_tracefs_open(category, name, "id");
	long id = -1;

	if (fp == NULL)
		return -1;
	if (fscanf(fp, "%ld", &id) != 1)
		id = -1;
	fclose(fp);
	return id;
}

bool dt_bpf_use_multi(dtrace_hdl_t *dtp)
{
	struct dt_bpf_state *st = bpf_state(dtp);
	const char *mech = dtp->opt.uprobe_mech;

	if (st->force_perf_uprobes || (mech != NULL &&
				       strcmp(mech, "perf") == 0))
		return false;
	return dt_bpf_features(dtp)->uprobe_multi;
}

/*
 * Programs
 */

/* Verifier statistics and trailers: not the reason for a failure. */
static bool vlog_noise(const char *line, size_t len)
{
	static const char *const noise[] = {
		"processed ", "verification time", "stack depth",
		"max_states_per_insn", "mark_read", "-- END PROG LOAD LOG --",
	};

	if (len == 0)
		return true;
	for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (strncmp(line, noise[i], strlen(noise[i])) == 0)
			return true;
	return false;
}

/* "12: (79) r1 = ..." is an instruction; "12: R1=..." a register state. */
static bool vlog_numbered(const char *line, size_t len, bool *is_insn)
{
	size_t i = 0;

	while (i < len && line[i] >= '0' && line[i] <= '9')
		i++;
	if (i == 0 || i + 1 >= len || line[i] != ':' || line[i + 1] != ' ')
		return false;
	*is_insn = i + 2 < len && line[i + 2] == '(';
	return true;
}

/*
 * The verifier's reason, from the end of its log: up to three message
 * lines above the statistics, then "(at <instruction>)" when an instruction
 * line precedes them.
 */
static void vlog_summary(const char *log, char *out, size_t outlen)
{
	const char *lines[3];
	size_t lens[3];
	int n = 0;
	const char *at = NULL;
	size_t atlen = 0;
	const char *end = log + strlen(log);

	out[0] = '\0';
	while (end > log && n < 3) {
		const char *start = end;
		while (start > log && start[-1] != '\n')
			start--;
		size_t len = (size_t)(end - start);
		while (len > 0 && (start[len - 1] == '\n' ||
				   start[len - 1] == ' '))
			len--;
		end = start > log ? start - 1 : log;
		if (vlog_noise(start, len))
			continue;
		bool is_insn;
		if (vlog_numbered(start, len, &is_insn)) {
			if (is_insn) {
				at = start;
				atlen = len;
			}
			break;
		}
		lines[n] = start;
		lens[n++] = len;
	}
	size_t o = 0;
	for (int i = n - 1; i >= 0 && o < outlen; i--)
		o += (size_t)snprintf(out + o, outlen - o, "%s%.*s",
				      i == n - 1 ? "" : "; ", (int)lens[i],
				      lines[i]);
	if (at != NULL && o < outlen)
		snprintf(out + o, outlen - o, " (at %.*s)", (int)atlen, at);
}

/* BTF function information of a program with subprograms. */
typedef struct dt_funcinfo {
	int btf_fd;			/* -1: none needed */
	struct bpf_func_info *recs;
	uint32_t cnt;
} dt_funcinfo_t;

/*
 * BTF for programs with subprograms.  The verifier wants function
 * information (one BTF FUNC per subprogram) as soon as a program takes the
 * address of a subprogram (bpf_loop's callback).  Every subprogram here is
 * described by the same static function type, int f(void): the verifier
 * checks the arguments of static functions against the registers it
 * tracks, not against BTF.  One BTF object serves the whole session.
 */
static int session_btf(dtrace_hdl_t *dtp, int *func_type)
{
	static int btf_fd = -1, fn_id;

	(void)dtp;
	if (btf_fd < 0) {
		struct btf *btf = btf__new_empty();
		if (btf == NULL)
			return -ENOMEM;
		int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		int proto_id = int_id > 0 ? btf__add_func_proto(btf, int_id) : -1;
		fn_id = proto_id > 0 ? btf__add_func(btf, "dt_subprog",
						     BTF_FUNC_STATIC, proto_id)
				     : -1;
		int rc = fn_id > 0 ? btf__load_into_kernel(btf) : -EINVAL;
		if (rc == 0)
			btf_fd = dup(btf__fd(btf));
		btf__free(btf);
		if (btf_fd < 0)
			return rc < 0 ? rc : -errno;
	}
	*func_type = fn_id;
	return btf_fd;
}

/* Where subprograms start: instruction 0, and the target of every
 * BPF-to-BPF call and every subprogram address taken. */
static uint32_t subprog_starts(const struct bpf_insn *insns, uint32_t n,
			       uint32_t *starts)
{
	uint32_t cnt = 0;

	starts[cnt++] = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct bpf_insn *in = &insns[i];
		bool call = in->code == (BPF_JMP | BPF_CALL) &&
			    in->src_reg == BPF_PSEUDO_CALL;
		bool func = in->code == (BPF_LD | BPF_DW | BPF_IMM) &&
			    in->src_reg == BPF_PSEUDO_FUNC;
		if (!call && !func)
			continue;
		int64_t t = (int64_t)i + 1 + in->imm;
		if (t <= 0 || t >= n)
			continue;
		bool seen = false;
		for (uint32_t j = 0; j < cnt && !seen; j++)
			seen = starts[j] == (uint32_t)t;
		if (!seen)
			starts[cnt++] = (uint32_t)t;
	}
	return cnt;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Function information when the program takes a subprogram's address. */
static int funcinfo_make(dtrace_hdl_t *dtp, const struct bpf_insn *insns,
			 uint32_t n, dt_funcinfo_t *fi)
{
	bool needed = false;

	fi->btf_fd = -1;
	fi->recs = NULL;
	fi->cnt = 0;
	for (uint32_t i = 0; i < n && !needed; i++)
		needed = insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
			 insns[i].src_reg == BPF_PSEUDO_FUNC;
	if (!needed)
		return 0;

	int fn = 0;
	int fd = session_btf(dtp, &fn);
	if (fd < 0) {
		dt_set_error(dtp, "failed to load BTF for subprograms: %s",
			     strerror(-fd));
		return -1;
	}
	uint32_t *starts = dt_zalloc((n + 1) * sizeof(uint32_t));
	uint32_t cnt = subprog_starts(insns, n, starts);
	qsort(starts, cnt, sizeof(uint32_t), cmp_u32);
	fi->recs = dt_zalloc(cnt * sizeof(*fi->recs));
	for (uint32_t i = 0; i < cnt; i++)
		fi->recs[i] = (struct bpf_func_info){ starts[i], (uint32_t)fn };
	free(starts);
	fi->cnt = cnt;
	fi->btf_fd = fd;
	return 0;
}

static void funcinfo_opts(struct bpf_prog_load_opts *opts,
			  const dt_funcinfo_t *fi)
{
	if (fi == NULL || fi->btf_fd < 0)
		return;
	opts->prog_btf_fd = (uint32_t)fi->btf_fd;
	opts->func_info = fi->recs;
	opts->func_info_cnt = fi->cnt;
	opts->func_info_rec_size = sizeof(struct bpf_func_info);
}

static int prog_load_logged(const char *objname, enum bpf_prog_type type,
			    const struct bpf_insn *insns, uint32_t n,
			    int attach_type, uint32_t btf_id,
			    const dt_funcinfo_t *fi, uint32_t level,
			    char **logp)
{
	uint32_t size = DT_VLOG_SIZE;

	for (;;) {
		char *log = dt_realloc(*logp, size);
		*logp = log;
		log[0] = '\0';
		LIBBPF_OPTS(bpf_prog_load_opts, opts,
			    .expected_attach_type = attach_type,
			    .attach_btf_id = btf_id, .log_level = level, .log_size = size,
			    .log_buf = log);
		funcinfo_opts(&opts, fi);
		int fd = bpf_prog_load(type, objname, DT_BPF_LICENSE, insns, n, &opts);
		if (fd >= 0 || errno != ENOSPC || size >= DT_VLOG_MAX)
			return fd < 0 ? -errno : fd;
		size *= 2;
	}
}

/* Copy the code and point every map load at its map, creating maps that
 * are still pending. */
static struct bpf_insn *prog_relocate(dtrace_hdl_t *dtp, const char *name,
				      const dt_as_t *as)
{
	struct bpf_insn *insns = dt_zalloc(as->ninsns * sizeof(*insns));

	memcpy(insns, as->insns, as->ninsns * sizeof(*insns));
	for (int i = 0; i < as->nmaprels; i++) {
		const dt_maprel_t *r = &as->maprels[i];
		if (r->insn + 1 >= as->ninsns ||
		    insns[r->insn].code != (BPF_LD | BPF_DW | BPF_IMM)) {
			dt_set_error(dtp, "failed to load program %s: map "
				     "relocation %d at instruction %u is not "
				     "a 64-bit load", name, i, r->insn);
			goto fail;
		}
		if (r->map->fd < 0 && map_realize(dtp, r->map) < 0)
			goto fail;
		insns[r->insn].src_reg = BPF_PSEUDO_MAP_FD;
		insns[r->insn].imm = r->map->fd;
		insns[r->insn + 1].imm = 0;
	}
	return insns;
fail:
	free(insns);
	return NULL;
}

int dt_bpf_prog_load_for(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			 bool multi)
{
	return dt_bpf_prog_load_type(dtp, name, as, BPF_PROG_TYPE_KPROBE,
				     multi ? DT_BPF_TRACE_UPROBE_MULTI : 0);
}

int dt_bpf_prog_load_type(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			  enum bpf_prog_type type, int attach_type)
{
	return dt_bpf_prog_load_btf(dtp, name, as, type, attach_type, 0);
}

int dt_bpf_prog_load_btf(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			 enum bpf_prog_type type, int attach_type,
			 uint32_t btf_id)
{
	struct dt_bpf_state *st = bpf_state(dtp);
	const char *dbg = getenv("DTRACE_DEBUG_VERIFIER");
	uint32_t dbglevel = dbg != NULL && dbg[0] >= '1' && dbg[0] <= '2' ?
			    (uint32_t)(dbg[0] - '0') : 0;
	char objname[BPF_OBJ_NAME_LEN];
	int fd;

	if (as->err != 0 || as->nfixups != 0) {
		dt_set_error(dtp, "failed to load program %s: %s", name,
			     as->err ? (as->errmsg ? as->errmsg
						   : strerror(-as->err))
				     : "code not finished");
		return -1;
	}
	struct bpf_insn *insns = prog_relocate(dtp, name, as);
	if (insns == NULL)
		return -1;
	bpf_objname(objname, name);
	dt_funcinfo_t fi;
	if (funcinfo_make(dtp, insns, as->ninsns, &fi) < 0) {
		free(insns);
		return -1;
	}
	if (dbglevel == 0) {
		LIBBPF_OPTS(bpf_prog_load_opts, opts,
			    .expected_attach_type = attach_type,
			    .attach_btf_id = btf_id);
		funcinfo_opts(&opts, &fi);
		fd = bpf_prog_load(type, objname, DT_BPF_LICENSE, insns, as->ninsns,
				   &opts);
		if (fd < 0)	/* again, for the verifier's reason */
			fd = prog_load_logged(objname, type, insns, as->ninsns,
					      attach_type, btf_id, &fi, 1,
					      &st->verifier_log);
	} else {
		fd = prog_load_logged(objname, type, insns, as->ninsns,
				      attach_type, btf_id, &fi, dbglevel,
				      &st->verifier_log);
		fprintf(stderr, "dtrace: verifier log of %s:\n%s\n", name,
			st->verifier_log);
	}
	free(insns);
	free(fi.recs);
	if (fd < 0) {
		char why[512];
		vlog_summary(st->verifier_log ? st->verifier_log : "", why,
			     sizeof(why));
		dt_set_error(dtp, "failed to load program %s: %s%s%s", name,
			     strerror(-fd), why[0] ? ": " : "", why);
		return -1;
	}
	fd_push(&st->progs, &st->nprogs, &st->progs_cap, fd);
	return fd;
}

/* The map an instruction of as loads, by its relocation (-S). */
static const char *show_mapname(void *arg, uint32_t insn)
{
	const dt_as_t *as = arg;

	for (int i = 0; i < as->nmaprels; i++)
		if (as->maprels[i].insn == insn)
			return as->maprels[i].map->name;
	return "?";
}

void dt_bpf_prog_show(dtrace_hdl_t *dtp, const char *title,
		      const dt_as_t *as)
{
	if (!dtp->opt.show_bpf)
		return;
	fprintf(stderr, "\n%s (%u insns):\n", title, as->ninsns);
	dt_dis(stderr, as->insns, as->ninsns, show_mapname, (void *)as);
}

int dt_bpf_prog_load(dtrace_hdl_t *dtp, const char *name, dt_as_t *as)
{
	return dt_bpf_prog_load_for(dtp, name, as, dt_bpf_use_multi(dtp));
}

/*
 * Attachment
 */

/* Counts and reports the sites of one request that the kernel rejected. */
typedef struct site_report {
	uint32_t nfailed;
	int first_err;
	uint64_t first_off;
} site_report_t;

static const char *site_strerror(int err)
{
	if (err == DT_KERNEL_ENOTSUPP)
		return "the instruction there cannot be probed";
	return strerror(err);
}

static void site_failed(dtrace_hdl_t *dtp, const dt_attach_req_t *req,
			site_report_t *rep, uint32_t i, int err)
{
	if (rep->nfailed == 0) {
		rep->first_err = err;
		rep->first_off = req->offsets[i];
	}
	if (req->errs != NULL)
		req->errs[i] = err;
	else if (rep->nfailed < DT_MAX_SITE_WARNINGS)
		dt_warn(dtp, "failed to attach uprobe%s to %s at offset "
			"0x%llx: %s", req->retprobe ? " (return)" : "",
			req->path, (unsigned long long)req->offsets[i],
			site_strerror(err));
	rep->nfailed++;
}

/* Ends a request: 0 when at least one site is attached (warnings said which
 * were not), -errno when none is. */
static int attach_done(dtrace_hdl_t *dtp, const dt_attach_req_t *req,
		       const site_report_t *rep)
{
	if (req->nfailed != NULL)
		*req->nfailed = rep->nfailed;
	if (rep->nfailed > DT_MAX_SITE_WARNINGS && req->errs == NULL)
		dt_warn(dtp, "%u more uprobes on %s were rejected",
			rep->nfailed - DT_MAX_SITE_WARNINGS, req->path);
	if (rep->nfailed == 0 || rep->nfailed < req->n)
		return 0;
	dt_set_error(dtp, "failed to attach %s%u uprobe%s to %s (first at "
		     "offset 0x%llx): %s", req->n > 1 ? "all " : "", req->n,
		     req->n > 1 ? "s" : "", req->path,
		     (unsigned long long)rep->first_off,
		     site_strerror(rep->first_err));
	return -rep->first_err;
}

/* One uprobe_multi link for sites [i, i + cnt); fd or -errno. */
static int multi_link(const dt_attach_req_t *req, uint32_t i, uint32_t cnt)
{
	dt_uprobe_multi_attr_t attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)req->prog_fd;
	attr.attach_type = DT_BPF_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)req->path;
	attr.offsets = (uint64_t)(uintptr_t)(req->offsets + i);
	if (req->ref_ctr_offsets != NULL)
		attr.ref_ctr_offsets =
			(uint64_t)(uintptr_t)(req->ref_ctr_offsets + i);
	if (req->cookies != NULL)
		attr.cookies = (uint64_t)(uintptr_t)(req->cookies + i);
	attr.cnt = cnt;
	attr.flags = req->retprobe ? DT_BPF_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = (uint32_t)req->pid;
	int fd = sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/*
 * Sites [lo, lo + cnt) in one link; when the kernel refuses it, each of
 * DT_MULTI_SPLIT parts on its own, down to single sites, so that a bad site
 * costs only itself.  A refused link costs the kernel's rollback (a grace
 * period, tens of ms), so the split is wide: one bad site among n costs
 * about log16(n) refusals and 16 log16(n) links, rather than n links or
 * 2 log2(n) refusals.
 */
#define DT_MULTI_SPLIT	16

/*
 * A fault for tests: with DTRACE_FAULT_ATTACH=N in the environment, the
 * first N uprobe links asked for while tracing are refused with ENOMEM, as
 * a kernel short of memory refuses them, so that a test sees late attaches
 * fail, be tried again and be reported (test/sh/pid/late_attach_retry.sh).
 */
static bool fault_attach(const dtrace_hdl_t *dtp)
{
	static long left = -1;

	if (left < 0) {
		const char *s = getenv("DTRACE_FAULT_ATTACH");
		left = s != NULL ? strtol(s, NULL, 10) : 0;
		if (left < 0)
			left = 0;
	}
	if (!dtp->tracing || left == 0)
		return false;
	left--;
	return true;
}

static void attach_multi_range(dtrace_hdl_t *dtp, const dt_attach_req_t *req,
			       site_report_t *rep, uint32_t lo, uint32_t cnt)
{
	struct dt_bpf_state *st = dtp->bpf;
	int fd = fault_attach(dtp) ? -ENOMEM : multi_link(req, lo, cnt);

	if (fd >= 0) {
		link_keep(st, req, fd, false);
		return;
	}
	if (cnt == 1) {
		site_failed(dtp, req, rep, lo, -fd);
		return;
	}
	uint32_t part = (cnt + DT_MULTI_SPLIT - 1) / DT_MULTI_SPLIT;
	for (uint32_t i = lo; i < lo + cnt; i += part)
		attach_multi_range(dtp, req, rep, i,
				   i + part <= lo + cnt ? part : lo + cnt - i);
}

static int attach_multi(dtrace_hdl_t *dtp, const dt_attach_req_t *req)
{
	site_report_t rep = { 0 };

	attach_multi_range(dtp, req, &rep, 0, req->n);
	return attach_done(dtp, req, &rep);
}

/* An integer from a sysfs file; after "prefix" if given. */
static int read_sysfs_int(const char *path, const char *prefix, int *val)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	const char *p = buf;
	if (prefix != NULL) {
		if (strncmp(p, prefix, strlen(prefix)) != 0)
			return -EINVAL;
		p += strlen(prefix);
	}
	char *end;
	long v = strtol(p, &end, 10);
	if (end == p)
		return -EINVAL;
	*val = (int)v;
	return 0;
}

#define DT_UPROBE_PMU	"/sys/bus/event_source/devices/uprobe/"

static int perf_uprobe_pmu(dtrace_hdl_t *dtp, int *type, int *retbit)
{
	int err = read_sysfs_int(DT_UPROBE_PMU "type", NULL, type);
	if (err == 0)
		err = read_sysfs_int(DT_UPROBE_PMU "format/retprobe",
				     "config:", retbit);
	if (err < 0)
		dt_set_error(dtp, "the kernel lacks the uprobe perf PMU ("
			     DT_UPROBE_PMU "): %s", strerror(-err));
	return err;
}

/* One perf-event uprobe with the program linked to it; link fd or -errno.
 * The link holds the perf event, so its own fd is closed at once. */
static int perf_site(const dt_attach_req_t *req, uint32_t i, int type,
		     int retbit)
{
	struct perf_event_attr pa;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = (uint32_t)type;
	pa.config = req->retprobe ? 1ull << retbit : 0;
	if (req->ref_ctr_offsets != NULL)
		pa.config |= req->ref_ctr_offsets[i]
			     << DT_PERF_UPROBE_REF_CTR_SHIFT;
	pa.config1 = (uint64_t)(uintptr_t)req->path;	/* uprobe_path */
	pa.config2 = req->offsets[i];			/* probe_offset */
	/* Every process: pid -1 needs a CPU, but the program of a uprobe
	 * event runs wherever the probe hits, whatever the event's CPU, so
	 * one event (on CPU 0) covers every CPU; one per CPU would run the
	 * program once per CPU at each hit. */
	pid_t pid = req->pid > 0 ? req->pid : -1;
	int cpu = req->pid > 0 ? -1 : 0;
	int pfd = (int)syscall(__NR_perf_event_open, &pa, pid, cpu, -1,
			       PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .perf_event.bpf_cookie = req->cookies ? req->cookies[i]
							  : 0);
	int fd = bpf_link_create(req->prog_fd, pfd, BPF_PERF_EVENT, &opts);
	int err = errno;
	close(pfd);
	return fd < 0 ? -err : fd;
}

static int attach_perf(dtrace_hdl_t *dtp, const dt_attach_req_t *req)
{
	struct dt_bpf_state *st = dtp->bpf;
	site_report_t rep = { 0 };
	int type, retbit;

	int err = perf_uprobe_pmu(dtp, &type, &retbit);
	if (err < 0)
		return err;
	for (uint32_t i = 0; i < req->n; i++) {
		int fd = fault_attach(dtp) ? -ENOMEM :
			 perf_site(req, i, type, retbit);
		if (fd < 0)
			site_failed(dtp, req, &rep, i, -fd);
		else
			link_keep(st, req, fd, true);
	}
	return attach_done(dtp, req, &rep);
}

int dt_bpf_attach_uprobes(dtrace_hdl_t *dtp, const dt_attach_req_t *req)
{
	if (req->nfailed != NULL)
		*req->nfailed = 0;
	if (req->n == 0)
		return 0;
	if (req->path == NULL || req->offsets == NULL || req->prog_fd < 0) {
		dt_set_error(dtp, "invalid uprobe attachment request");
		return -EINVAL;
	}
	if (dt_bpf_use_multi(dtp))
		return attach_multi(dtp, req);
	return attach_perf(dtp, req);
}

int dt_bpf_attach_perf_event(dtrace_hdl_t *dtp, int prog_fd, uint32_t type,
			     uint64_t config, uint64_t period, int cpu,
			     uint64_t cookie)
{
	struct perf_event_attr pa;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config = config;
	pa.sample_period = period;
	return dt_bpf_attach_perf_attr(dtp, prog_fd, &pa, cpu, cookie);
}

void dt_bpf_link_keep(dtrace_hdl_t *dtp, int fd)
{
	struct dt_bpf_state *st = bpf_state(dtp);

	session_link_keep(st, fd, false);
}

int dt_bpf_attach_perf_attr(dtrace_hdl_t *dtp, int prog_fd,
			    struct perf_event_attr *pa, int cpu,
			    uint64_t cookie)
{
	struct dt_bpf_state *st = bpf_state(dtp);
	int pfd = (int)syscall(__NR_perf_event_open, pa, -1, cpu, -1,
			       PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		int err = errno;
		dt_set_error(dtp, "failed to open a perf event on CPU %d: %s",
			     cpu, strerror(err));
		return -err;
	}
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = cookie);
	int fd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &opts);
	int err = errno;
	close(pfd);
	if (fd < 0) {
		dt_set_error(dtp, "failed to attach to a perf event on CPU %d: "
			     "%s", cpu, strerror(err));
		return -err;
	}
	session_link_keep(st, fd, true);
	return 0;
}
