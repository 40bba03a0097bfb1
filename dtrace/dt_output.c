/* SPDX-License-Identifier: MIT */
/*
 * dt_output.c: the stream that trace output is written to (-o FILE, or
 * standard output).
 *
 * stdio forgets why a write failed: the buffer is dropped with the error
 * flag set, and a later fflush() succeeds with nothing left to write.  This
 * stream writes through its own function, which keeps the errno of the
 * failed write in dtp->out_errno, so that dtrace can say "No space left on
 * device" and exit with an error instead of ending with a truncated file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_output.h"

typedef struct dt_output {
	dtrace_hdl_t *dtp;
	int fd;
	bool own_fd;	/* closed with the stream (not standard output) */
} dt_output_t;

static ssize_t output_write(void *cookie, const char *buf, size_t len)
{
	dt_output_t *o = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->dtp->out_errno = n < 0 ? errno : EIO;
			break;	/* a short count marks the stream in error */
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int output_close(void *cookie)
{
	dt_output_t *o = cookie;
	int rc = 0;

	if (o->own_fd && close(o->fd) < 0) {
		o->dtp->out_errno = errno;
		rc = -1;
	}
	free(o);
	return rc;
}

FILE *dt_output_open(dtrace_hdl_t *dtp, const char *path)
{
	static const cookie_io_functions_t io = {
		.write = output_write,
		.close = output_close,
	};
	dt_output_t *o = dt_zalloc(sizeof(*o));
	FILE *f;

	o->dtp = dtp;
	o->fd = STDOUT_FILENO;
	if (path != NULL) {
		/* Appended to, as DTrace does: a reader tailing the file (a
		 * log shipper) sees only new lines, and several runs add up. */
		o->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			     0666);
		if (o->fd < 0) {
			free(o);
			return NULL;
		}
		o->own_fd = true;
	}
	if ((f = fopencookie(o, "w", io)) == NULL) {
		int err = errno;

		output_close(o);
		errno = err;
		return NULL;
	}
	dtp->out_fd = o->fd;	/* for ftruncate() */
	/* a terminal sees each line as it is printed, as stdout would */
	if (isatty(o->fd))
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
