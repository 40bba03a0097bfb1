/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dtprobed_msg.c: dtprobed's registration message checker
 * (dtp_msg_convert(), what the jailed child runs on what any process on
 * the machine sends) and the state-file parser its output goes through
 * (usdt_reg_parse(), which dtprobed and the usdt plugin run).
 *
 * Input: a message as a process would send it.  Accepted or refused, the
 * checker must not crash, and what it accepts must parse back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../dtprobed/dtp_msg.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* dtp_msg.c's log hook is dtprobed.c's, which is not linked here. */
void dtp_log(int prio, const char *fmt, ...)
{
	(void)prio;
	(void)fmt;
}

/* The converted registration, read back from the memfd. */
static char *read_back(int fd, size_t *len)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *buf;

	if (n <= 0 || (buf = malloc((size_t)n)) == NULL)
		return NULL;
	if (pread(fd, buf, (size_t)n, 0) != n) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char why[128];
	size_t len;

	if (fd < 0 && (fd = memfd_create("fuzz", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	/* an exact-size copy: reading past the message is caught */
	unsigned char *msg = malloc(size ? size : 1);
	if (msg == NULL)
		return 0;
	memcpy(msg, data, size);
	if (dtp_msg_convert(msg, size, fd, why, sizeof(why)) == 0) {
		char *out = read_back(fd, &len);
		usdt_reg_t *reg = NULL;

		/* 'K', op and base (17 bytes), then the state text */
		if (out == NULL || len <= 17 || out[0] != 'K')
			abort();
		if (usdt_reg_parse(out + 17, len - 17, &reg) != 0)
			abort();	/* what the checker wrote must parse */
		usdt_reg_free(reg);
		free(out);
	}
	free(msg);
	return 0;
}
