/* SPDX-License-Identifier: MIT */
/*
 * dt_consume_buf.c: the policies of the output buffer (-x bufpolicy), on
 * the consumer's side.  Every CPU writes to one ring buffer, which the
 * consumer reads as it goes (dt_consume.c); the policies are DTrace's as
 * its guide describes them, for that one buffer:
 *
 *   switch	a record that finds the buffer full is dropped and counted.
 *   fill	the records take the buffer's room once (the BPF side counts
 *		it down in DT_STATE_FILL_ROOM, dt_cg.c); the first that finds
 *		too little fills the buffer: it and all after it are not
 *		traced, and the consumer ends tracing.  The room END's
 *		records need is kept from the start, so END's output is
 *		never lost; when it exceeds the buffer, tracing does not
 *		start ("END enablings exceed size of principal buffer").
 *   ring	the consumer keeps the most recent records, bufsize bytes of
 *		them (each counted with the buffer's 8-byte header), and
 *		prints them, oldest first, when tracing has
 *		ended (END's included).  What must act at once does, as a
 *		record comes: exit() ends tracing, and aggregation samples
 *		that the consumer aggregates are aggregated (aggregations
 *		have their own buffer in DTrace).
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "dt_consume_impl.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

/* A record the ring policy keeps. */
struct dt_ringrec {
	struct dt_ringrec *next;
	size_t size;
	uint8_t data[];
};

/* The room END's records need: each clause enabled on dtrace:::END that
 * writes a record, once. */
static uint64_t end_room(dtrace_hdl_t *dtp)
{
	const dtrace_probe_t *end = dt_probe_by_id(dtp, DT_PRID_END);
	dt_clauseset_t set = { 0 };
	uint64_t room = 0;

	if (end == NULL)
		return 0;
	dt_pd_clauses_of(dtp, end, &set);
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(&set, c) && dtp->clauses[c] != NULL &&
		    dtp->clauses[c]->record)
			room += dt_rec_ring_room(dtp->clauses[c]->recsize);
	dt_cs_free(&set);
	return room;
}

int dt_bufpol_start(dtrace_hdl_t *dtp)
{
	uint32_t k = DT_STATE_FILL_ROOM;
	int64_t room;

	if (dtp->opt.bufpolicy != DT_BUFPOLICY_FILL)
		return 0;

	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	uint64_t keep = end_room(dtp);

	if (keep > dtp->opt.bufsize) {
		dt_set_error(dtp, "could not enable tracing: END enablings "
			     "exceed size of principal buffer");
		return -1;
	}
	room = (int64_t)(dtp->opt.bufsize - keep);
	if (st == NULL || bpf_map_update_elem(st->fd, &k, &room, BPF_ANY)) {
		dt_set_error(dtp, "could not enable tracing: cannot size the "
			     "fill buffer");
		return -1;
	}
	return 0;
}

/* Asked at every turn of the consumer's loop: nothing to do but under
 * fill. */
bool dt_bufpol_filled(dtrace_hdl_t *dtp)
{
	uint32_t k = DT_STATE_FILL_ROOM;
	int64_t room = 0;

	if (dtp->opt.bufpolicy != DT_BUFPOLICY_FILL)
		return false;

	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");

	if (st == NULL || bpf_map_lookup_elem(st->fd, &k, &room) != 0)
		return false;
	return room < 0;
}

/* Ring: what a record does at once (exit(), the consumer's aggregation
 * samples); dt_consume_effect() leaves them out when the record is
 * printed at the end. */
static void ring_act_now(dtrace_hdl_t *dtp, const uint8_t *buf, size_t size)
{
	const uint8_t *data = buf + sizeof(dt_rechdr_t);
	size_t dsize = size - sizeof(dt_rechdr_t);
	const dt_compiled_clause_t *cl;
	dt_rechdr_t hdr;
	int err = 0;

	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.spec != 0 || hdr.clause >= (uint32_t)dtp->nclauses ||
	    (cl = dtp->clauses[hdr.clause]) == NULL || dsize < cl->recsize)
		return;		/* printed (or reported) at the end */
	dt_consumer_get(dtp)->rec_cpu = hdr.cpu;
	for (int i = 0; i < cl->nacts; i++) {
		const dt_actdesc_t *act = &cl->acts[i];

		if ((act->kind == DT_ACT_EXIT ||
		     act->kind == DT_ACT_AGGSAMPLE) &&
		    dt_consume_action_ok(cl, i, data, dsize, &err))
			dt_consume_effect(dtp, act, data);
	}
}

bool dt_bufpol_keep(dtrace_hdl_t *dtp, const void *buf, size_t size)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	struct dt_ringrec *r;

	if (dtp->opt.bufpolicy != DT_BUFPOLICY_RING || c->ring_replay)
		return false;
	if (size >= sizeof(dt_rechdr_t))
		ring_act_now(dtp, buf, size);
	r = dt_zalloc(sizeof(*r) + size);
	r->size = size;
	memcpy(r->data, buf, size);
	if (c->ring_tail == NULL)
		c->ring_tail = &c->ring_head;
	*c->ring_tail = r;
	c->ring_tail = &r->next;
	c->ring_bytes += size + 8;	/* as the BPF side counts it */
	/* the oldest make room; the newest record is always kept */
	while (c->ring_bytes > dtp->opt.bufsize && c->ring_head != r) {
		struct dt_ringrec *old = c->ring_head;

		c->ring_head = old->next;
		c->ring_bytes -= old->size + 8;
		free(old);
	}
	return true;
}

void dt_bufpol_replay(dtrace_hdl_t *dtp,
		      int (*consume)(void *ctx, void *data, size_t size))
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	struct dt_ringrec *r = c->ring_head, *next;

	c->ring_replay = true;
	c->ring_head = NULL;
	c->ring_tail = NULL;
	c->ring_bytes = 0;
	for (; r != NULL; r = next) {
		next = r->next;
		consume(dtp, r->data, r->size);
		free(r);
	}
}

void dt_bufpol_fini(struct dt_consumer *c)
{
	struct dt_ringrec *r = c->ring_head, *next;

	for (; r != NULL; r = next) {
		next = r->next;
		free(r);
	}
	c->ring_head = NULL;
}
