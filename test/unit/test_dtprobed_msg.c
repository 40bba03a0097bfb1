/* SPDX-License-Identifier: MIT */
/*
 * test_dtprobed_msg.c: dtprobed's message checker (dtp_msg_convert, the
 * code that runs in the jailed parser; dtp_msg_unregistration, which the
 * daemon runs itself) and the state-file parser
 * (usdt_reg_parse, which dtprobed runs on the child's output and the usdt
 * plugin on state files): a valid message round-trips, then both are fuzzed
 * with random mutations and truncations of valid input for a bounded time.
 * Neither may crash (the sanitizer build checks every access); every
 * result is either a clean refusal or a consistent registration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../dtprobed/dtp_msg.c"
#include "usdt_decl.h"
#include "unit_check.h"

/* dtp_msg.c's log hook is dtprobed.c's; not linked here. */
void dtp_log(int prio, const char *fmt, ...)
{
	(void)prio;
	(void)fmt;
}

/* A valid message: provider pyprov, probe fire(int) : (int), one site. */
static size_t make_message(unsigned char *m)
{
	static const char strtab[] = "\0pyprov\0fire\0int\0Evolving/Evolving/Common";
	dtpv_msg_t h = { .magic = "DTPV", .version = DTPV_VERSION,
			 .op = DTPV_OP_REGISTER };
	dtpv_probe_t p = { .name = 8, .nargs = 1, .nxargs = 1, .native = 0,
			   .xlate = 1 };
	dtpv_site_t s = { .addr = 0x401000, .sema = 0x404000, .probe = 0 };
	uint32_t types[2] = { 13, 13 };
	size_t off;

	h.provider = 1;
	h.attrs[0] = 17;
	h.nprobes = 1;
	h.probes_off = sizeof(h);
	h.ntypes = 2;
	h.types_off = h.probes_off + sizeof(p);
	h.strtab_off = h.types_off + sizeof(types);
	h.strtab_size = sizeof(strtab);
	off = (h.strtab_off + sizeof(strtab) + 7) & ~(size_t)7;
	h.nsites = 1;
	h.sites_off = (uint32_t)off;
	h.size = (uint32_t)(off + sizeof(s));
	h.base = 0x400000;
	memset(m, 0, h.size);
	memcpy(m, &h, sizeof(h));
	memcpy(m + h.probes_off, &p, sizeof(p));
	memcpy(m + h.types_off, types, sizeof(types));
	memcpy(m + h.strtab_off, strtab, sizeof(strtab));
	memcpy(m + off, &s, sizeof(s));
	return h.size;
}

/* Convert into a memfd and parse the result back. */
static int convert_and_parse(const unsigned char *m, size_t len,
			     usdt_reg_t **reg)
{
	char why[128], *buf;
	int fd = memfd_create("out", 0), rc;
	off_t n;

	*reg = NULL;
	rc = dtp_msg_convert(m, len, fd, why, sizeof(why));
	if (rc != 0) {
		close(fd);
		return -1;
	}
	n = lseek(fd, 0, SEEK_END);
	buf = malloc((size_t)n);
	CHECK(pread(fd, buf, (size_t)n, 0) == n);
	close(fd);
	CHECK(n > 17 && buf[0] == 'K');
	rc = n > 17 ? usdt_reg_parse(buf + 17, (size_t)n - 17, reg) : -1;
	free(buf);
	return rc;
}

static void check_valid(void)
{
	unsigned char m[512];
	size_t len = make_message(m);
	usdt_reg_t *r;

	CHECK(convert_and_parse(m, len, &r) == 0);
	CHECK(r != NULL && r->next == NULL);
	if (r == NULL)
		return;
	CHECK(strcmp(r->provider, "pyprov") == 0);
	CHECK(r->attrs[0] && strcmp(r->attrs[0], "Evolving/Evolving/Common") == 0);
	CHECK(r->nprobes == 1 && strcmp(r->probes[0].name, "fire") == 0);
	CHECK(r->probes[0].nargs == 1 && strcmp(r->probes[0].native[0], "int") == 0);
	CHECK(r->probes[0].nsites == 1 && r->probes[0].sites[0].addr == 0x401000);
	CHECK(usdt_reg_stability("Evolving") == 5);
	usdt_reg_free(r);
}

/* A probe of 16 arguments translated in reverse, as `dtrace -G` writes
 * it (usdt_decl_image(), no sites): the mappings past the 12th, words of
 * the types table, reach the state text. */
static void check_sixteen(void)
{
	usdt_decl_probe_t p = { .name = "sixteen", .nargs = 16,
				.nxargs = 16 };
	usdt_decl_t d = { .provider = "many", .nprobes = 1, .probes = &p };
	unsigned char *img = NULL;
	size_t len = 0;
	dtpv_msg_t h;
	usdt_reg_t *r;

	for (int a = 0; a < 16; a++) {
		p.native[a] = "int";
		p.xlate[a] = "long";
		p.mapping[a] = 15 - a;
	}
	CHECK(usdt_decl_image(&d, &img, &len) == 0);
	if (img == NULL)
		return;
	memcpy(&h, img, sizeof(h));
	h.op = DTPV_OP_REGISTER;
	memcpy(img, &h, sizeof(h));
	CHECK(convert_and_parse(img, len, &r) == 0);
	CHECK(r && r->nprobes == 1 && r->probes[0].nargs == 16 &&
	      r->probes[0].nxargs == 16);
	for (int a = 0; r && r->nprobes == 1 && a < 16; a++)
		CHECK(r->probes[0].mapping[a] == 15 - a);
	usdt_reg_free(r);

	uint32_t bad = 16;	/* args[15]'s mapping: no such native */
	memcpy(img + h.types_off + 4 * (h.ntypes - 1), &bad, 4);
	CHECK(convert_and_parse(img, len, &r) != 0);
	usdt_reg_free(r);
	free(img);
}

/*
 * A provider of three probes a, b, c without arguments, whose five sites
 * name probes 2, 0, 2, 1, 0 in that order (addresses 0x1000 to 0x5000): a
 * module's sites come in the order of its section, not grouped by probe.
 */
static size_t make_sites_message(unsigned char *m, uint16_t op)
{
	static const char strtab[] = "\0pyprov\0a\0b\0c";
	static const uint32_t site_probe[5] = { 2, 0, 2, 1, 0 };
	dtpv_msg_t h = { .magic = "DTPV", .version = DTPV_VERSION, .op = op };
	size_t off;

	h.provider = 1;
	h.nprobes = 3;
	h.probes_off = sizeof(h);
	h.strtab_off = h.probes_off + 3 * sizeof(dtpv_probe_t);
	h.strtab_size = sizeof(strtab);
	off = (h.strtab_off + sizeof(strtab) + 7) & ~(size_t)7;
	h.nsites = 5;
	h.sites_off = (uint32_t)off;
	h.size = (uint32_t)(off + 5 * sizeof(dtpv_site_t));
	h.base = 0x400000;
	memset(m, 0, h.size);
	memcpy(m, &h, sizeof(h));
	for (uint32_t i = 0; i < 3; i++) {
		dtpv_probe_t p = { .name = 8 + 2 * i };

		memcpy(m + h.probes_off + i * sizeof(p), &p, sizeof(p));
	}
	memcpy(m + h.strtab_off, strtab, sizeof(strtab));
	for (uint32_t i = 0; i < 5; i++) {
		dtpv_site_t st = { .addr = 0x1000 * (i + 1), .sema = 0x9000,
				   .probe = site_probe[i] };

		memcpy(m + off + i * sizeof(st), &st, sizeof(st));
	}
	return h.size;
}

static bool sites_are(const usdt_reg_probe_t *p, int n, uint64_t a0,
		      uint64_t a1)
{
	return p->nsites == n && (n < 1 || p->sites[0].addr == a0) &&
	       (n < 2 || p->sites[1].addr == a1);
}

/* Each probe gets its own sites in the message's order; an unregistration
 * names the first site of the lowest-numbered probe, as dtp_state.c's
 * first_site() finds it in the registration. */
static void check_sites_and_unregistration(void)
{
	unsigned char m[512];
	size_t len = make_sites_message(m, DTPV_OP_REGISTER);
	char provider[DTPV_NAME_MAX], why[128] = "";
	uint64_t site = 0;
	usdt_reg_t *r;

	CHECK(convert_and_parse(m, len, &r) == 0);
	CHECK(r != NULL && r->nprobes == 3);
	if (r != NULL && r->nprobes == 3) {
		CHECK(sites_are(&r->probes[0], 2, 0x2000, 0x5000));
		CHECK(sites_are(&r->probes[1], 1, 0x4000, 0));
		CHECK(sites_are(&r->probes[2], 2, 0x1000, 0x3000));
	}
	usdt_reg_free(r);
	CHECK(!dtp_msg_is_unregistration(m, len));
	CHECK(dtp_msg_unregistration(m, len, provider, &site, why,
				     sizeof(why)) == -1);
	CHECK(strcmp(why, "not an unregistration") == 0);

	len = make_sites_message(m, DTPV_OP_UNREGISTER);
	CHECK(dtp_msg_is_unregistration(m, len));
	CHECK(dtp_msg_unregistration(m, len, provider, &site, why,
				     sizeof(why)) == 0);
	CHECK(strcmp(provider, "pyprov") == 0 && site == 0x2000);
	/* A site of a probe the message does not have: refused. */
	m[((dtpv_msg_t *)m)->sites_off + 2 * sizeof(dtpv_site_t) + 16] = 7;
	CHECK(dtp_msg_unregistration(m, len, provider, &site, why,
				     sizeof(why)) == -1);
	CHECK(strcmp(why, "site of no probe") == 0);
	CHECK(dtp_msg_unregistration(m, 40, provider, &site, why,
				     sizeof(why)) == -1);
}

/* A state text of many probes and sites reads back whole (the arrays grow
 * by doubling as they are read). */
static void check_many_probes(void)
{
	size_t cap = 1 << 20, len;
	char *t = malloc(cap);
	FILE *f = fmemopen(t, cap, "w");
	usdt_reg_t *r = NULL;

	fprintf(f, "dtprobed-state\t1\nproc\t42\t1000\n"
		"reg\t7\tbig\t1\t2\t0x0\t/bin/big\n");
	for (int i = 0; i < 1000; i++) {
		fprintf(f, "probe\tp%d\t0\t0\n", i);
		for (int j = 0; j <= i % 5; j++)
			fprintf(f, "site\t0x%x\t0x0\t0x0\t0x0\n", 16 * i + j + 1);
	}
	len = (size_t)ftell(f);
	fclose(f);
	CHECK(usdt_reg_parse(t, len, &r) == 0);
	CHECK(r != NULL && r->nprobes == 1000);
	for (int i = 0; r != NULL && i < r->nprobes; i++) {
		const usdt_reg_probe_t *p = &r->probes[i];
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		CHECK(strcmp(p->name, name) == 0 && p->nsites == i % 5 + 1);
		CHECK(p->sites[p->nsites - 1].addr ==
		      (uint64_t)(16 * i + p->nsites));
	}
	usdt_reg_free(r);
	free(t);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mutate(unsigned char *m, size_t *len, size_t cap)
{
	int n = 1 + rand() % 8;

	for (int i = 0; i < n; i++) {
		/* half the flips in the header, where the offsets are */
		size_t at = rand() % 2 ? (size_t)rand() % 88 :
			(size_t)rand() % *len;

		if (at < *len)
			m[at] = rand() % 4 ? (unsigned char)rand() : 0xff;
	}
	if (rand() % 8 == 0)
		*len = (size_t)rand() % (*len + 1);
	if (rand() % 16 == 0 && *len + 64 <= cap)
		*len += (size_t)rand() % 64;
}

static void fuzz_messages(double seconds)
{
	unsigned char valid[512], m[1024];
	size_t vlen = make_message(valid);
	double end = now() + seconds;
	long runs = 0, accepted = 0;
	char provider[DTPV_NAME_MAX], why[128];
	uint64_t site;
	usdt_reg_t *r;

	while (now() < end) {
		for (int k = 0; k < 100; k++, runs++) {
			size_t len = vlen;

			memcpy(m, valid, vlen);
			memset(m + vlen, 0, sizeof(m) - vlen);
			mutate(m, &len, sizeof(m));
			(void)dtp_msg_unregistration(m, len, provider, &site,
						     why, sizeof(why));
			if (convert_and_parse(m, len, &r) == 0) {
				accepted++;
				CHECK(r != NULL && r->next == NULL);
				CHECK(r == NULL || r->nprobes >= 1);
			}
			usdt_reg_free(r);
		}
	}
	fprintf(stderr, "messages: %ld runs, %ld accepted\n", runs, accepted);
	CHECK(runs > 1000);
}

static void fuzz_state_text(double seconds)
{
	static const char valid[] =
		"dtprobed-state\t1\nproc\t42\t1000\n"
		"reg\t7\tmyapp\t2049\t1234\t0x5555\t/bin/a\\tb\n"
		"attr\t0\tEvolving/Evolving/Common\n"
		"probe\tquery__start\t2\t2\nnative\t0\tint\nnative\t1\tchar *\n"
		"xlate\t0\tchar *\t1\nxlate\t1\tint\t0\n"
		"site\t0x1000\t0x1000\t0x4000\t0x3000\n"
		"probe\tnoargs\t0\t0\n";
	char m[sizeof(valid) + 64];
	double end = now() + seconds;
	usdt_reg_t *r;
	long runs = 0;

	CHECK(usdt_reg_parse(valid, sizeof(valid) - 1, &r) == 0);
	CHECK(r && r->pid == 42 && strcmp(r->module, "/bin/a\tb") == 0);
	CHECK(r && r->nprobes == 2 && r->probes[0].mapping[0] == 1);
	CHECK(r && strcmp(r->probes[0].dname, "query-start") == 0);
	usdt_reg_free(r);
	while (now() < end) {
		for (int k = 0; k < 100; k++, runs++) {
			size_t len = sizeof(valid) - 1;

			memcpy(m, valid, len);
			for (int i = 0, n = 1 + rand() % 4; i < n; i++)
				m[(size_t)rand() % len] = "\t\n0x9-\\a"[rand() % 8];
			if (rand() % 4 == 0)
				len = (size_t)rand() % (len + 1);
			if (usdt_reg_parse(m, len, &r) == 0)
				usdt_reg_free(r);
		}
	}
	fprintf(stderr, "state texts: %ld runs\n", runs);
}

int main(void)
{
	srand((unsigned)time(NULL));
	check_valid();
	check_sixteen();
	check_sites_and_unregistration();
	check_many_probes();
	fuzz_messages(1.5);
	fuzz_state_text(1.0);
	return failures ? 1 : 0;
}
