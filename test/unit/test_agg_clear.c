/* SPDX-License-Identifier: MIT */
/*
 * test_agg_clear.c: clear() of an aggregation kept in a hash of CPU slots
 * (dt_cg_agg.c), against the real kernel: a firing that looked an entry
 * up just before the clear still counts in the entry its key has after
 * it, never in a dead element nor in another key's.  count() is cleared
 * by subtraction (dt_agg_clear.c): the map is not written, the firing's
 * count is A's in the map and the one the next snapshot shows; max() is
 * zeroed in place, and the firing's count survives in A's entry.
 *
 * The firing is a sleepable program (BPF_PROG_TYPE_SYSCALL, run with
 * BPF_PROG_TEST_RUN) that does what a firing's update does, with a pause
 * between the lookup and the increment: it looks key A up, reads a byte
 * of a page registered with userfaultfd (bpf_copy_from_user, which waits
 * until the test resolves the fault), adds 1 to its CPU slot through the
 * pointer it looked up, then looks A up again and returns the count A
 * has.  While it waits, the test runs dt_agg_clear(), then creates key B
 * as a firing would.  In place, A counts 1 and B 0; when clear() wrote A
 * with bpf_map_update_elem(), the kernel linked a new element for A and
 * freed the one the firing held: A counted 0, and B, made from the freed
 * element, could count the 1.
 *
 * Needs root; exits 77 (skip) when BPF or userfaultfd is not usable.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_bpf.h"
#include "dt_agg_impl.h"
#include "unit_check.h"

#define AGG_ID	0	/* its index in the consumer's table */
#define KEY_A	7
#define KEY_B	8

/* What the firing program reads from its context. */
typedef struct fire_ctx {
	uint64_t id, key;	/* the map key of A */
	uint64_t pause;		/* the user address it waits on */
} fire_ctx_t;

/* Emit: r0 = lookup(map, &ctx->key pair), or return -1. */
static void emit_lookup(dt_as_t *as, int map_fd, int fail)
{
	dt_as_emit(as, DT_LD_IMM64_LO(DT_R1, BPF_PSEUDO_MAP_FD, map_fd));
	dt_as_emit(as, DT_LD_IMM64_HI(0));
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -16));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, fail);
}

static void emit_firing(dt_as_t *as, int map_fd)
{
	int fail = dt_as_label(as);

	dt_as_emit(as, DT_MOV64_REG(DT_R6, DT_R1));
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R1, DT_R6, 0));
	dt_as_emit(as, DT_STORE(BPF_DW, DT_FP, -16, DT_R1));
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R1, DT_R6, 8));
	dt_as_emit(as, DT_STORE(BPF_DW, DT_FP, -8, DT_R1));
	emit_lookup(as, map_fd, fail);
	dt_as_emit(as, DT_MOV64_REG(DT_R7, DT_R0));
	/* the pause: copy one byte of the registered page */
	dt_as_emit(as, DT_MOV64_REG(DT_R1, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R1, -24));
	dt_as_emit(as, DT_MOV64_IMM(DT_R2, 1));
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R3, DT_R6, 16));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_copy_from_user));
	/* the increment, in CPU 0's slot of the element looked up */
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R1, DT_R7, 0));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	dt_as_emit(as, DT_STORE(BPF_DW, DT_R7, 0, DT_R1));
	emit_lookup(as, map_fd, fail);
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R0, DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
	dt_as_place(as, fail);
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, -1));
	dt_as_emit(as, DT_EXIT());
}

static int load_firing(int map_fd)
{
	dt_as_t as;
	int fd = -1;

	dt_as_init(&as);
	emit_firing(&as, map_fd);
	if (dt_as_finish(&as) == 0) {
		LIBBPF_OPTS(bpf_prog_load_opts, opts,
			    .prog_flags = BPF_F_SLEEPABLE);
		fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "test_firing",
				   DT_BPF_LICENSE, as.insns, as.ninsns, &opts);
	}
	dt_as_fini(&as);
	return fd;
}

typedef struct firing {
	int prog_fd;
	fire_ctx_t ctx;
	int err;
	uint32_t count;		/* A's count after the increment */
} firing_t;

static void *fire(void *arg)
{
	firing_t *f = arg;
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &f->ctx,
		    .ctx_size_in = sizeof(f->ctx));

	f->err = bpf_prog_test_run_opts(f->prog_fd, &run);
	f->count = run.retval;
	return NULL;
}

/* A page whose first read waits until the test resolves it; uffd < 0 if
 * userfaultfd is not usable. */
static void *pause_page(int *uffd)
{
	long psize = sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, (size_t)psize, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_api api = { .api = UFFD_API };

	*uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (page == MAP_FAILED || *uffd < 0 ||
	    ioctl(*uffd, UFFDIO_API, &api) != 0) {
		if (*uffd >= 0)
			close(*uffd);
		*uffd = -1;
		return page == MAP_FAILED ? NULL : page;
	}
	struct uffdio_register reg = {
		.range = { (uint64_t)(uintptr_t)page, (uint64_t)psize },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	if (ioctl(*uffd, UFFDIO_REGISTER, &reg) != 0) {
		close(*uffd);
		*uffd = -1;
	}
	return page;
}

/* Wait for the firing to stop on the page; false after 10 s. */
static bool wait_fault(int uffd)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	return poll(&p, 1, 10000) == 1 &&
	       read(uffd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
}

static void resolve_fault(int uffd, void *page)
{
	struct uffdio_zeropage z = {
		.range = { (uint64_t)(uintptr_t)page,
			   (uint64_t)sysconf(_SC_PAGESIZE) },
	};

	CHECK(ioctl(uffd, UFFDIO_ZEROPAGE, &z) == 0);
}

static uint64_t count_of(const dtrace_map_t *m, uint64_t key, int ncpus)
{
	uint64_t mk[2] = { AGG_ID, key };
	uint8_t *vals = calloc((size_t)ncpus, DT_AGG_SLOT);
	uint64_t sum = 0;

	CHECK(bpf_map_lookup_elem(m->fd, mk, vals) == 0);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t v;
		memcpy(&v, vals + (size_t)cpu * DT_AGG_SLOT, sizeof(v));
		sum += v;
	}
	free(vals);
	return sum;
}

/* Store count n for key in CPU 0's slot, as a firing creating it does. */
static void put_count(const dtrace_map_t *m, uint64_t key, uint64_t n,
		      int flags)
{
	uint64_t mk[2] = { AGG_ID, key };
	uint8_t *vals = calloc(1, m->vsize);

	memcpy(vals, &n, sizeof(n));
	CHECK(bpf_map_update_elem(m->fd, mk, vals, (uint64_t)flags) == 0);
	free(vals);
}

static dt_recdesc_t intkey = { .kind = DT_RK_INT, .offset = 0, .size = 8 };

/* A's value in the consumer's snapshot, or -1 without an entry. */
static int64_t snapshot_of(dtrace_hdl_t *h, uint64_t key)
{
	dt_aggstate_t *as = dt_agg_state(h, AGG_ID);

	if (as == NULL || dt_agg_snapshot_one(h, as) != 0)
		return -1;
	for (size_t i = 0; i < as->nents; i++)
		if (memcmp(as->ents[i].key, &key, sizeof(key)) == 0)
			return as->ents[i].val[0];
	return -1;
}

static int test_clear_during_firing(int func)
{
	int ncpus = libbpf_num_possible_cpus(), uffd;
	dtrace_hdl_t h;
	bool subtracts = func == DT_AGG_COUNT;
	dt_aggdesc_t d = { .id = AGG_ID, .name = "a", .func = func,
			   .nkeys = 1, .keys = &intkey, .keysize = 8,
			   .valsize = 8, .mkeysize = 8, .strsize = 256 };
	dt_aggdesc_t *descs[] = { &d };
	void *page = pause_page(&uffd);

	if (page == NULL || uffd < 0) {
		fprintf(stderr, "test_agg_clear: userfaultfd: %s, skipped\n",
			strerror(errno));
		return 77;
	}
	memset(&h, 0, sizeof(h));
	dt_bpf_init(&h);
	d.map = dt_bpf_map(&h, "agg_a", BPF_MAP_TYPE_HASH,
			   DT_AGG_KEYPREFIX + 8,
			   (uint32_t)ncpus * DT_AGG_SLOT, 16);
	CHECK(d.map != NULL && dt_bpf_maps_create(&h) == 0);
	dt_agg_setup(&h, descs, 1);
	put_count(d.map, KEY_A, 5, BPF_NOEXIST);

	firing_t f = { .prog_fd = load_firing(d.map->fd),
		       .ctx = { AGG_ID, KEY_A, (uint64_t)(uintptr_t)page } };
	CHECK(f.prog_fd >= 0);
	pthread_t t;
	if (f.prog_fd >= 0 && pthread_create(&t, NULL, fire, &f) == 0) {
		bool paused = wait_fault(uffd);
		CHECK(paused);
		if (paused) {
			CHECK(dt_agg_clear(&h, AGG_ID) == 0);
			put_count(d.map, KEY_B, 0, BPF_NOEXIST);
		}
		resolve_fault(uffd, page);
		pthread_join(t, NULL);
		CHECK(f.err == 0);
		/* the count made across the clear is A's: in the map, on
		 * the 5 before it when the clear wrote nothing */
		unsigned want = subtracts ? 6 : 1;
		CHECK(f.count == want);
		CHECK(count_of(d.map, KEY_A, ncpus) == want);
		/* and B, which never fired, has none */
		CHECK(count_of(d.map, KEY_B, ncpus) == 0);
		if (f.count != want)
			fprintf(stderr, "A counts %u after the clear\n",
				f.count);
		/* what the consumer shows: the firing since the clear */
		if (subtracts) {
			CHECK(snapshot_of(&h, KEY_A) == 1);
			CHECK(snapshot_of(&h, KEY_B) == 0);
		}
	}
	if (f.prog_fd >= 0)
		close(f.prog_fd);
	close(uffd);
	munmap(page, (size_t)sysconf(_SC_PAGESIZE));
	dt_consume_fini(&h);
	dt_bpf_fini(&h);
	return 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		fprintf(stderr, "test_agg_clear: needs root, skipped\n");
		return 77;
	}
	if (test_clear_during_firing(DT_AGG_COUNT) == 77 ||
	    test_clear_during_firing(DT_AGG_MAX) == 77)
		return 77;
	if (failures)
		fprintf(stderr, "test_agg_clear: %d failures\n", failures);
	else
		printf("test_agg_clear: ok\n");
	return failures ? 1 : 0;
}
