/* SPDX-License-Identifier: MIT */
/*
 * dt_cpp.c: running a D program through the C preprocessor (-C).
 *
 * The source goes to cpp's standard input through an anonymous memory
 * file, so writing it can never deadlock against reading cpp's output
 * through a pipe.  Line markers are kept ("# 12 "<stdin>"") so that the
 * lexer reports errors on the lines of the original file.  An interpreter
 * line ("#!...") is blanked first: it is not a preprocessing directive,
 * and the newline is kept so that line numbers do not move.
 *
 * cpp's own diagnostics go to our standard error as they are; a failure
 * is reported in dtp->errmsg naming the preprocessor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt_impl.h"

#define DT_CPP_MAX_AS	(2ull << 30)	/* address space of cpp */

/* DTrace's own, then the GNU C keywords of the system headers that D
 * does not have, made to vanish (cpp is GCC's: glibc's headers use them
 * unless told the compiler is not GCC). */
static const char *const cpp_defines[] = {
	"-D__linux", "-D__x86_64", "-D__SUNW_D=1", "-D__SUNW_D_64",
	"-D__attribute__(x)=", "-D__extension__=", "-D__restrict=",
	"-D__restrict__=", "-D__inline=", "-D__inline__=", "-D__asm__(x)=",
	"-D__asm(x)=", "-D__builtin_va_list=void *",
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The source in a memory file positioned at 0, "#!" line blanked. */
static int source_fd(const char *src, size_t len)
{
	int fd = memfd_create("dtrace-cpp", MFD_CLOEXEC);
	size_t skip = 0;

	if (fd < 0)
		return -1;
	if (len >= 2 && src[0] == '#' && src[1] == '!')
		while (skip < len && src[skip] != '\n')
			skip++;
	if (write_all(fd, src + skip, len - skip) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static char **cpp_argv(dtrace_hdl_t *dtp, const char *cpp)
{
	size_t n = 0, i;
	char **argv = dt_zalloc((sizeof(cpp_defines) / sizeof(cpp_defines[0]) +
				 (size_t)dtp->opt.cpp_nargs + 3) *
				sizeof(*argv));

	argv[n++] = (char *)cpp;
	for (i = 0; i < sizeof(cpp_defines) / sizeof(cpp_defines[0]); i++)
		argv[n++] = (char *)cpp_defines[i];
	for (i = 0; i < (size_t)dtp->opt.cpp_nargs; i++)
		argv[n++] = (char *)dtp->opt.cpp_args[i];
	argv[n++] = (char *)"-";
	argv[n] = NULL;
	return argv;
}

/* Read fd to the end into a malloc'ed NUL-terminated buffer; NULL on a
 * read error, or with *too_big set past DT_SCRIPT_MAX bytes. */
static char *read_all(int fd, size_t *lenp, bool *too_big)
{
	size_t len = 0, cap = 8192;
	char *buf = dt_zalloc(cap);

	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			cap *= 2;
			buf = dt_realloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > DT_SCRIPT_MAX) {
			*too_big = true;
			free(buf);
			return NULL;
		}
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

static pid_t spawn_cpp(char **argv, int in, int out)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* an #include of /dev/zero makes cpp read without end: bound its
	 * memory so that it fails instead of taking the machine's */
	struct rlimit as = { DT_CPP_MAX_AS, DT_CPP_MAX_AS };
	setrlimit(RLIMIT_AS, &as);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(126);
	execvp(argv[0], argv);
	_exit(127);
}

int dt_cpp_run(dtrace_hdl_t *dtp, const char *src, size_t len, char **out,
	       size_t *outlen)
{
	const char *cpp = dtp->opt.cpppath ? dtp->opt.cpppath : "cpp";
	int in, pfd[2], status;
	char **argv, *text;
	bool too_big = false;
	pid_t pid;

	*out = NULL;
	*outlen = 0;
	if ((in = source_fd(src, len)) < 0) {
		dt_set_error(dtp, "failed to run cpp: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		dt_set_error(dtp, "failed to run cpp: %s", strerror(errno));
		close(in);
		return -1;
	}
	argv = cpp_argv(dtp, cpp);
	pid = spawn_cpp(argv, in, pfd[1]);
	free(argv);
	close(in);
	close(pfd[1]);
	if (pid < 0) {
		dt_set_error(dtp, "failed to run %s: %s", cpp, strerror(errno));
		close(pfd[0]);
		return -1;
	}
	text = read_all(pfd[0], outlen, &too_big);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text == NULL) {
		if (too_big)
			dt_set_error(dtp, "preprocessor %s output is larger "
				     "than %u MB", cpp, DT_SCRIPT_MAX >> 20);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			dt_set_error(dtp, "failed to run %s: command not found",
				     cpp);
		else
			dt_set_error(dtp, "preprocessor %s failed", cpp);
		free(text);
		return -1;
	}
	*out = text;
	return 0;
}
