/* SPDX-License-Identifier: MIT */
/*
 * usdt_sub.c: the usdt plugin's subscription to dtprobed.
 *
 * While tracing with "provider*" descriptions, the plugin subscribes to the
 * registration daemon (dtprobed_proto.h, Handshake): dtprobed then tells it
 * of each process that registers, before that process's constructor
 * returns, and waits (bounded) for the ack that the plugin sends once it
 * placed the process's probes.  So a program started after tracing began
 * is traced from its first firing, ahead of the exec watch.
 *
 * Before it reads the state files, the plugin syncs with the daemon: with
 * no session subscribed, dtprobed answers a registration before it records
 * it, and answers a sync only once what came before is recorded.
 *
 * Invariants: the socket is non-blocking and close-on-exec; nothing here
 * blocks but the sync, for USDT_SYNC_MS at most, or raises SIGPIPE; no
 * daemon (or an old one) means no subscription and no error.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "usdt_impl.h"
#include "usdt_reg.h"
#include "dtprobed_proto.h"

/* A connection to dtprobed that sent it a bare header of operation op;
 * -1 when there is no daemon to send it to. */
static int bare_send(uint16_t op)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *path = usdt_reg_socket_path();
	dtpv_msg_t h = { .magic = DTPV_MAGIC, .version = DTPV_VERSION,
			 .op = op, .size = sizeof(h) };
	int fd;

	if (path == NULL || strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(h)) {
		close(fd);
		return -1;
	}
	return fd;
}

int usdt_sub_open(void)
{
	return bare_send(DTPV_OP_SUBSCRIBE);
}

void usdt_sub_warn_none(const dtrace_host_t *h, dtrace_provider_t *pv)
{
	h->report->warn(
		pv,
		"usdt: no dtprobed answers at %s: a program that starts "
		"while tracing fires as its provider without its pid (myapp, "
		"not myapp1234) until dtrace sees it; start dtprobed "
		"(systemctl start dtprobed) to have it named from its first "
		"firing",
		usdt_reg_socket_path());
}

void usdt_sub_sync(void)
{
	struct pollfd pfd = { .fd = bare_send(DTPV_OP_SYNC), .events = POLLIN };

	if (pfd.fd < 0)
		return;
	(void)poll(&pfd, 1, USDT_SYNC_MS);
	close(pfd.fd);
}

int usdt_sub_next(int fd, pid_t *pid)
{
	dtpv_notice_t nt;
	ssize_t n;

	for (;;) {
		n = recv(fd, &nt, sizeof(nt), MSG_DONTWAIT);
		if (n == 0)
			return -1;	/* the daemon went away */
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR ? 0 : -1;
		if (n == (ssize_t)sizeof(nt) &&
		    memcmp(nt.magic, DTPN_MAGIC, 4) == 0 &&
		    nt.version == DTPV_VERSION && nt.op == DTPV_OP_NOTICE &&
		    nt.pid > 0) {
			*pid = (pid_t)nt.pid;
			return 1;
		}
		/* anything else is not for us: skip it */
	}
}

void usdt_sub_ack(int fd, pid_t pid)
{
	dtpv_notice_t nt = { .magic = DTPN_MAGIC, .version = DTPV_VERSION,
			     .op = DTPV_OP_ACK, .pid = (uint32_t)pid };

	(void)send(fd, &nt, sizeof(nt), MSG_NOSIGNAL | MSG_DONTWAIT);
}
