/* SPDX-License-Identifier: MIT */
/*
 * dtp_msg.c: a registration message, untrusted, turned into a registration.
 *
 * Isolation.  The message is parsed in a process of its own (the parser,
 * below), one per message, which holds only two pipes (the message in, its
 * output out) and is in seccomp strict mode (read, write, exit only) before
 * it reads the message: whatever a message does to the parser, the parser
 * can only write to its pipe and die.  It writes a small binary prefix (op,
 * base) and then the registration in the state-file text format; the
 * daemon reads at most DTP_OUT_MAX bytes, waits at most DTP_TIMEOUT_MS,
 * requires exit status 0 and parses the text with usdt_reg_parse(), which
 * is total.  So a hostile message gets at most a killed parser and a
 * refusal.  The parser never allocates (malloc could need brk or mmap,
 * forbidden): it reads and writes through static buffers.
 *
 * Checks (dtp_msg_convert): size bounds, magic and version, size field equal
 * to the packet's, every table inside the message (64-bit arithmetic, no
 * overflow), string table NUL-terminated, every string offset inside it,
 * names made of [A-Za-z0-9_] (provider, probe), types and attributes
 * printable without TAB, argument counts <= 16, type indices inside the
 * type table, mappings naming a native argument, sites naming a probe.
 *
 * Repeats.  A program that forks sends, from each child, the very bytes
 * its parent sent (the child's registration, dtrace -G's fork handler):
 * the parser's output of the last few messages that passed is kept
 * beside a copy of each, and a message equal byte for byte to one of them
 * is answered from that output, parsed again in the daemon by the total
 * usdt_reg_parse(), without starting a parser.  Spawning one was most of a
 * registration's cost (200 forked workers took seconds to register, and
 * their firings went unnamed while they waited).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dtprobed.h"

#define DTP_OUT_MAX	(16u << 20)
#define DTP_TIMEOUT_MS	2000
#define DTP_PARSER_WARM	(128u << 10)

typedef struct msg_out {
	int fd;
	size_t len;
	bool failed;
	char buf[65536];
} msg_out_t;

static msg_out_t msg_out;	/* static: the jailed parser cannot allocate */

/*
 * The sites of each probe, in the message's order: a list per probe through
 * site_next[], built in one pass, so that the conversion is linear in the
 * message (a scan of every site for every probe took seconds for a provider
 * of 100,000 probes).  Static, as the output buffer is.
 */
#define MSG_NO_SITE	UINT32_MAX
static uint32_t probe_sites[DTPV_PROBES_MAX];	/* first site, or none */
static uint32_t site_next[DTPV_SITES_MAX];

static void out_flush(msg_out_t *o)
{
	size_t done = 0;

	while (done < o->len && !o->failed) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = true;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

static void out_put(msg_out_t *o, const char *s, size_t n)
{
	while (n > 0) {
		size_t k = sizeof(o->buf) - o->len;

		if (k == 0) {
			out_flush(o);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void out_fmt(msg_out_t *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void out_fmt(msg_out_t *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_put(o, line, (size_t)n < sizeof(line) ? (size_t)n :
			sizeof(line) - 1);
}

typedef struct msg_ctx {
	const unsigned char *m;
	size_t len;
	dtpv_msg_t h;
	char *why;
	size_t whysz;
} msg_ctx_t;

static int msg_fail(msg_ctx_t *c, const char *what)
{
	snprintf(c->why, c->whysz, "%s", what);
	return -1;
}

/* Is [off, off + n * size) inside the message? */
static bool msg_range(const msg_ctx_t *c, uint64_t off, uint64_t n,
		      uint64_t size)
{
	return off <= c->len && n <= (c->len - off) / size;
}

/* The string at strtab offset off, or NULL if off is outside. */
static const char *msg_str(const msg_ctx_t *c, uint32_t off)
{
	if (off >= c->h.strtab_size)
		return NULL;
	return (const char *)c->m + c->h.strtab_off + off;
}

static bool msg_is_ident(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= DTPV_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (!(ch == '_' || (ch >= 'a' && ch <= 'z') ||
		      (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

static bool msg_is_text(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= DTPV_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static int msg_check_header(msg_ctx_t *c)
{
	const dtpv_msg_t *h = &c->h;

	if (c->len < sizeof(*h))
		return msg_fail(c, "truncated header");
	memcpy(&c->h, c->m, sizeof(c->h));
	if (memcmp(h->magic, DTPV_MAGIC, 4) != 0)
		return msg_fail(c, "bad magic");
	if (h->version != DTPV_VERSION)
		return msg_fail(c, "unsupported version");
	if (h->op != DTPV_OP_REGISTER && h->op != DTPV_OP_UNREGISTER)
		return msg_fail(c, "unknown operation");
	if (h->size != c->len)
		return msg_fail(c, "size field does not match the message");
	if (h->nprobes == 0 || h->nprobes > DTPV_PROBES_MAX ||
	    h->nsites > DTPV_SITES_MAX)
		return msg_fail(c, "probe or site count out of range");
	if (!msg_range(c, h->probes_off, h->nprobes, sizeof(dtpv_probe_t)) ||
	    !msg_range(c, h->types_off, h->ntypes, 4) ||
	    !msg_range(c, h->sites_off, h->nsites, sizeof(dtpv_site_t)) ||
	    !msg_range(c, h->strtab_off, h->strtab_size, 1))
		return msg_fail(c, "table outside the message");
	if (h->strtab_size == 0 || c->m[h->strtab_off] != '\0' ||
	    c->m[h->strtab_off + h->strtab_size - 1] != '\0')
		return msg_fail(c, "string table not terminated");
	if (!msg_is_ident(msg_str(c, h->provider)))
		return msg_fail(c, "bad provider name");
	return 0;
}

/* Word idx of types[] in *w; false past its end. */
static bool msg_word(msg_ctx_t *c, uint64_t idx, uint32_t *w)
{
	if (idx >= c->h.ntypes)
		return false;
	memcpy(w, c->m + c->h.types_off + 4 * (size_t)idx, 4);
	return true;
}

static const char *msg_type(msg_ctx_t *c, uint32_t idx)
{
	uint32_t off;

	if (!msg_word(c, idx, &off))
		return NULL;
	return msg_str(c, off);
}

/* The native argument translated argument a of p is taken from, or
 * UINT32_MAX when the message does not say. */
static uint32_t msg_mapping(msg_ctx_t *c, const dtpv_probe_t *p, uint32_t a)
{
	uint32_t map;

	if (a < DTPV_MAPPING_INLINE)
		return p->mapping[a];
	return msg_word(c, dtpv_mapping_index(p, a), &map) ? map : UINT32_MAX;
}

/* Site s of the message (msg_check_header() checked the table's bounds)
 * in *st; -1 when it names no probe. */
static int msg_site(msg_ctx_t *c, uint32_t s, dtpv_site_t *st)
{
	memcpy(st, c->m + c->h.sites_off + (size_t)s * sizeof(*st),
	       sizeof(*st));
	if (st->probe >= c->h.nprobes || st->addr == 0)
		return msg_fail(c, "site of no probe");
	return 0;
}

static int msg_probe(msg_ctx_t *c, msg_out_t *o, uint32_t i)
{
	dtpv_probe_t p;
	const char *name;

	memcpy(&p, c->m + c->h.probes_off + (size_t)i * sizeof(p), sizeof(p));
	name = msg_str(c, p.name);
	if (!msg_is_ident(name))
		return msg_fail(c, "bad probe name");
	if (p.nargs > DTPV_ARGS_MAX || p.nxargs > DTPV_ARGS_MAX)
		return msg_fail(c, "too many arguments");
	out_fmt(o, "probe\t%s\t%u\t%u\n", name, p.nargs, p.nxargs);
	for (uint32_t a = 0; a < p.nargs; a++) {
		const char *t = msg_type(c, p.native + a);

		if (p.native + a < p.native || !msg_is_text(t))
			return msg_fail(c, "bad native argument type");
		out_fmt(o, "native\t%u\t%s\n", a, t);
	}
	for (uint32_t a = 0; a < p.nxargs; a++) {
		const char *t = msg_type(c, p.xlate + a);

		if (p.xlate + a < p.xlate || !msg_is_text(t))
			return msg_fail(c, "bad translated argument type");
		uint32_t map = msg_mapping(c, &p, a);

		if (map >= (p.nargs ? p.nargs : 1u))
			return msg_fail(c, "argument mapping out of range");
		out_fmt(o, "xlate\t%u\t%s\t%u\n", a, t, map);
	}
	for (uint32_t s = probe_sites[i]; s != MSG_NO_SITE; s = site_next[s]) {
		dtpv_site_t st;

		(void)msg_site(c, s, &st);	/* checked by msg_link_sites() */
		out_fmt(o, "site\t0x%" PRIx64 "\t0x0\t0x%" PRIx64 "\t0x0\n",
			st.addr, st.sema);
	}
	return 0;
}

/* Check every site's probe and link the sites into their probe's list. */
static int msg_link_sites(msg_ctx_t *c)
{
	for (uint32_t i = 0; i < c->h.nprobes; i++)
		probe_sites[i] = MSG_NO_SITE;
	/* Backwards, each pushed in front: the lists keep the message's order. */
	for (uint32_t s = c->h.nsites; s-- > 0;) {
		dtpv_site_t st;

		if (msg_site(c, s, &st) != 0)
			return -1;
		site_next[s] = probe_sites[st.probe];
		probe_sites[st.probe] = s;
	}
	return 0;
}

int dtp_msg_convert(const unsigned char *msg, size_t len, int fd,
		    char *why, size_t whysz)
{
	msg_ctx_t c = { msg, len, { { 0 } }, why, whysz };
	msg_out_t *o = &msg_out;
	uint64_t prefix[2];

	o->fd = fd;
	o->len = 0;
	o->failed = false;
	if (msg_check_header(&c) != 0 || msg_link_sites(&c) != 0)
		return -1;
	prefix[0] = c.h.op;
	prefix[1] = c.h.base;
	out_put(o, "K", 1);
	out_put(o, (const char *)prefix, sizeof(prefix));
	out_fmt(o, "dtprobed-state\t1\nproc\t1\t0\n");
	out_fmt(o, "reg\t0\t%s\t0\t0\t0x0\t-\n", msg_str(&c, c.h.provider));
	for (int i = 0; i < 5; i++) {
		const char *a = msg_str(&c, c.h.attrs[i]);

		if (a == NULL)
			return msg_fail(&c, "attribute outside the string table");
		if (*a != '\0' && !msg_is_text(a))
			return msg_fail(&c, "bad attribute");
		if (*a != '\0')
			out_fmt(o, "attr\t%d\t%s\n", i, a);
	}
	for (uint32_t i = 0; i < c.h.nprobes; i++)
		if (msg_probe(&c, o, i) != 0)
			return -1;
	out_flush(o);
	return o->failed ? msg_fail(&c, "output failed") : 0;
}

bool dtp_msg_is_unregistration(const void *msg, size_t len)
{
	dtpv_msg_t h;

	if (len < sizeof(h))
		return false;
	memcpy(&h, msg, sizeof(h));
	return h.op == DTPV_OP_UNREGISTER;
}

/*
 * An unregistration ends the registration of the same provider whose first
 * site is the same (dtp_state.c): those two are all the daemon reads of it,
 * here, after the header's checks, which are arithmetic on the header.
 * The rest (probes, types, names) is not looked at, so no parser is
 * started for what every registered program sends as it exits.  The first
 * site is the first, in the message's order, of the lowest-numbered probe
 * that has sites, as the registration's lists give it.
 */
int dtp_msg_unregistration(const void *msg, size_t len,
			   char provider[DTPV_NAME_MAX], uint64_t *site,
			   char *why, size_t whysz)
{
	msg_ctx_t c = { msg, len, { { 0 } }, why, whysz };
	uint32_t first_probe = UINT32_MAX;

	*site = 0;
	if (msg_check_header(&c) != 0)
		return -1;
	if (c.h.op != DTPV_OP_UNREGISTER)
		return msg_fail(&c, "not an unregistration");
	for (uint32_t s = 0; s < c.h.nsites; s++) {
		dtpv_site_t st;

		if (msg_site(&c, s, &st) != 0)
			return -1;
		if (st.probe < first_probe) {
			first_probe = st.probe;
			*site = st.addr;
		}
	}
	/* msg_check_header() checked the name: an identifier, shorter. */
	snprintf(provider, DTPV_NAME_MAX, "%s", msg_str(&c, c.h.provider));
	return 0;
}

/*
 * The parser.  A process of its own, started ahead of the message it will
 * check (dtp_msg_prepare(), between messages) by running the daemon's own
 * file again (/proc/self/exe DTP_PARSER_ARG), with the message's pipe as
 * its standard input and the output's as its standard output.  A child
 * forked for the message shared the daemon's pages copy-on-write: every
 * page either of them wrote afterwards cost a fault and a TLB shootdown,
 * and the fork copied the daemon's page tables, all of it on the time of
 * the program waiting for its registration.  One parser checks one message,
 * as the forked child did.
 */
typedef struct parser {
	pid_t pid;		/* 0: none */
	int in, out;		/* the message's pipe, the output's */
} parser_t;

static parser_t spare;
static unsigned char msg_in[DTPV_MSG_MAX];	/* the parser's copy */
_Static_assert(DTP_PARSER_WARM <= DTPV_MSG_MAX, "warmed within msg_in");

/* Read n bytes, or fewer at the end of the input. */
static size_t read_full(int fd, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = read(fd, (char *)buf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	return done;
}

_Noreturn void dtp_msg_parser_main(void)
{
	char why[128] = "";
	uint32_t len = 0;
	int rc = -1;

	/* The pages a message of a few thousand probes uses, faulted in now,
	 * while the parser waits for its message, not once it has it. */
	memset(msg_in, 0, DTP_PARSER_WARM);
	memset(msg_out.buf, 0, sizeof(msg_out.buf));
	/* stderr too: the parser says nothing but its output. */
	syscall(SYS_close_range, 2, ~0u, 0);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
		syscall(SYS_exit_group, 2);
	if (read_full(0, &len, sizeof(len)) == sizeof(len) &&
	    len <= sizeof(msg_in) && read_full(0, msg_in, len) == len)
		rc = dtp_msg_convert(msg_in, len, 1, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "message not received whole");
	if (rc != 0) {
		/* Nothing was written yet: 'E' and the reason. */
		(void)!write(1, "E", 1);
		(void)!write(1, why, strlen(why));
	}
	syscall(SYS_exit, rc == 0 ? 0 : 1);	/* exit_group is forbidden */
	for (;;)
		;
}

static int parser_spawn(parser_t *p, char *why, size_t whysz)
{
	static char name[] = "dtprobed", arg[] = DTP_PARSER_ARG;
	char *const argv[] = { name, arg, NULL }, *const envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	int in[2], out[2], rc;

	if (pipe2(in, O_CLOEXEC) != 0)
		goto fail;
	if (pipe2(out, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		goto fail;
	}
	rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0 && (rc = posix_spawn_file_actions_adddup2(&fa, in[0], 0)) == 0 &&
	    (rc = posix_spawn_file_actions_adddup2(&fa, out[1], 1)) == 0)
		rc = posix_spawn(&p->pid, "/proc/self/exe", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	if (rc != 0) {
		close(in[1]);
		close(out[0]);
		p->pid = 0;
		snprintf(why, whysz, "cannot start the parser: %s", strerror(rc));
		return -1;
	}
	/* Written with a deadline: a parser that stops reading is killed. */
	(void)fcntl(in[1], F_SETFL, O_NONBLOCK);
	p->in = in[1];
	p->out = out[0];
	return 0;
fail:
	snprintf(why, whysz, "pipe: %s", strerror(errno));
	return -1;
}

void dtp_msg_prepare(void)
{
	static bool failing;	/* said once, until a parser starts again */
	char why[128];

	if (spare.pid != 0)
		return;
	if (parser_spawn(&spare, why, sizeof(why)) != 0) {
		if (!failing)
			dtp_log(LOG_ERR, "%s", why);
		failing = true;
	} else {
		failing = false;
	}
}

/* Send the parser the message's length and the message, within
 * DTP_TIMEOUT_MS. */
static int parser_send(const parser_t *p, const void *msg, uint32_t len)
{
	struct iovec iov[2] = { { &len, sizeof(len) }, { (void *)msg, len } };
	int waited = 0;

	while (iov[0].iov_len + iov[1].iov_len > 0) {
		struct pollfd pfd = { p->in, POLLOUT, 0 };
		ssize_t n;

		if (poll(&pfd, 1, 100) == 0) {
			if ((waited += 100) >= DTP_TIMEOUT_MS)
				return -ETIMEDOUT;
			continue;
		}
		n = writev(p->in, iov[0].iov_len ? iov : iov + 1,
			   iov[0].iov_len ? 2 : 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < 2 && n > 0; i++) {
			size_t k = (size_t)n < iov[i].iov_len ? (size_t)n :
				iov[i].iov_len;

			iov[i].iov_base = (char *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			n -= (ssize_t)k;
		}
	}
	return 0;
}

/* Read the parser's output (bounded in size and time). */
static int msg_collect(int fd, char **buf, size_t *len)
{
	size_t cap = 0;
	int waited = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pfd, 1, 100) == 0) {
			if ((waited += 100) >= DTP_TIMEOUT_MS)
				return -ETIMEDOUT;
			continue;
		}
		if (*len == cap) {
			if (cap >= DTP_OUT_MAX)
				return -E2BIG;
			*buf = realloc(*buf, cap = cap * 2 + 65536);
			if (*buf == NULL)
				return -ENOMEM;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -errno;
		*len += (size_t)n;
	}
}

static void parser_end(parser_t *p, bool kill_it, int *status)
{
	close(p->in);
	close(p->out);
	if (kill_it)
		kill(p->pid, SIGKILL);
	while (waitpid(p->pid, status, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
}

/* Give the message to a parser and read what it says; the parser is then
 * gone (reaped, killed first when it overran a bound).  A spare that died
 * while it waited (killed by someone) is replaced once. */
static int parser_run(const void *msg, size_t len, int *status, char **buf,
		      size_t *blen, char *why, size_t whysz)
{
	parser_t p = spare;
	int rc;

	*buf = NULL;
	*blen = 0;
	spare.pid = 0;
	if (p.pid == 0 && parser_spawn(&p, why, whysz) != 0)
		return -1;
	rc = parser_send(&p, msg, (uint32_t)len);
	if (rc == -EPIPE) {
		parser_end(&p, true, status);
		if (parser_spawn(&p, why, whysz) != 0)
			return -1;
		rc = parser_send(&p, msg, (uint32_t)len);
	}
	if (rc == 0)
		rc = msg_collect(p.out, buf, blen);
	parser_end(&p, rc != 0, status);
	if (rc != 0)
		snprintf(why, whysz, "parser %s", rc == -ETIMEDOUT ?
			 "timed out" : rc == -E2BIG ? "output too large" :
			 "failed");
	return rc;
}

int dtp_msg_header(const void *msg, size_t len, uint64_t *base, char *why,
		   size_t whysz)
{
	msg_ctx_t c = { msg, len, { { 0 } }, why, whysz };

	if (len > DTPV_MSG_MAX) {
		snprintf(why, whysz, "message too large");
		return -1;
	}
	if (msg_check_header(&c) != 0)
		return -1;
	*base = c.h.base;
	return 0;
}

/* The registration in the parser's output buf ('K', the prefix, the
 * state text; blen bytes, of which at least the 'K' and the prefix):
 * 0, or -1 with why.  buf is not freed. */
static int parsed_text(const char *buf, size_t blen, int *op, uint64_t *base,
		       usdt_reg_t **reg, char *why, size_t whysz)
{
	uint64_t prefix[2];

	memcpy(prefix, buf + 1, sizeof(prefix));
	if (usdt_reg_parse(buf + 1 + sizeof(prefix), blen - 1 - sizeof(prefix), reg) != 0
	    || *reg == NULL || (*reg)->next != NULL) {
		usdt_reg_free(*reg);
		*reg = NULL;
		snprintf(why, whysz, "parser output rejected");
		return -1;
	}
	*op = (int)prefix[0];
	*base = prefix[1];
	return 0;
}

/* The parser's outputs of the last messages that passed (see "Repeats"),
 * each with its message; only messages up to DTP_REPEAT_MAX bytes. */
#define DTP_REPEATS		4
#define DTP_REPEAT_MAX		(64u << 10)

typedef struct repeat {
	unsigned char *msg;	/* NULL: empty slot */
	size_t len;
	char *out;		/* the parser's output, 'K' first */
	size_t outlen;
} repeat_t;

static repeat_t repeats[DTP_REPEATS];
static unsigned repeat_next;

/* The output the parser gave for msg (*outlen bytes), or NULL. */
static const char *repeat_find(const void *msg, size_t len, size_t *outlen)
{
	for (int i = 0; i < DTP_REPEATS; i++) {
		const repeat_t *r = &repeats[i];

		if (r->msg != NULL && r->len == len &&
		    memcmp(r->msg, msg, len) == 0) {
			*outlen = r->outlen;
			return r->out;
		}
	}
	return NULL;
}

/* Keep the output out of the message msg that passed. */
static void repeat_keep(const void *msg, size_t len, const char *out,
			size_t outlen)
{
	repeat_t *r = &repeats[repeat_next];
	unsigned char *m;
	char *o;

	if (len > DTP_REPEAT_MAX || outlen > DTP_REPEAT_MAX)
		return;
	m = malloc(len);
	o = malloc(outlen);
	if (m == NULL || o == NULL) {
		free(m);
		free(o);
		return;
	}
	memcpy(m, msg, len);
	memcpy(o, out, outlen);
	free(r->msg);
	free(r->out);
	*r = (repeat_t){ m, len, o, outlen };
	repeat_next = (repeat_next + 1) % DTP_REPEATS;
}

int dtp_msg_parse(const void *msg, size_t len, int *op, uint64_t *base,
		  usdt_reg_t **reg, char *why, size_t whysz)
{
	msg_ctx_t c = { msg, len, { { 0 } }, why, whysz };
	char *buf = NULL;
	size_t blen = 0;
	const char *kept;
	uint64_t prefix[2];
	int status = 0;

	*reg = NULL;
	if (len > DTPV_MSG_MAX) {
		snprintf(why, whysz, "message too large");
		return -1;
	}
	/* The header's checks (arithmetic on its 88 bytes) first, here: a
	 * message that fails them, garbage or a flood, costs no parser. */
	if (msg_check_header(&c) != 0)
		return -1;
	kept = repeat_find(msg, len, &blen);
	if (kept != NULL)
		return parsed_text(kept, blen, op, base, reg, why, whysz);
	if (parser_run(msg, len, &status, &buf, &blen, why, whysz) != 0)
		goto fail;
	if (blen > 0 && buf[0] == 'E') {
		snprintf(why, whysz, "%.*s", (int)(blen - 1 > 100 ? 100 : blen - 1),
			 buf + 1);
		goto fail;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    blen < 1 + sizeof(prefix) || buf[0] != 'K') {
		snprintf(why, whysz, "parser died (status 0x%x)", status);
		goto fail;
	}
	if (parsed_text(buf, blen, op, base, reg, why, whysz) != 0)
		goto fail;
	repeat_keep(msg, len, buf, blen);
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}
