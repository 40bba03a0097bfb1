/* SPDX-License-Identifier: MIT */
/*
 * test_json.c: -x oformat=json without BPF.  String escaping (quotes,
 * backslashes, control characters, valid and invalid UTF-8), exact
 * integers, and whole lines produced through the consumer's record entry
 * point (dt_consume_record) and aggregation printer from hand-made clauses,
 * probes and merged aggregation data: trace, printf, exit, tracemem,
 * the action mask, printa, count/sum/avg/min/quantize/lquantize, error
 * records, and the absence of any text output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_consume_impl.h"

static int failures;

static void expect_str(int line, const char *got, const char *want)
{
	if (strcmp(got ? got : "(null)", want) != 0) {
		fprintf(stderr, "line %d: got\n[%s]\nwant\n[%s]\n", line,
			got ? got : "(null)", want);
		failures++;
	}
}

#define EXPECT_STR(got, want) expect_str(__LINE__, (got), (want))

static dtrace_hdl_t dtp;

/* A record's value decoded (without a session) and written as JSON. */
static void json_value(FILE *out, const dt_recdesc_t *r, const void *p)
{
	dt_value_t v;

	dt_value_decode(NULL, &v, r, p);
	dt_json_value(NULL, out, &v);
	dt_value_free(&v);
}
static char s_dtrace[] = "dtrace", s_empty[] = "", s_begin[] = "BEGIN";
static char s_pid[] = "pid7", s_mod[] = "a\"b", s_fun[] = "f\\g";
static char s_entry[] = "entry";
static dtrace_probe_t begin = { .id = 1, .prv = s_dtrace, .mod = s_empty,
				.fun = s_empty, .prb = s_begin };
static dtrace_probe_t odd = { .id = 2, .prv = s_pid, .mod = s_mod,
			      .fun = s_fun, .prb = s_entry };
static dtrace_probe_t *probes[3] = { NULL, &begin, &odd };

static char *outbuf;
static size_t outlen;

static void reset_out(void)
{
	if (dtp.out != NULL)
		fclose(dtp.out);
	free(outbuf);
	outbuf = NULL;
	dtp.out = open_memstream(&outbuf, &outlen);
}

static void setup(void)
{
	dt_consume_fini(&dtp);
	if (dtp.out != NULL)
		fclose(dtp.out);
	free(outbuf);
	outbuf = NULL;
	memset(&dtp, 0, sizeof(dtp));
	dtp.opt.json = true;
	dtp.opt.oformat = DT_OFORMAT_JSON;
	dtp.probes = probes;
	dtp.nprobes = 2;
	dtp.out = open_memstream(&outbuf, &outlen);
}

static const char *output(void)
{
	fflush(dtp.out);
	return outbuf ? outbuf : "";
}

/* What a writer function puts in a string. */
#define CAPTURE(buf, expr)						\
	do {								\
		size_t len_;						\
		FILE *f_ = open_memstream(&(buf), &len_);		\
		FILE *out = f_;						\
		(void)out;						\
		expr;							\
		fclose(f_);						\
	} while (0)

static void test_strings(void)
{
	char *s = NULL;
	bool ok = true;

	CAPTURE(s, ok = dt_json_string(out, "a\"b\\c/d", 7));
	EXPECT_STR(s, "\"a\\\"b\\\\c/d\"");
	if (!ok)
		failures++;
	free(s);

	CAPTURE(s, dt_json_string(out, "\b\f\n\r\t\x01\x1f\x7f", 8));
	EXPECT_STR(s, "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"");
	free(s);

	/* an embedded NUL inside the given length is escaped, not an end */
	CAPTURE(s, dt_json_string(out, "a\0b", 3));
	EXPECT_STR(s, "\"a\\u0000b\"");
	free(s);

	/* valid UTF-8 of 2, 3 and 4 bytes passes through as is */
	CAPTURE(s, ok = dt_json_string(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f"
					     "\x98\x80", 9));
	EXPECT_STR(s, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	if (!ok)
		failures++;
	free(s);

	/* invalid: lone continuation, truncated sequence, overlong '/',
	 * a surrogate, above U+10FFFF, 0xff: each bad byte is U+FFFD */
	CAPTURE(s, ok = dt_json_string(out, "\x80x\xc3", 3));
	EXPECT_STR(s, "\"\\ufffdx\\ufffd\"");
	if (ok)
		failures++;
	free(s);
	CAPTURE(s, dt_json_string(out, "\xc0\xaf", 2));
	EXPECT_STR(s, "\"\\ufffd\\ufffd\"");
	free(s);
	CAPTURE(s, dt_json_string(out, "\xed\xa0\x80", 3));
	EXPECT_STR(s, "\"\\ufffd\\ufffd\\ufffd\"");
	free(s);
	CAPTURE(s, dt_json_string(out, "\xf4\x90\x80\x80z\xff", 6));
	EXPECT_STR(s, "\"\\ufffd\\ufffd\\ufffd\\ufffdz\\ufffd\"");
	free(s);

	/* a string record stops at its NUL; hex of bytes */
	CAPTURE(s, dt_json_cstring(out, "hi\0junk", 7));
	EXPECT_STR(s, "\"hi\"");
	free(s);
	CAPTURE(s, dt_json_hex(out, "\x00\x0a\xff", 3));
	EXPECT_STR(s, "\"000aff\"");
	free(s);
}

static void test_values(void)
{
	dt_recdesc_t r = { .kind = DT_RK_INT, .size = 8 };
	uint64_t max = UINT64_MAX;
	int64_t min = INT64_MIN;
	uint8_t b = 0xfe;
	uint64_t stack[4] = { 0x1000, 0x2000, 0, 0x9 };
	char *s = NULL;

	CAPTURE(s, json_value(out, &r, (const uint8_t *)&max));
	EXPECT_STR(s, "18446744073709551615");
	free(s);
	r.is_signed = true;
	CAPTURE(s, json_value(out, &r, (const uint8_t *)&min));
	EXPECT_STR(s, "-9223372036854775808");
	free(s);
	r.size = 1;
	CAPTURE(s, json_value(out, &r, &b));
	EXPECT_STR(s, "-2");
	free(s);
	r.is_signed = false;
	CAPTURE(s, json_value(out, &r, &b));
	EXPECT_STR(s, "254");
	free(s);
	r = (dt_recdesc_t){ .kind = DT_RK_KSTACK, .size = 32 };
	CAPTURE(s, json_value(out, &r, (const uint8_t *)stack));
	EXPECT_STR(s, "[{\"address\":4096},{\"address\":8192}]");
	free(s);
	r = (dt_recdesc_t){ .kind = DT_RK_MEM, .size = 2 };
	CAPTURE(s, json_value(out, &r, (const uint8_t *)"\x01\xab"));
	EXPECT_STR(s, "\"01ab\"");
	free(s);
}

/* --- records through dt_consume_record --- */

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

static void set_clause(dt_actdesc_t *acts, int nacts, uint32_t recsize,
		       bool actmask)
{
	clause0 = (dt_compiled_clause_t){ .id = 0, .nacts = nacts,
					  .acts = acts, .recsize = recsize,
					  .record = true, .actmask = actmask };
	dtp.clauses = clauses;
	dtp.nclauses = 1;
}

static void test_record_actions(void)
{
	dt_recdesc_t rint = { .kind = DT_RK_INT, .offset = 0, .size = 4,
			      .is_signed = true };
	dt_recdesc_t rstr = { .kind = DT_RK_STRING, .offset = 8, .size = 8 };
	dt_recdesc_t pf[2] = { rint, rstr };
	dt_recdesc_t rexit = { .kind = DT_RK_INT, .offset = 16, .size = 4,
			       .is_signed = true };
	dt_actdesc_t acts[4] = {
		{ .kind = DT_ACT_TRACE, .nrecs = 1, .recs = &rint },
		{ .kind = DT_ACT_TRACE, .nrecs = 1, .recs = &rstr },
		{ .kind = DT_ACT_PRINTF, .fmt = "%d %s\n", .nrecs = 2,
		  .recs = pf },
		{ .kind = DT_ACT_EXIT, .nrecs = 1, .recs = &rexit },
	};
	uint8_t data[24] = { 0 }, buf[128];
	int32_t v = -7, st = 3;
	size_t n;

	setup();
	dtp.opt.quiet = false;	/* JSON ignores -q: no heading either way */
	memcpy(data, &v, 4);
	memcpy(data + 8, "x\ty", 3);
	memcpy(data + 16, &st, 4);
	set_clause(acts, 4, sizeof(data), false);
	n = mkrec(buf, 0, 1, 2, data, sizeof(data));
	if (dt_consume_record(&dtp, buf, n) != 0)
		failures++;
	EXPECT_STR(output(),
		   "{\"type\":\"probe\",\"cpu\":2,\"id\":1,\"clause\":0,"
		   "\"probe\":{\"provider\":\"dtrace\",\"module\":\"\","
		   "\"function\":\"\",\"name\":\"BEGIN\"},\"actions\":["
		   "{\"action\":\"trace\",\"value\":-7},"
		   "{\"action\":\"trace\",\"value\":\"x\\ty\"},"
		   "{\"action\":\"printf\",\"format\":\"%d %s\\n\","
		   "\"output\":\"-7 x\\ty\\n\",\"args\":[-7,\"x\\ty\"]},"
		   "{\"action\":\"exit\",\"status\":3}]}\n");
	if (!dt_consume_done(&dtp) || dtp.exitstatus != 3)
		failures++;

	/* names that need escaping; a string that is not UTF-8 also has
	 * its bytes; the final step prints no blank line */
	setup();
	memcpy(data + 8, "\xff" "ab\0\0\0\0\0", 8);
	set_clause(&acts[1], 1, sizeof(data), false);
	n = mkrec(buf, 0, 2, 0, data, sizeof(data));
	dt_consume_record(&dtp, buf, n);
	dt_consume_final(&dtp);
	EXPECT_STR(output(),
		   "{\"type\":\"probe\",\"cpu\":0,\"id\":2,\"clause\":0,"
		   "\"probe\":{\"provider\":\"pid7\",\"module\":\"a\\\"b\","
		   "\"function\":\"f\\\\g\",\"name\":\"entry\"},\"actions\":["
		   "{\"action\":\"trace\",\"value\":\"\\ufffdab\","
		   "\"bytes\":\"ff6162\"}]}\n");
}

static void test_record_mask_and_mem(void)
{
	dt_recdesc_t r1 = { .kind = DT_RK_INT, .offset = 8, .size = 8 };
	dt_recdesc_t r2 = { .kind = DT_RK_INT, .offset = 16, .size = 8 };
	dt_recdesc_t rm = { .kind = DT_RK_MEM, .offset = 24, .size = 8,
			    .arg = 3 };
	dt_actdesc_t acts[3] = {
		{ .kind = DT_ACT_TRACE, .nrecs = 1, .recs = &r1 },
		{ .kind = DT_ACT_TRACE, .nrecs = 1, .recs = &r2 },
		{ .kind = DT_ACT_TRACEMEM, .nrecs = 1, .recs = &rm },
	};
	uint64_t data[4] = { 0x5, 11, 22, 0 }, buf[8];
	size_t n;

	/* the mask says actions 0 and 2 ran: action 1 is not shown */
	setup();
	memcpy(&data[3], "\x01\x02\x03\x04", 4);
	set_clause(acts, 3, sizeof(data), true);
	n = mkrec((uint8_t *)buf, 0, 1, 0, data, sizeof(data));
	dt_consume_record(&dtp, buf, n);
	EXPECT_STR(output(),
		   "{\"type\":\"probe\",\"cpu\":0,\"id\":1,\"clause\":0,"
		   "\"probe\":{\"provider\":\"dtrace\",\"module\":\"\","
		   "\"function\":\"\",\"name\":\"BEGIN\"},\"actions\":["
		   "{\"action\":\"trace\",\"value\":11},"
		   "{\"action\":\"tracemem\",\"bytes\":\"010203\"}]}\n");
}

static void test_error_record(void)
{
	struct {
		dt_rechdr_t h;
		dt_errrec_t e;
	} rec = { { .clause = DT_CLAUSE_ERROR, .prid = 1, .cpu = 0 },
		  { .clause = 0, .action = 2, .pc = 17,
		    .fault = DT_FAULT_BADADDR, .addr = 16 } };

	setup();
	dt_consume_record(&dtp, &rec, sizeof(rec));
	EXPECT_STR(output(),
		   "{\"type\":\"error\",\"cpu\":0,\"id\":1,\"clause\":0,"
		   "\"probe\":{\"provider\":\"dtrace\",\"module\":\"\","
		   "\"function\":\"\",\"name\":\"BEGIN\"},"
		   "\"fault\":\"invalid address\",\"address\":16,"
		   "\"action\":2,\"pc\":17,\"message\":\"error in "
		   "dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address "
		   "(0x10) at BPF pc 17\"}\n");
}

/* --- aggregations --- */

static dt_recdesc_t strkey = { .kind = DT_RK_STRING, .offset = 0, .size = 8 };

static void agg_setup(dt_aggdesc_t *descs, int n)
{
	dt_aggdesc_t *p[8];

	for (int i = 0; i < n; i++)
		p[i] = &descs[i];
	setup();
	dt_agg_setup(&dtp, p, n);
	reset_out();
}

static void add(int id, const char *k, const int64_t *val)
{
	char key[8] = { 0 };

	if (k != NULL)
		strncpy(key, k, sizeof(key) - 1);
	dt_agg_merge(&dtp, id, key, val);
}

static void test_aggregations(void)
{
	dt_aggdesc_t d[6] = {
		{ .id = 0, .name = "c", .func = DT_AGG_COUNT, .nkeys = 1,
		  .keys = &strkey, .keysize = 8 },
		{ .id = 1, .name = "", .func = DT_AGG_SUM },
		{ .id = 2, .name = "v", .func = DT_AGG_AVG },
		{ .id = 3, .name = "q", .func = DT_AGG_QUANTIZE },
		{ .id = 4, .name = "l", .func = DT_AGG_LQUANTIZE,
		  .params = { 0, 10, 5 } },
		{ .id = 5, .name = "m", .func = DT_AGG_MIN },
	};
	int64_t v[DT_QUANTIZE_NBUCKETS] = { 0 };

	agg_setup(d, 6);
	v[0] = 2;
	add(0, "b", v);
	v[0] = 1;
	add(0, "a", v);
	v[0] = 3;
	add(0, "\x01", v);
	v[0] = -5;
	add(1, NULL, v);
	v[0] = 3, v[1] = 10;
	add(2, NULL, v);
	memset(v, 0, sizeof(v));
	v[DT_QUANTIZE_ZERO] = 1;	/* 0 */
	v[DT_QUANTIZE_ZERO + 3] = 4;	/* [4, 7] */
	v[DT_QUANTIZE_ZERO - 2] = 2;	/* [-3, -2] */
	v[DT_QUANTIZE_NBUCKETS - 1] = 1;	/* [2^62, INT64_MAX] */
	add(3, NULL, v);
	memset(v, 0, sizeof(v));
	v[0] = 1, v[2] = 2, v[3] = 7;	/* < 0, [5, 9], >= 10 */
	add(4, NULL, v);
	v[0] = INT64_MIN, v[1] = 2;	/* min, and the values behind it */
	add(5, NULL, v);

	dt_agg_print_all(&dtp, dtp.out);
	EXPECT_STR(output(),
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"c\",\"function\":\"count\",\"data\":["
		   "{\"keys\":[\"a\"],\"value\":1},"
		   "{\"keys\":[\"b\"],\"value\":2},"
		   "{\"keys\":[\"\\u0001\"],\"value\":3}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"\",\"function\":\"sum\",\"data\":["
		   "{\"keys\":[],\"value\":-5}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"v\",\"function\":\"avg\",\"data\":["
		   "{\"keys\":[],\"value\":3,\"count\":3,\"sum\":10}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"q\",\"function\":\"quantize\",\"data\":["
		   "{\"keys\":[],\"buckets\":["
		   "{\"min\":-3,\"max\":-2,\"count\":2},"
		   "{\"min\":0,\"max\":0,\"count\":1},"
		   "{\"min\":4,\"max\":7,\"count\":4},"
		   "{\"min\":4611686018427387904,"
		   "\"max\":9223372036854775807,\"count\":1}]}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"l\",\"function\":\"lquantize\",\"data\":["
		   "{\"keys\":[],\"buckets\":["
		   "{\"min\":-9223372036854775808,\"max\":-1,\"count\":1},"
		   "{\"min\":5,\"max\":9,\"count\":2},"
		   "{\"min\":10,\"max\":9223372036854775807,\"count\":7}]}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"m\",\"function\":\"min\",\"data\":["
		   "{\"keys\":[],\"value\":-9223372036854775808,"
		   "\"count\":2}]}\n");

	/* normalize divides, and says so */
	reset_out();
	dt_agg_normalize(&dtp, 0, 2);
	dt_outagg_t *oa = dt_agg_outagg(&dtp, 0);
	dt_json_aggregation(&dtp, dtp.out, oa, "printa");
	dt_agg_outagg_free(oa);
	EXPECT_STR(output(),
		   "{\"type\":\"aggregation\",\"trigger\":\"printa\","
		   "\"name\":\"c\",\"function\":\"count\",\"normal\":2,"
		   "\"data\":[{\"keys\":[\"a\"],\"value\":0},"
		   "{\"keys\":[\"b\"],\"value\":1},"
		   "{\"keys\":[\"\\u0001\"],\"value\":1}]}\n");
}

/* printa() in a record: the record's line, then the snapshot; the
 * aggregation is then not printed again at the end. */
static void test_printa_record(void)
{
	dt_aggdesc_t d = { .id = 0, .name = "c", .func = DT_AGG_COUNT,
			   .nkeys = 1, .keys = &strkey, .keysize = 8 };
	int ids[1] = { 0 };
	dt_actdesc_t act = { .kind = DT_ACT_PRINTA, .naggs = 1, .aggs = ids };
	int64_t one = 1;
	uint8_t buf[64];
	size_t n;

	agg_setup(&d, 1);
	add(0, "k", &one);
	set_clause(&act, 1, 0, false);
	n = mkrec(buf, 0, 1, 0, "", 0);
	dt_consume_record(&dtp, buf, n);
	dt_consume_final(&dtp);
	EXPECT_STR(output(),
		   "{\"type\":\"probe\",\"cpu\":0,\"id\":1,\"clause\":0,"
		   "\"probe\":{\"provider\":\"dtrace\",\"module\":\"\","
		   "\"function\":\"\",\"name\":\"BEGIN\"},\"actions\":["
		   "{\"action\":\"printa\",\"aggregations\":[\"c\"]}]}\n"
		   "{\"type\":\"aggregation\",\"trigger\":\"printa\","
		   "\"name\":\"c\",\"function\":\"count\",\"data\":["
		   "{\"keys\":[\"k\"],\"value\":1}]}\n");
}

int main(void)
{
	test_strings();
	test_values();
	test_record_actions();
	test_record_mask_and_mem();
	test_error_record();
	test_aggregations();
	test_printa_record();
	dt_consume_fini(&dtp);
	if (dtp.out != NULL)
		fclose(dtp.out);
	free(outbuf);
	if (failures != 0) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	return 0;
}
