/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dtprobed_discover.c: what dtprobed's discovery reads from the file
 * a process maps (dtprobed/dtp_discover.c, in its child): the .dtrace_prov
 * images, the notes and the declarations, turned into registration
 * messages, which then go through the message checker (dtp_msg_convert())
 * as the daemon's checks would take them.
 *
 * Input: an ELF file, mapped (as the fake mappings say) executable at
 * 0x400000 from offset 0.  Whatever the file holds, the reader and the
 * checker must not crash, and every record the reader writes must be
 * well formed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../dtprobed/dtp_discover.c"
#include "../../dtprobed/dtp_msg.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* dtprobed.c's and dtp_state.c's, which the discovery's reader does not
 * reach: not linked here. */
void dtp_log(int prio, const char *fmt, ...)
{
	(void)prio;
	(void)fmt;
}

bool dtp_state_has_file(pid_t pid, uint64_t dev, uint64_t ino)
{
	(void)pid;
	(void)dev;
	(void)ino;
	return true;
}

int dtp_state_apply(pid_t pid, int op, uint64_t base, usdt_reg_t *reg,
		    char *why, size_t whysz)
{
	(void)pid;
	(void)op;
	(void)base;
	(void)why;
	(void)whysz;
	usdt_reg_free(reg);
	return 0;
}

static int memfd_with(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return fd;
}

/* The reader's records, each checked; its messages through the checker. */
static void records_check(const unsigned char *buf, size_t len)
{
	size_t off = 0;
	int out = memfd_with(NULL, 0);
	char why[256];

	while (off < len) {
		uint32_t n;

		if (len - off < 5)
			abort();	/* a record cut short */
		memcpy(&n, buf + off + 1, 4);
		if ((buf[off] != 'M' && buf[off] != 'E') || n > len - off - 5)
			abort();
		if (buf[off] == 'M' && ftruncate(out, 0) == 0)
			dtp_msg_convert(buf + off + 5, n, out, why, sizeof(why));
		off += 5 + (size_t)n;
	}
	close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_with(data, size), rec = memfd_with(NULL, 0);
	char path[64];
	dt_mapping_t map = {
		.start = 0x400000, .end = 0x400000 + ((size + 4095) & ~4095ul),
		.pgoff = 0, .dev = 1, .ino = 1, .prot = PROT_READ | PROT_EXEC,
		.path = "/fuzz/input",
	};

	snprintf(path, sizeof(path), "/proc/self/fd/%d", in);
	file_put(rec, path, &map, 1, &map);
	off_t n = lseek(rec, 0, SEEK_END);
	if (n > 0) {
		unsigned char *buf = malloc((size_t)n);

		if (buf == NULL || pread(rec, buf, (size_t)n, 0) != n)
			abort();
		records_check(buf, (size_t)n);
		free(buf);
	}
	close(rec);
	close(in);
	return 0;
}
