/* SPDX-License-Identifier: MIT */
/*
 * test_agg.c: aggregation printing from hand-made merged data, compared
 * with the text DTrace prints: count/sum keyed by strings and integers,
 * avg, min, max, stddev, quantize (zero, small, large, negative counts),
 * lquantize with its < and >= rows, llquantize, printa with formats and
 * with several aggregations, trunc, clear, normalize, sorting options;
 * -x aggpercpu's per-CPU lines (text and JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *output(void)
{
	fflush(dtp.out);
	return outbuf;
}

static dt_recdesc_t strkey = { .kind = DT_RK_STRING, .offset = 0, .size = 16 };
static dt_recdesc_t intkey = { .kind = DT_RK_INT, .offset = 0, .size = 8,
			       .is_signed = true };
static dt_recdesc_t int4key = { .kind = DT_RK_INT, .offset = 0, .size = 4,
				.is_signed = true };

static dt_aggdesc_t mkdesc(int id, dt_aggfunc_t func, dt_recdesc_t *key)
{
	dt_aggdesc_t d = { .id = id, .name = "a", .func = func,
			   .nkeys = key ? 1 : 0, .keys = key,
			   .keysize = key ? key->size : 0 };

	return d;
}

static void setup(dt_aggdesc_t *descs, int n)
{
	dt_aggdesc_t *p[8];

	for (int i = 0; i < n; i++)
		p[i] = &descs[i];
	dt_consume_fini(&dtp);
	memset(&dtp.opt, 0, sizeof(dtp.opt));
	dt_agg_setup(&dtp, p, n);
	reset_out();
}

static void add_str(int id, const char *k, int64_t v0, int64_t v1)
{
	char key[16] = { 0 };
	int64_t val[4] = { v0, v1, 0, 0 };

	strncpy(key, k, sizeof(key) - 1);
	dt_agg_merge(&dtp, id, key, val);
}

static void add_int(int id, int64_t k, int64_t v)
{
	int64_t val[1] = { v };

	dt_agg_merge(&dtp, id, &k, val);
}

static const char *line_str(const char *key, long long v)
{
	static char buf[8][128];
	static int i;
	char *b = buf[i++ % 8];

	snprintf(b, 128, "  %-50s %16lld\n", key, v);
	return b;
}

static void test_count_sum(void)
{
	dt_aggdesc_t d[2] = { mkdesc(0, DT_AGG_COUNT, &strkey),
			      mkdesc(1, DT_AGG_SUM, &intkey) };
	char want[1024];
	int ids[2] = { 0, 1 };

	setup(d, 2);
	add_str(0, "bash", 3, 0);
	add_str(0, "dtrace", 1, 0);
	add_str(0, "cat", 2, 0);
	add_str(0, "cat", 2, 0);	/* a second CPU */
	add_str(0, "awk", 1, 0);
	add_int(1, 7, 100);
	add_int(1, -1, -20);
	dt_consume_final(&dtp);
	snprintf(want, sizeof(want), "\n%s%s%s%s"
		 "               -1              -20\n"
		 "                7              100\n",
		 line_str("awk", 1), line_str("dtrace", 1),
		 line_str("bash", 3), line_str("cat", 4));
	EXPECT_STR(output(), want);

	/* printa(@a): a blank line first; then not printed again at exit */
	reset_out();
	dt_agg_print(&dtp, dtp.out, ids, 1);
	snprintf(want, sizeof(want), "\n%s%s%s%s", line_str("awk", 1),
		 line_str("dtrace", 1), line_str("bash", 3),
		 line_str("cat", 4));
	EXPECT_STR(output(), want);
	reset_out();
	dt_agg_print_all(&dtp, dtp.out);
	EXPECT_STR(output(), "               -1              -20\n"
		   "                7              100\n");

	/* aggsortkey, aggsortrev */
	reset_out();
	dtp.opt.aggsortkey = true;
	dt_agg_print(&dtp, dtp.out, ids, 1);
	snprintf(want, sizeof(want), "\n%s%s%s%s", line_str("awk", 1),
		 line_str("bash", 3), line_str("cat", 4),
		 line_str("dtrace", 1));
	EXPECT_STR(output(), want);
	reset_out();
	dtp.opt.aggsortrev = true;
	dt_agg_print(&dtp, dtp.out, ids, 1);
	snprintf(want, sizeof(want), "\n%s%s%s%s", line_str("dtrace", 1),
		 line_str("cat", 4), line_str("bash", 3),
		 line_str("awk", 1));
	EXPECT_STR(output(), want);
	dtp.opt.aggsortkey = dtp.opt.aggsortrev = false;

	/* printa with a format */
	reset_out();
	dt_agg_printf(&dtp, dtp.out, "%-8s %@5d|\n", ids, 1);
	EXPECT_STR(output(), "awk          1|\ndtrace       1|\n"
		   "bash         3|\ncat          4|\n");

	/* trunc(@, 2) keeps the 2 largest; trunc(@, -1) the smallest */
	reset_out();
	dt_agg_trunc(&dtp, 0, 2, false);
	dt_agg_printf(&dtp, dtp.out, "%s=%@d ", ids, 1);
	EXPECT_STR(output(), "bash=3 cat=4 ");
	reset_out();
	dt_agg_trunc(&dtp, 0, -1, false);
	dt_agg_printf(&dtp, dtp.out, "%s=%@d ", ids, 1);
	EXPECT_STR(output(), "bash=3 ");

	/* normalize divides what is printed; clear zeroes, keeps keys */
	reset_out();
	dt_agg_normalize(&dtp, 1, 10);
	dt_agg_printf(&dtp, dtp.out, "%d:%@d ", ids + 1, 1);
	EXPECT_STR(output(), "-1:-2 7:10 ");
	reset_out();
	dt_agg_normalize(&dtp, 1, 1);
	dt_agg_clear(&dtp, 1);
	dt_agg_printf(&dtp, dtp.out, "%d:%@d ", ids + 1, 1);
	/* integer keys sort as unsigned values, as in DTrace */
	EXPECT_STR(output(), "7:0 -1:0 ");
	reset_out();
	dt_agg_trunc(&dtp, 1, 0, true);
	dt_agg_print(&dtp, dtp.out, ids + 1, 1);
	EXPECT_STR(output(), "\n");
}

static void test_scalars(void)
{
	dt_aggdesc_t d[5] = { mkdesc(0, DT_AGG_AVG, NULL),
			      mkdesc(1, DT_AGG_MIN, NULL),
			      mkdesc(2, DT_AGG_MAX, NULL),
			      mkdesc(3, DT_AGG_STDDEV, NULL),
			      mkdesc(4, DT_AGG_COUNT, &int4key) };
	int64_t avg[2] = { 3, 10 }, mn[2] = { -5, 1 }, mx[2] = { 9, 1 };
	int64_t sd[4] = { 2, 30, 500, 0 };	/* stddev(10), stddev(20) */
	int64_t mn2[2] = { 4, 3 };
	int64_t mn0[2] = { 0, 0 };	/* a CPU that recorded nothing */
	int32_t k4 = -2;
	int64_t one[1] = { 1 };

	setup(d, 5);
	dt_agg_merge(&dtp, 0, NULL, avg);
	dt_agg_merge(&dtp, 1, NULL, mn);
	dt_agg_merge(&dtp, 1, NULL, mn0);
	dt_agg_merge(&dtp, 1, NULL, mn2);
	dt_agg_merge(&dtp, 2, NULL, mx);
	dt_agg_merge(&dtp, 3, NULL, sd);
	dt_agg_merge(&dtp, 4, &k4, one);
	dt_consume_final(&dtp);
	EXPECT_STR(output(), "\n"
		   "                3\n"
		   "               -5\n"
		   "                9\n"
		   "                5\n"
		   "       -2                1\n");
}

static void test_quantize(void)
{
	dt_aggdesc_t d[2] = { mkdesc(0, DT_AGG_QUANTIZE, NULL),
			      mkdesc(1, DT_AGG_QUANTIZE, &strkey) };
	int64_t b[DT_QUANTIZE_NBUCKETS] = { 0 };
	int ids[2] = { 0, 1 };
	char key[16] = "sh";

	setup(d, 2);
	b[DT_QUANTIZE_ZERO] = 1;		/* 0 */
	b[DT_QUANTIZE_ZERO + 1] = 2;		/* 1 */
	b[DT_QUANTIZE_ZERO + 3] = 1;		/* 4..7 */
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "              -1 |                                         0        \n"
		   "               0 |@@@@@@@@@@                               1        \n"
		   "               1 |@@@@@@@@@@@@@@@@@@@@                     2        \n"
		   "               2 |                                         0        \n"
		   "               4 |@@@@@@@@@@                               1        \n"
		   "               8 |                                         0        \n"
		   "\n");

	/* large and negative values, keyed: the key line, then the table */
	memset(b, 0, sizeof(b));
	b[DT_QUANTIZE_ZERO - 1 - 10] = 3;	/* -2047..-1024 */
	b[DT_QUANTIZE_NBUCKETS - 1] = 1;	/* >= 2^62 */
	dt_agg_merge(&dtp, 1, key, b);
	reset_out();
	dt_agg_print(&dtp, dtp.out, ids + 1, 1);
	{
		const char *out = output();
		char head[128];

		snprintf(head, sizeof(head), "\n  %-50s\n           value",
			 "sh");
		if (strstr(out, "           -1024 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3        \n") == NULL ||
		    strstr(out, "           -2048 |                                         0        \n") == NULL ||
		    strstr(out, "\n4611686018427387904 |@@@@@@@@@@                               1        \n\n") == NULL ||
		    strncmp(out, head, strlen(head)) != 0) {
			fprintf(stderr, "quantize large/negative:\n%s", out);
			failures++;
		}
	}

	/* negative counts only (quantize(x, -1)) */
	memset(b, 0, sizeof(b));
	b[DT_QUANTIZE_ZERO + 1] = -1;
	setup(d, 1);
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "               0                                         | 0        \n"
		   "               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -1       \n"
		   "               2                                         | 0        \n"
		   "\n");

	/* both signs: two half bars around a centre line */
	memset(b, 0, sizeof(b));
	b[DT_QUANTIZE_ZERO + 1] = 1;
	b[DT_QUANTIZE_ZERO + 2] = -1;
	setup(d, 1);
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "               0                     |                     0        \n"
		   "               1                     |@@@@@@@@@@           1        \n"
		   "               2           @@@@@@@@@@|                     -1       \n"
		   "               4                     |                     0        \n"
		   "\n");

	/* empty: the buckets around zero */
	memset(b, 0, sizeof(b));
	setup(d, 1);
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "              -1 |                                         0        \n"
		   "               0 |                                         0        \n"
		   "               1 |                                         0        \n"
		   "\n");
}

static void test_lquantize(void)
{
	dt_aggdesc_t d = mkdesc(0, DT_AGG_LQUANTIZE, NULL);
	int64_t b[7] = { 1, 0, 2, 0, 0, 0, 1 };
	int ids[1] = { 0 };

	d.params[0] = 0;	/* low */
	d.params[1] = 10;	/* high */
	d.params[2] = 2;	/* step */
	setup(&d, 1);
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "             < 0 |@@@@@@@@@@                               1        \n"
		   "               0 |                                         0        \n"
		   "               2 |@@@@@@@@@@@@@@@@@@@@                     2        \n"
		   "               4 |                                         0        \n"
		   "               6 |                                         0        \n"
		   "               8 |                                         0        \n"
		   "           >= 10 |@@@@@@@@@@                               1        \n"
		   "\n");

	/* inside the range only: one empty row on each side */
	int64_t c[7] = { 0, 0, 0, 4, 0, 0, 0 };

	setup(&d, 1);
	dt_agg_merge(&dtp, 0, NULL, c);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "               2 |                                         0        \n"
		   "               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 4        \n"
		   "               6 |                                         0        \n"
		   "\n");
}

static void test_llquantize(void)
{
	dt_aggdesc_t d = mkdesc(0, DT_AGG_LLQUANTIZE, NULL);
	int64_t b[39] = { 0 };
	int ids[1] = { 0 };
	int n;

	d.params[0] = 10;	/* factor */
	d.params[1] = 0;	/* low magnitude */
	d.params[2] = 1;	/* high magnitude */
	d.params[3] = 10;	/* steps */
	/* Oracle DTrace's layout: 18 bins each way around bin0 (19) */
	n = dt_llquantize_nbuckets(10, 0, 1, 10);
	if (n != 39 || dt_llquantize_bucket(10, 0, 1, 10, 0) != 19 ||
	    dt_llquantize_bucket(10, 0, 1, 10, 5) != 24 ||
	    dt_llquantize_bucket(10, 0, 1, 10, 25) != 30 ||
	    dt_llquantize_bucket(10, 0, 1, 10, 99) != 37 ||
	    dt_llquantize_bucket(10, 0, 1, 10, 100) != 38 ||
	    dt_llquantize_bucket(10, 0, 1, 10, -5) != 14 ||
	    dt_llquantize_bucket(10, 0, 1, 10, -100) != 0 ||
	    dt_llquantize_bucket(10, 0, 1, 10, INT64_MIN) != 0 ||
	    dt_llquantize_bucket(10, 1, 2, 20, 7) != 37 ||
	    dt_llquantize_bucket(10, 1, 2, 20, -15) != 35) {
		fprintf(stderr, "llquantize buckets wrong (n %d)\n", n);
		failures++;
	}
	b[14] = 1;	/* -5 */
	b[19] = 1;	/* 0 */
	b[24] = 1;	/* 5 */
	b[30] = 2;	/* 20..29 */
	setup(&d, 1);
	dt_agg_merge(&dtp, 0, NULL, b);
	dt_agg_print(&dtp, dtp.out, ids, 1);
	EXPECT_STR(output(), "\n\n"
		   "           value  ------------- Distribution ------------- count    \n"
		   "              -6 |                                         0        \n"
		   "              -5 |@@@@@@@@                                 1        \n"
		   "              -4 |                                         0        \n"
		   "              -3 |                                         0        \n"
		   "              -2 |                                         0        \n"
		   "              -1 |                                         0        \n"
		   "               0 |@@@@@@@@                                 1        \n"
		   "               1 |                                         0        \n"
		   "               2 |                                         0        \n"
		   "               3 |                                         0        \n"
		   "               4 |                                         0        \n"
		   "               5 |@@@@@@@@                                 1        \n"
		   "               6 |                                         0        \n"
		   "               7 |                                         0        \n"
		   "               8 |                                         0        \n"
		   "               9 |                                         0        \n"
		   "              10 |                                         0        \n"
		   "              20 |@@@@@@@@@@@@@@@@                         2        \n"
		   "              30 |                                         0        \n"
		   "\n");
}

static void test_joined(void)
{
	dt_aggdesc_t d[2] = { mkdesc(0, DT_AGG_COUNT, &strkey),
			      mkdesc(1, DT_AGG_SUM, &strkey) };
	int ids[2] = { 0, 1 };
	char want[512];

	setup(d, 2);
	add_str(0, "x", 2, 0);
	add_str(0, "y", 1, 0);
	add_str(1, "x", 10, 0);
	add_str(1, "z", 5, 0);
	dt_agg_print(&dtp, dtp.out, ids, 2);
	snprintf(want, sizeof(want), "\n  %-50s %16d %16d\n  %-50s %16d %16d\n"
		 "  %-50s %16d %16d\n", "z", 0, 5, "y", 1, 0, "x", 2, 10);
	EXPECT_STR(output(), want);
	reset_out();
	dt_agg_printf(&dtp, dtp.out, "%s %@d %@d\n", ids, 2);
	EXPECT_STR(output(), "z 0 5\ny 1 0\nx 2 10\n");
	/* aggsortpos=1 sorts on @b's values */
	reset_out();
	dtp.opt.aggsortpos = 1;
	dt_agg_printf(&dtp, dtp.out, "%s ", ids, 2);
	EXPECT_STR(output(), "y z x ");
	dtp.opt.aggsortpos = 0;
	/* one %@ several times with one aggregation repeats it */
	reset_out();
	dt_agg_printf(&dtp, dtp.out, "%@d %@d|", ids, 1);
	EXPECT_STR(output(), "1 1|2 2|");
}

/* Merge v into key's entry and keep it as CPU cpu's value (aggpercpu). */
static void add_cpu(int id, int cpu, const void *key, const int64_t *v)
{
	dt_agg_merge(&dtp, id, key, v);
	dt_agg_merge_cpu(&dtp, id, cpu, key, v);
}

static void test_percpu(void)
{
	dt_aggdesc_t d[4] = { mkdesc(0, DT_AGG_COUNT, &strkey),
			      mkdesc(1, DT_AGG_SUM, &strkey),
			      mkdesc(2, DT_AGG_AVG, NULL),
			      mkdesc(3, DT_AGG_MIN, NULL) };
	char x[16] = "x", z[16] = "z", want[1024];
	int64_t c1[1] = { 1 }, c2[1] = { 2 }, s4[1] = { 4 }, s6[1] = { 6 };
	int64_t a0[2] = { 1, 20 }, a1[2] = { 2, 10 };
	int64_t m0[2] = { 5, 1 }, m1[2] = { -3, 2 };
	int ids[2] = { 0, 1 }, avg = 2, mn = 3;
	dt_outagg_t *oa;

	setup(d, 4);
	dtp.opt.aggpercpu = true;
	dt_consumer_get(&dtp)->ncpus = 4;
	add_cpu(0, 0, x, c1);
	add_cpu(0, 3, x, c2);
	add_cpu(1, 0, x, s4);
	add_cpu(1, 3, x, s6);
	add_cpu(1, 3, z, s6);
	add_cpu(2, 0, NULL, a0);
	add_cpu(2, 1, NULL, a1);
	add_cpu(3, 0, NULL, m0);
	add_cpu(3, 1, NULL, m1);
	/* joined: a CPU line carries each aggregation's value for that CPU,
	 * in the total's column; none for CPUs that recorded nothing */
	dt_agg_print(&dtp, dtp.out, ids, 2);
	snprintf(want, sizeof(want), "\n  %-50s %16d %16d\n%-52s %16d %16d\n"
		 "  %-50s %16d %16d\n%-52s %16d %16d\n%-52s %16d %16d\n",
		 "z", 0, 6, "    [CPU 3]", 0, 6,
		 "x", 3, 10, "    [CPU 0]", 1, 4, "    [CPU 3]", 2, 6);
	EXPECT_STR(output(), want);
	/* avg and min: each CPU's own result */
	reset_out();
	dt_agg_print(&dtp, dtp.out, &avg, 1);
	dt_agg_print(&dtp, dtp.out, &mn, 1);
	EXPECT_STR(output(), "\n               10\n"
		   "    [CPU 0]    20\n    [CPU 1]     5\n"
		   "\n               -3\n"
		   "    [CPU 0]     5\n    [CPU 1]    -3\n");
	/* JSON: "percpu" after the entry's own fields */
	reset_out();
	oa = dt_agg_outagg(&dtp, avg);
	dt_json_aggregation(&dtp, dtp.out, oa, "exit");
	dt_agg_outagg_free(oa);
	EXPECT_STR(output(), "{\"type\":\"aggregation\",\"trigger\":\"exit\","
		   "\"name\":\"a\",\"function\":\"avg\",\"data\":[{\"keys\":[],"
		   "\"value\":10,\"count\":3,\"sum\":30,\"percpu\":["
		   "{\"cpu\":0,\"value\":20,\"count\":1,\"sum\":20},"
		   "{\"cpu\":1,\"value\":5,\"count\":2,\"sum\":10}]}]}\n");
	/* the option off: the totals alone, as always */
	reset_out();
	dtp.opt.aggpercpu = false;
	dt_agg_print(&dtp, dtp.out, &avg, 1);
	EXPECT_STR(output(), "\n               10\n");
	/* clear() forgets the CPUs' values with the totals */
	reset_out();
	dtp.opt.aggpercpu = true;
	dt_agg_clear(&dtp, mn);
	dt_agg_print(&dtp, dtp.out, &mn, 1);
	EXPECT_STR(output(), "\n                0\n");
}

int main(void)
{
	test_count_sum();
	test_scalars();
	test_quantize();
	test_lquantize();
	test_llquantize();
	test_joined();
	test_percpu();
	dt_consume_fini(&dtp);
	fclose(dtp.out);
	free(outbuf);
	if (failures) {
		fprintf(stderr, "test_agg: %d failures\n", failures);
		return 1;
	}
	printf("test_agg: ok\n");
	return 0;
}
