/* SPDX-License-Identifier: MIT */
/*
 * dtp_msg.c: a registration message, untrusted, turned into a registration.
 *
 * Isolation.  The message is parsed in a child forked for that message,
 * which first closes every descriptor but one pipe and enters seccomp strict
 * mode (read, write, exit only): whatever a message does to the parser, the
 * child can only write to the pipe and die.  The child writes a small binary
 * prefix (op, base) and then the registration in the state-file text format;
 * the parent reads at most DTP_OUT_MAX bytes, waits at most DTP_TIMEOUT_MS,
 * requires exit status 0 and parses the text with usdt_reg_parse(), which is
 * total.  So a hostile message gets at most a killed child and a refusal.
 * The child never allocates (malloc could need brk or mmap, forbidden): it
 * writes through a static buffer.
 *
 * Checks (dtp_msg_convert): size bounds, magic and version, size field equal
 * to the packet's, every table inside the message (64-bit arithmetic, no
 * overflow), string table NUL-terminated, every string offset inside it,
 * names made of [A-Za-z0-9_] (provider, probe), types and attributes
 * printable without TAB, argument counts <= 10, type indices inside the
 * type table, mappings naming a native argument, sites naming a probe.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dtprobed.h"

#define DTP_OUT_MAX	(16u << 20)
#define DTP_TIMEOUT_MS	2000

typedef struct msg_out {
	int fd;
	size_t len;
	bool failed;
	char buf[65536];
} msg_out_t;

static msg_out_t msg_out;	/* static: the jailed child cannot allocate */

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

static const char *msg_type(msg_ctx_t *c, uint32_t idx)
{
	uint32_t off;

	if (idx >= c->h.ntypes)
		return NULL;
	memcpy(&off, c->m + c->h.types_off + 4 * (size_t)idx, 4);
	return msg_str(c, off);
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
		if (p.mapping[a] >= (p.nargs ? p.nargs : 1))
			return msg_fail(c, "argument mapping out of range");
		out_fmt(o, "xlate\t%u\t%s\t%u\n", a, t, p.mapping[a]);
	}
	for (uint32_t s = 0; s < c->h.nsites; s++) {
		dtpv_site_t st;

		memcpy(&st, c->m + c->h.sites_off + (size_t)s * sizeof(st),
		       sizeof(st));
		if (st.probe == i)
			out_fmt(o, "site\t0x%" PRIx64 "\t0x0\t0x%" PRIx64
				"\t0x0\n", st.addr, st.sema);
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
	if (msg_check_header(&c) != 0)
		return -1;
	for (uint32_t s = 0; s < c.h.nsites; s++) {
		dtpv_site_t st;

		memcpy(&st, msg + c.h.sites_off + (size_t)s * sizeof(st),
		       sizeof(st));
		if (st.probe >= c.h.nprobes || st.addr == 0)
			return msg_fail(&c, "site of no probe");
	}
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

/* The jailed child: never returns. */
static _Noreturn void msg_child(const void *msg, size_t len, int fd)
{
	char why[128] = "";
	int rc;

	if (dup2(fd, 3) < 0)
		syscall(SYS_exit_group, 2);
	syscall(SYS_close_range, 4, ~0u, 0);
	close(0);
	close(1);
	/* stderr stays for nothing: closed too, the child says nothing. */
	close(2);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
		syscall(SYS_exit_group, 2);
	rc = dtp_msg_convert(msg, len, 3, why, sizeof(why));
	if (rc != 0) {
		/* Nothing was written yet: 'E' and the reason. */
		(void)!write(3, "E", 1);
		(void)!write(3, why, strlen(why));
	}
	syscall(SYS_exit, rc == 0 ? 0 : 1);	/* exit_group is forbidden */
	for (;;)
		;
}

/* Read the child's output (bounded in size and time). */
static int msg_collect(int fd, pid_t child, char **buf, size_t *len)
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
	(void)child;
}

int dtp_msg_parse(const void *msg, size_t len, int *op, uint64_t *base,
		  usdt_reg_t **reg, char *why, size_t whysz)
{
	int pfd[2], status = 0, rc;
	char *buf = NULL, *mark;
	size_t blen = 0;
	uint64_t prefix[2];
	pid_t child;

	*reg = NULL;
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(why, whysz, "pipe: %s", strerror(errno));
		return -1;
	}
	child = fork();
	if (child == 0) {
		close(pfd[0]);
		msg_child(msg, len, pfd[1]);
	}
	close(pfd[1]);
	if (child < 0) {
		close(pfd[0]);
		snprintf(why, whysz, "fork: %s", strerror(errno));
		return -1;
	}
	rc = msg_collect(pfd[0], child, &buf, &blen);
	close(pfd[0]);
	if (rc != 0)
		kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (rc != 0) {
		snprintf(why, whysz, "parser %s", rc == -ETIMEDOUT ?
			 "timed out" : rc == -E2BIG ? "output too large" :
			 "failed");
		goto fail;
	}
	if (blen > 0 && buf[0] == 'E') {
		mark = buf + 1;
		snprintf(why, whysz, "%.*s", (int)(blen - 1 > 100 ? 100 : blen - 1),
			 mark);
		goto fail;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    blen < 1 + sizeof(prefix) || buf[0] != 'K') {
		snprintf(why, whysz, "parser died (status 0x%x)", status);
		goto fail;
	}
	memcpy(prefix, buf + 1, sizeof(prefix));
	if (usdt_reg_parse(buf + 1 + sizeof(prefix), blen - 1 - sizeof(prefix), reg) != 0
	    || *reg == NULL || (*reg)->next != NULL) {
		usdt_reg_free(*reg);
		*reg = NULL;
		snprintf(why, whysz, "parser output rejected");
		goto fail;
	}
	*op = (int)prefix[0];
	*base = prefix[1];
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}
