/* SPDX-License-Identifier: MIT */
/*
 * dt_metrics.c: -x metrics=[ADDR:]PORT, the session's aggregations served
 * over HTTP at /metrics, in the OpenMetrics text format
 * (output/dt_openmetrics.c), while tracing.
 *
 * libmicrohttpd runs the HTTP side in threads of its own (one per
 * connection, METRICS_CLIENTS at most): it parses the requests (a
 * malformed one is answered or dropped there), bounds the clients and
 * their time, and sends the answers.  The aggregations are
 * read by the session's loop only, as everything of the consumer is: a
 * scrape asks through an eventfd that the loop polls with its other
 * sources (cmd/dt_session.c), and waits until the loop has written a
 * snapshot (dt_metrics_serve()).  Scrapes that come together share one
 * snapshot, and one the loop does not answer within METRICS_WAIT_MS gets
 * 503 rather than wait longer: nothing of the HTTP side holds the loop,
 * and the probes never wait for either.  A clear() or trunc() runs in the
 * same loop, so a snapshot is taken wholly before or after it.
 *
 * libmicrohttpd is loaded when -x metrics asks for it (dlopen()), not
 * linked: it brings GnuTLS and its libraries, whose loading and
 * initialisation would add some 10 ms and 3 MB to every dtrace's start.
 *
 * The listening socket is bound here, before tracing starts, so that an
 * address in use (or one that is no address) is an error that names the
 * option, and the session does not start.  Where it listens is said on
 * stderr, the port the kernel chose too (PORT 0).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "dt_consume_impl.h"
#include "dt_metrics.h"
#include "dt_output.h"

#define METRICS_WAIT_MS		5000	/* a scrape waits for the loop */
#define METRICS_CLIENTS		64	/* connections at once */
#define METRICS_IDLE_S		10	/* an idle connection is closed */
#define METRICS_TYPE		"application/openmetrics-text; " \
				"version=1.0.0; charset=utf-8"

struct dt_metrics {
	struct MHD_Daemon *daemon;
	int listen_fd;
	int wake_fd;		/* eventfd: a scrape waits */
	pthread_mutex_t lock;
	pthread_cond_t done;
	uint64_t asked;		/* scrapes that asked so far */
	uint64_t answered;	/* the snapshot answers those up to this */
	bool stopping;
	char *text;		/* the last snapshot */
	size_t len;
};

/* ---- libmicrohttpd, loaded on demand ---- */

#define MHD_LIBRARY	"libmicrohttpd.so.12"

static struct mhd_api {
	void *lib;
	struct MHD_Daemon *(*start_daemon)(unsigned flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc,
					   void *apc_cls,
					   MHD_AccessHandlerCallback dh,
					   void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	struct MHD_Response *(*create_response_from_buffer)(
		size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r,
					       const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c,
					  unsigned int status,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
} mhd;

/* The library and its functions: 0, or -1 after dt_set_error(). */
static int mhd_load(dtrace_hdl_t *dtp, const char *spec)
{
	static const struct {
		const char *name;
		size_t off;
	} fns[] = {
		{ "MHD_start_daemon", offsetof(struct mhd_api, start_daemon) },
		{ "MHD_stop_daemon", offsetof(struct mhd_api, stop_daemon) },
		{ "MHD_create_response_from_buffer",
		  offsetof(struct mhd_api, create_response_from_buffer) },
		{ "MHD_add_response_header",
		  offsetof(struct mhd_api, add_response_header) },
		{ "MHD_queue_response",
		  offsetof(struct mhd_api, queue_response) },
		{ "MHD_destroy_response",
		  offsetof(struct mhd_api, destroy_response) },
	};

	if (mhd.lib != NULL)
		return 0;
	void *lib = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		dt_set_error(dtp, "failed to serve -x metrics=%s: %s (apt-get "
			     "install libmicrohttpd12)", spec, dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *fn = dlsym(lib, fns[i].name);
		if (fn == NULL) {
			dt_set_error(dtp, "failed to serve -x metrics=%s: %s "
				     "has no %s", spec, MHD_LIBRARY,
				     fns[i].name);
			dlclose(lib);
			return -1;
		}
		memcpy((char *)&mhd + fns[i].off, &fn, sizeof(fn));
	}
	mhd.lib = lib;
	return 0;
}

/* ---- the HTTP thread ---- */

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status,
			       const char *type, const char *body, size_t len)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(
		len, (void *)body, MHD_RESPMEM_MUST_COPY);

	if (r == NULL)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result rc = mhd.queue_response(conn, status, r);
	mhd.destroy_response(r);
	return rc;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn,
				    unsigned status, const char *msg)
{
	return respond(conn, status, "text/plain; charset=utf-8", msg,
		       strlen(msg));
}

/* The deadline for the loop's answer, on the condition's clock
 * (CLOCK_MONOTONIC: a change of the wall clock moves no deadline). */
static struct timespec deadline(void)
{
	uint64_t ns = dt_now_ns() + METRICS_WAIT_MS * 1000000ull;

	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/* Ask the loop for a snapshot and answer with it, or 503. */
static enum MHD_Result scrape(struct dt_metrics *m,
			      struct MHD_Connection *conn)
{
	struct timespec until = deadline();
	uint64_t one = 1;
	enum MHD_Result rc;
	int err = 0;

	pthread_mutex_lock(&m->lock);
	uint64_t mine = ++m->asked;
	if (write(m->wake_fd, &one, sizeof(one)) != sizeof(one))
		err = errno;
	while (err == 0 && !m->stopping && m->answered < mine)
		err = pthread_cond_timedwait(&m->done, &m->lock, &until);
	if (m->answered >= mine && m->text != NULL)
		rc = respond(conn, MHD_HTTP_OK, METRICS_TYPE, m->text, m->len);
	else
		rc = respond_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				  m->stopping ? "dtrace: tracing ended\n" :
				  "dtrace: no snapshot in time\n");
	pthread_mutex_unlock(&m->lock);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	static int seen;

	(void)version;
	(void)upload;
	if (*state == NULL) {		/* the headers: wait for the body */
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size != 0) {	/* a body: not ours to read */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0)
		return respond_text(conn, MHD_HTTP_NOT_FOUND,
				    "dtrace: only /metrics is served\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "dtrace: GET /metrics\n");
	return scrape(cls, conn);
}

/* libmicrohttpd's own messages would go to stderr among dtrace's output;
 * what matters to the user is said by the answers. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* ---- the session's side ---- */

/* ADDR:PORT, [ADDR6]:PORT or PORT (loopback) into a bound, listening
 * socket: its descriptor, or -1 after dt_set_error(). */
static int metrics_listen(dtrace_hdl_t *dtp, const char *spec)
{
	char host[256] = "127.0.0.1";
	const char *port = spec, *colon = strrchr(spec, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	int fd = -1, one = 1, err;

	if (colon != NULL) {
		size_t n = (size_t)(colon - spec);
		const char *h = spec;
		if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
			h++;
			n -= 2;
		}
		if (n >= sizeof(host))
			n = sizeof(host) - 1;
		if (n > 0) {
			memcpy(host, h, n);
			host[n] = '\0';
		}
		port = colon + 1;
	}
	if ((err = getaddrinfo(host, port, &hints, &ai)) != 0) {
		dt_set_error(dtp, "failed to serve -x metrics=%s: %s", spec,
			     err == EAI_SYSTEM ? strerror(errno) :
			     gai_strerror(err));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, METRICS_CLIENTS) != 0) {
		dt_set_error(dtp, "failed to serve -x metrics=%s: %s", spec,
			     strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* "dtrace: metrics at http://ADDR:PORT/metrics", on stderr. */
static void say_where(int fd)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN + 2] = "?", port[16] = "?";

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		return;
	fprintf(stderr, sa.ss_family == AF_INET6 ?
		"dtrace: metrics at http://[%s]:%s/metrics\n" :
		"dtrace: metrics at http://%s:%s/metrics\n", host, port);
}

static void metrics_free(struct dt_metrics *m)
{
	if (m == NULL)
		return;
	if (m->daemon != NULL)
		mhd.stop_daemon(m->daemon);
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	if (m->wake_fd >= 0)
		close(m->wake_fd);
	pthread_cond_destroy(&m->done);
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m);
}

int dt_metrics_start(dtrace_hdl_t *dtp, const char *spec)
{
	struct dt_metrics *m = dt_zalloc(sizeof(*m));

	if (mhd_load(dtp, spec) < 0) {
		free(m);
		return -1;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->done, &ca);
	pthread_condattr_destroy(&ca);
	m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	m->listen_fd = metrics_listen(dtp, spec);
	if (m->wake_fd < 0 || m->listen_fd < 0) {
		if (m->wake_fd < 0)
			dt_set_error(dtp, "failed to serve -x metrics=%s: %s",
				     spec, strerror(errno));
		metrics_free(m);
		return -1;
	}
	m->daemon = mhd.start_daemon(
		MHD_USE_THREAD_PER_CONNECTION |
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL,
		0, NULL, NULL, on_request, m,
		MHD_OPTION_LISTEN_SOCKET, m->listen_fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_CLIENTS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
		MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
		MHD_OPTION_END);
	if (m->daemon == NULL) {
		dt_set_error(dtp, "failed to serve -x metrics=%s: the HTTP "
			     "server did not start", spec);
		metrics_free(m);
		return -1;
	}
	say_where(m->listen_fd);
	m->listen_fd = -1;	/* the daemon's now */
	dtp->metrics = m;
	return 0;
}

int dt_metrics_fd(const dtrace_hdl_t *dtp)
{
	return dtp->metrics != NULL ? dtp->metrics->wake_fd : -1;
}

/* Every aggregation of the program, a family each, and "# EOF". */
static char *metrics_text(dtrace_hdl_t *dtp, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (out == NULL)
		return NULL;
	for (int id = 0; id < dt_pd_naggs(dtp); id++) {
		dt_outagg_t *oa = dt_agg_outagg(dtp, id);
		if (oa == NULL)
			continue;
		dt_openmetrics_family(out, oa);
		dt_agg_outagg_free(oa);
	}
	fputs("# EOF\n", out);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int dt_metrics_serve(dtrace_hdl_t *dtp)
{
	struct dt_metrics *m = dtp->metrics;
	uint64_t n;

	if (m == NULL || read(m->wake_fd, &n, sizeof(n)) != sizeof(n))
		return 0;	/* asked already, or by nobody */
	pthread_mutex_lock(&m->lock);
	uint64_t upto = m->asked;
	pthread_mutex_unlock(&m->lock);

	size_t len = 0;
	char *text = metrics_text(dtp, &len);

	pthread_mutex_lock(&m->lock);
	if (text != NULL) {
		free(m->text);
		m->text = text;
		m->len = len;
		m->answered = upto;
	}
	pthread_cond_broadcast(&m->done);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void dt_metrics_stop(dtrace_hdl_t *dtp)
{
	struct dt_metrics *m = dtp->metrics;

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	m->stopping = true;
	pthread_cond_broadcast(&m->done);
	pthread_mutex_unlock(&m->lock);
	metrics_free(m);
	dtp->metrics = NULL;
}
