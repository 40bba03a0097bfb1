/* SPDX-License-Identifier: MIT */
/*
 * dt_output.c: the stream that trace output is written to (-o FILE, or
 * standard output), and the output the session's options choose (text or
 * JSON, dt_output_create()).
 *
 * stdio forgets why a write failed: the buffer is dropped with the error
 * flag set, and a later fflush() succeeds with nothing left to write.  This
 * stream writes through its own function, which keeps the errno of the
 * failed write in dtp->out_errno, so that dtrace can say "No space left on
 * device" and exit with an error instead of ending with a truncated file.
 *
 * JSON lines (-x oformat=json) leave in whole lines: a program run with -c
 * writes to the same standard output, and a line cut between two writes
 * would take the program's text into the middle of a record.  The stream
 * keeps a line's start until its newline comes, and writes whole lines,
 * as many as fit in PIPE_BUF bytes at a time, which the kernel writes to a
 * pipe without interleaving another writer's bytes (a longer line goes
 * alone).  Text output is written as stdio hands it over, as before.
 *
 * A profile (-x oformat=folded, flamegraph, pprof) is one document, not a
 * log: -o FILE writes it to a new file beside FILE, which takes FILE's
 * name, replacing it, only once the profile was written whole
 * (dtp->out_complete); else it is removed and FILE is left as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_output.h"

typedef struct dt_output {
	dtrace_hdl_t *dtp;
	int fd;
	bool own_fd;	/* closed with the stream (not standard output) */
	char *tmp_path;	/* a profile's new file, renamed to path */
	char *path;
	char *line;	/* JSON: the start of a line not ended yet */
	size_t nline, line_room;
} dt_output_t;

/* Write all of buf, or record why not in dtp->out_errno: the bytes that
 * were written. */
static size_t write_all(dt_output_t *o, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->dtp->out_errno = n < 0 ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

/* The length of the longest run of whole lines at the start of buf that
 * fits in PIPE_BUF bytes, or of its first line when that alone is longer;
 * 0 when buf holds no newline. */
static size_t whole_lines(const char *buf, size_t len)
{
	size_t end = 0;

	for (const char *nl; (nl = memchr(buf + end, '\n', len - end));) {
		size_t next = (size_t)(nl - buf) + 1;

		if (end > 0 && next > PIPE_BUF)
			break;
		end = next;
	}
	return end;
}

static bool line_keep(dt_output_t *o, const char *buf, size_t len)
{
	if (o->nline + len > o->line_room) {
		size_t room = (o->nline + len) * 2;
		char *p = realloc(o->line, room);

		if (p == NULL) {
			o->dtp->out_errno = ENOMEM;
			return false;
		}
		o->line = p;
		o->line_room = room;
	}
	memcpy(o->line + o->nline, buf, len);
	o->nline += len;
	return true;
}

/* JSON: the lines that buf completes leave in whole-line writes; what
 * follows the last newline waits for the next call. */
static ssize_t write_lines(dt_output_t *o, const char *buf, size_t len)
{
	if (!line_keep(o, buf, len))
		return 0;
	size_t start = 0, n;

	while ((n = whole_lines(o->line + start, o->nline - start)) > 0) {
		if (write_all(o, o->line + start, n) < n)
			return 0;	/* a short count marks the stream */
		start += n;
	}
	memmove(o->line, o->line + start, o->nline - start);
	o->nline -= start;
	return (ssize_t)len;
}

static ssize_t output_write(void *cookie, const char *buf, size_t len)
{
	dt_output_t *o = cookie;

	if (o->dtp->opt.json || o->nline > 0)
		return write_lines(o, buf, len);
	/* a short count marks the stream in error */
	return (ssize_t)write_all(o, buf, len);
}

static int output_close(void *cookie)
{
	dt_output_t *o = cookie;
	int rc = 0;

	if (o->nline > 0 && write_all(o, o->line, o->nline) < o->nline)
		rc = -1;
	free(o->line);
	if (o->own_fd && close(o->fd) < 0) {
		o->dtp->out_errno = errno;
		rc = -1;
	}
	if (o->tmp_path != NULL) {
		if (rc == 0 && o->dtp->out_complete &&
		    rename(o->tmp_path, o->path) != 0) {
			o->dtp->out_errno = errno;
			rc = -1;
		}
		if (rc != 0 || !o->dtp->out_complete)
			unlink(o->tmp_path);
	}
	free(o->tmp_path);
	free(o->path);
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
	struct stat st;
	if (path != NULL && dtp->opt.oformat >= DT_OFORMAT_FOLDED &&
	    stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		free(o);
		errno = EISDIR;	/* the rename would fail at the end */
		return NULL;
	}
	if (path != NULL && dtp->opt.oformat >= DT_OFORMAT_FOLDED) {
		o->path = dt_strdup(path);
		o->tmp_path = dt_zalloc(strlen(path) + 16);
		sprintf(o->tmp_path, "%s.dtrace-XXXXXX", path);
		if ((o->fd = mkstemp(o->tmp_path)) < 0) {
			int err = errno;
			free(o->tmp_path);
			free(o->path);
			free(o);
			errno = err;
			return NULL;
		}
		mode_t mask = umask(0);	/* as open() would make it */
		umask(mask);
		fchmod(o->fd, 0666 & ~mask);
		o->own_fd = true;
	} else if (path != NULL) {
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
	dtp->out_named = path != NULL;
	/* a terminal sees each line as it is printed, as stdout would */
	if (isatty(o->fd))
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static const char *const oformat_names[] = {
	[DT_OFORMAT_TEXT] = "text", [DT_OFORMAT_JSON] = "json",
	[DT_OFORMAT_FOLDED] = "folded", [DT_OFORMAT_FLAMEGRAPH] = "flamegraph",
	[DT_OFORMAT_PPROF] = "pprof",
};

const char *dt_oformat_name(int f)
{
	return f >= 0 && f <= DT_OFORMAT_LAST ? oformat_names[f] : "?";
}

int dt_oformat_by_name(const char *name)
{
	for (int f = 0; name != NULL && f <= DT_OFORMAT_LAST; f++)
		if (strcmp(name, oformat_names[f]) == 0)
			return f;
	return -1;
}

dt_out_t *dt_output_create(dtrace_hdl_t *dtp)
{
	switch (dtp->opt.oformat) {
	case DT_OFORMAT_JSON:
		return dt_json_create(dtp);
	case DT_OFORMAT_FOLDED:
	case DT_OFORMAT_FLAMEGRAPH:
	case DT_OFORMAT_PPROF:
		return dt_profile_create(dtp);
	default:
		return dt_text_create(dtp);
	}
}
