/* SPDX-License-Identifier: MIT */
/*
 * test_consume.c: the record formatter without BPF: hand-made clauses and
 * probes, synthetic records, and the exact text DTrace prints for them
 * (heading, probe line, trace() of each size, strings, tracemem's table,
 * printf, exit, -q), plus error records on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_consume_impl.h"

static int failures;

static void expect_str(int line, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "line %d: got\n[%s]\nwant\n[%s]\n", line, got,
			want);
		failures++;
	}
}

#define EXPECT_STR(got, want) expect_str(__LINE__, (got), (want))

static dtrace_hdl_t dtp;
/* the probe's names are writable char * in the handle's struct */
static char s_dtrace[] = "dtrace", s_empty[] = "", s_begin[] = "BEGIN";
static char s_pid[] = "pid123", s_libc[] = "libc.so.6";
static char s_malloc[] = "malloc", s_entry[] = "entry";
static dtrace_probe_t begin = { .id = 1, .prv = s_dtrace, .mod = s_empty,
				.fun = s_empty, .prb = s_begin };
static dtrace_probe_t entry = { .id = 2, .prv = s_pid, .mod = s_libc,
				.fun = s_malloc, .prb = s_entry };
static dtrace_probe_t *probes[3] = { NULL, &begin, &entry };

static char *outbuf;
static size_t outlen;

static void setup(bool quiet)
{
	if (dtp.out != NULL)
		fclose(dtp.out);
	free(outbuf);
	outbuf = NULL;
	dt_consume_fini(&dtp);
	memset(&dtp, 0, sizeof(dtp));
	dtp.opt.quiet = quiet;
	dtp.probes = probes;
	dtp.nprobes = 2;
	dtp.out = open_memstream(&outbuf, &outlen);
}

static const char *output(void)
{
	fflush(dtp.out);
	return outbuf;
}

/* A record: header then data. */
static size_t mkrec(uint8_t *buf, uint32_t clause, uint32_t prid,
		    uint32_t cpu, const void *data, size_t n)
{
	dt_rechdr_t h = { .clause = clause, .prid = prid, .cpu = cpu };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, n);
	return sizeof(h) + n;
}

static dt_compiled_clause_t clause0;
static dt_compiled_clause_t *clauses[1] = { &clause0 };

static void one_action(dt_actkind_t kind, const char *fmt, dt_recdesc_t *recs,
		       int nrecs, uint32_t recsize)
{
	static dt_actdesc_t act;

	act = (dt_actdesc_t){ .kind = kind, .fmt = fmt, .nrecs = nrecs,
			      .recs = recs };
	clause0 = (dt_compiled_clause_t){ .id = 0, .nacts = 1, .acts = &act,
					  .recsize = recsize, .record = true };
	dtp.clauses = clauses;
	dtp.nclauses = 1;
}

static void test_probe_line_and_trace(void)
{
	dt_recdesc_t rec = { .kind = DT_RK_INT, .offset = 0, .size = 4,
			     .is_signed = true };
	uint8_t buf[256];
	int64_t v = 42;
	int64_t big = -5;
	size_t n;

	setup(false);
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 8);
	n = mkrec(buf, 0, 1, 0, &v, 8);
	dt_consume_record(&dtp, buf, n);
	v = -3;
	n = mkrec(buf, 0, 2, 11, &v, 8);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "CPU     ID                    FUNCTION:NAME\n"
		   "  0      1                           :BEGIN          42\n"
		   " 11      2                     malloc:entry          -3\n");

	setup(false);
	rec.size = 8;
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 8);
	n = mkrec(buf, 0, 1, 0, &big, 8);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "CPU     ID                    FUNCTION:NAME\n"
		   "  0      1                           :BEGIN                   "
		   "-5\n");

	/* 1 and 2 bytes: widths 3 and 5, sign from the type */
	setup(false);
	rec.size = 1;
	rec.is_signed = false;
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 8);
	v = 254;
	n = mkrec(buf, 0, 1, 0, &v, 8);
	dt_consume_record(&dtp, buf, n);
	rec.size = 2;
	rec.is_signed = true;
	v = -2;
	n = mkrec(buf, 0, 1, 0, &v, 8);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "CPU     ID                    FUNCTION:NAME\n"
		   "  0      1                           :BEGIN  254\n"
		   "  0      1                           :BEGIN     -2\n");

	/* quiet: bare values */
	setup(true);
	rec.size = 1;
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 8);
	v = -2;
	n = mkrec(buf, 0, 1, 0, &v, 8);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(), "-2");
}

static void test_trace_string(void)
{
	dt_recdesc_t rec = { .kind = DT_RK_STRING, .offset = 0, .size = 16 };
	uint8_t buf[256];
	char s[16] = "hello";
	size_t n;

	setup(false);
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 16);
	n = mkrec(buf, 0, 1, 0, s, 16);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "CPU     ID                    FUNCTION:NAME\n"
		   "  0      1                           :BEGIN   hello"
		   "                            \n");

	setup(true);
	one_action(DT_ACT_TRACE, NULL, &rec, 1, 16);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(), "hello");
}

static void test_tracemem(void)
{
	dt_recdesc_t rec = { .kind = DT_RK_MEM, .offset = 0, .size = 20,
			     .arg = 20 };
	uint8_t buf[256], mem[24];
	size_t n;

	for (int i = 0; i < 20; i++)
		mem[i] = (uint8_t)(0x41 + i);
	mem[3] = 0;
	setup(true);
	one_action(DT_ACT_TRACEMEM, NULL, &rec, 1, 24);
	n = mkrec(buf, 0, 1, 0, mem, 24);
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "\n"
		   "             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
		   "  0123456789abcdef\n"
		   "         0: 41 42 43 00 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50"
		   "  ABC.EFGHIJKLMNOP\n"
		   "        10: 51 52 53 54                                    "
		   "  QRST\n");
}

static void test_printf_exit(void)
{
	dt_recdesc_t recs[2] = {
		{ .kind = DT_RK_INT, .offset = 0, .size = 4, .is_signed = true },
		{ .kind = DT_RK_STRING, .offset = 8, .size = 8 },
	};
	dt_recdesc_t xrec = { .kind = DT_RK_INT, .offset = 16, .size = 4,
			      .is_signed = true };
	dt_actdesc_t acts[2] = {
		{ .kind = DT_ACT_PRINTF, .fmt = "%d %s\n", .nrecs = 2,
		  .recs = recs },
		{ .kind = DT_ACT_EXIT, .nrecs = 1, .recs = &xrec },
	};
	uint8_t data[24] = { 0 }, buf[256];
	int32_t v = 7, st = 3;
	size_t n;

	setup(false);
	clause0 = (dt_compiled_clause_t){ .nacts = 2, .acts = acts,
					  .recsize = 24, .record = true };
	dtp.clauses = clauses;
	dtp.nclauses = 1;
	memcpy(data, &v, 4);
	strcpy((char *)data + 8, "abc");
	memcpy(data + 16, &st, 4);
	n = mkrec(buf, 0, 1, 2, data, 24);
	if (dt_consume_done(&dtp))
		failures++;
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "CPU     ID                    FUNCTION:NAME\n"
		   "  2      1                           :BEGIN 7 abc\n\n");
	if (!dt_consume_done(&dtp) || dtp.exitstatus != 3) {
		fprintf(stderr, "exit() not seen\n");
		failures++;
	}
}

/* Run fn with stderr captured into buf. */
static void capture_stderr(void (*fn)(void), char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

static void feed_errors(void)
{
	uint8_t buf[64];
	dt_errrec_t er = { .clause = 0, .action = 1, .pc = 17,
			   .fault = DT_FAULT_BADADDR, .addr = 0 };
	size_t n = mkrec(buf, DT_CLAUSE_ERROR, 1, 0, &er, sizeof(er));

	dt_consume_record(&dtp, buf, n);
	er = (dt_errrec_t){ .clause = 2, .action = 3, .pc = 5,
			    .fault = DT_FAULT_DIVZERO };
	n = mkrec(buf, DT_CLAUSE_ERROR, 2, 0, &er, sizeof(er));
	dt_consume_record(&dtp, buf, n);
	er = (dt_errrec_t){ .clause = 0, .action = 2, .pc = 9,
			    .fault = DT_FAULT_BADALIGN, .addr = 0x1001 };
	n = mkrec(buf, DT_CLAUSE_ERROR, 2, 0, &er, sizeof(er));
	dt_consume_record(&dtp, buf, n);
	/* malformed: unknown clause, short record */
	n = mkrec(buf, 7, 1, 0, &er, 4);
	dt_consume_record(&dtp, buf, n);
	dt_consume_record(&dtp, buf, 3);
}

static void test_errors(void)
{
	char err[2048];

	setup(false);
	one_action(DT_ACT_TRACE, NULL, NULL, 0, 0);
	capture_stderr(feed_errors, err, sizeof(err));
	EXPECT_STR(err,
		   "dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): "
		   "invalid address (0x0) at BPF pc 17\n"
		   "dtrace: error in dt_clause_2 for probe ID 2 "
		   "(pid123:libc.so.6:malloc:entry): divide-by-zero "
		   "at BPF pc 5\n"
		   "dtrace: error in dt_clause_0 for probe ID 2 "
		   "(pid123:libc.so.6:malloc:entry): invalid alignment (0x1001) "
		   "at BPF pc 9\n"
		   "dtrace: record of unknown clause 7\n"
		   "dtrace: short record (3 bytes)\n");
	EXPECT_STR(output(), "");
}

int main(void)
{
	test_probe_line_and_trace();
	test_trace_string();
	test_tracemem();
	test_printf_exit();
	test_errors();
	dt_consume_fini(&dtp);
	fclose(dtp.out);
	free(outbuf);
	if (failures) {
		fprintf(stderr, "test_consume: %d failures\n", failures);
		return 1;
	}
	printf("test_consume: ok\n");
	return 0;
}
