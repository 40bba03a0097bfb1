/*
 * dtprobed.c: the USDT registration daemon.
 *
 *	dtprobed [-F] [-s socket] [-d statedir] [-m mappath]
 *
 * Programs built with `dtrace -G` send their provider descriptions here over
 * a SOCK_SEQPACKET Unix socket (one message per connection, format in
 * dtprobed_proto.h); dtprobed records them per process (dtp_state.c) for the
 * usdt provider of every dtrace session.
 *
 * Trust.  The sender's pid comes from SO_PEERCRED, never from the message;
 * a message is at most DTPV_MSG_MAX bytes (a longer one is seen truncated
 * through MSG_TRUNC and refused); it is parsed in a jailed child
 * (dtp_msg.c); a pid sending more than its share is refused until the next
 * window.  A refusal is logged with the pid and the reason, and the daemon
 * goes on.  One connection is served at a time, and it is given at most
 * DTP_RECV_MS to deliver its message, so a silent client delays others by
 * that much at most.
 *
 * Options override the environment (DTPROBED_SOCKET, DTPROBED_STATEDIR,
 * DTPROBED_MAP), which overrides the defaults of usdt_reg.h.  An empty map
 * path (-m '') runs without the BPF map.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"

#define DTP_RECV_MS	200

static bool foreground;
static volatile sig_atomic_t quit;

void dtp_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (foreground) {
		fprintf(stderr, "dtprobed: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(prio, fmt, ap);
	}
	va_end(ap);
}

/* The reason text may come from the jailed child: printable only. */
static void sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

static void refuse(pid_t pid, char *why)
{
	sanitize(why);
	dtp_log(LOG_WARNING, "refused registration from pid %d: %s", (int)pid,
		why);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		dtp_log(LOG_ERR, "socket path too long: %s", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    chmod(path, 0666) != 0 || listen(fd, 128) != 0)
		goto fail;
	return fd;
fail:
	dtp_log(LOG_ERR, "cannot listen on %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Serve one connection: one message. */
static void serve(int cfd, unsigned char *buf)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct pollfd pfd = { cfd, POLLIN, 0 };
	char why[256] = "";
	usdt_reg_t *reg;
	uint64_t base;
	ssize_t n;
	int op;

	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
	    cred.pid <= 0)
		return;
	if (!dtp_state_rate_ok(cred.pid)) {
		snprintf(why, sizeof(why), "too many messages");
		refuse(cred.pid, why);
		return;
	}
	if (poll(&pfd, 1, DTP_RECV_MS) != 1) {
		snprintf(why, sizeof(why), "no message within %d ms",
			 DTP_RECV_MS);
		refuse(cred.pid, why);
		return;
	}
	n = recv(cfd, buf, DTPV_MSG_MAX, MSG_DONTWAIT | MSG_TRUNC);
	if (n <= 0)
		return;		/* connected and closed: nothing to say */
	if ((size_t)n > DTPV_MSG_MAX) {
		snprintf(why, sizeof(why), "message of %zd bytes exceeds %u",
			 n, DTPV_MSG_MAX);
		refuse(cred.pid, why);
		return;
	}
	if (dtp_msg_parse(buf, (size_t)n, &op, &base, &reg, why,
			  sizeof(why)) != 0 ||
	    dtp_state_apply(cred.pid, op, base, reg, why, sizeof(why)) != 0) {
		refuse(cred.pid, why);
		return;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dtprobed [-F] [-s socket] [-d statedir] "
		"[-m mappath]\n");
	exit(2);
}

static int detach(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	if (chdir("/") != 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sock = usdt_reg_socket_path();
	const char *statedir = usdt_reg_statedir();
	const char *mappath = usdt_reg_map_path();
	unsigned char *buf;
	time_t last_check = 0;
	int opt, lfd;

	while ((opt = getopt(argc, argv, "Fs:d:m:h")) != -1) {
		switch (opt) {
		case 'F': foreground = true; break;
		case 's': sock = optarg; break;
		case 'd': statedir = optarg; break;
		case 'm': mappath = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (!foreground)
		openlog("dtprobed", LOG_PID, LOG_DAEMON);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	buf = malloc(DTPV_MSG_MAX);
	if (buf == NULL || dtp_state_init(statedir, mappath) != 0)
		return 1;
	lfd = listen_on(sock);
	if (lfd < 0)
		return 1;
	if (!foreground && detach() != 0)
		return 1;
	dtp_log(LOG_INFO, "listening on %s, state in %s", sock, statedir);
	while (!quit) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		int cfd;

		if (poll(&pfd, 1, 1000) == 1) {
			cfd = accept4(lfd, NULL, NULL,
				      SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (cfd >= 0) {
				serve(cfd, buf);
				close(cfd);
			}
		}
		if (time(NULL) != last_check) {
			last_check = time(NULL);
			dtp_state_check();
		}
	}
	/* The state stays: a restarted daemon picks it up. */
	unlink(sock);
	close(lfd);
	free(buf);
	return 0;
}
