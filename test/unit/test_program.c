/* SPDX-License-Identifier: MIT */
/*
 * test_program.c: underlying probes (dtrace/dt_program.c) as providers ask
 * for them, before anything is attached: one per (file, offset, entry or
 * return) and provider kind, whichever processes its overlays name, so that
 * a firing runs its program once and the overlay lookup alone picks the
 * process's probe.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_program.h"
#include "unit_check.h"

static int64_t place(dtrace_hdl_t *dtp, dt_provider_t *pv, uint64_t off,
		     pid_t pid, unsigned flags)
{
	dtrace_uprobe_t up = { .path = "/bin/true", .offset = off, .pid = pid,
			       .kind = 0, .flags = flags };

	return dt_prog_uprobe(dtp, pv, &up);
}

int main(void)
{
	dtrace_hdl_t *dtp = calloc(1, sizeof(*dtp));
	dt_provider_t pv;

	memset(&pv, 0, sizeof(pv));
	int64_t a = place(dtp, &pv, 0x1000, 100, 0);
	CHECK(a > 0);
	/* Another process, every process: the same underlying probe. */
	CHECK(place(dtp, &pv, 0x1000, 200, 0) == a);
	CHECK(place(dtp, &pv, 0x1000, 0, 0) == a);
	CHECK(place(dtp, &pv, 0x1000, 100, 0) == a);
	/* Another offset, or the return: another one. */
	int64_t b = place(dtp, &pv, 0x1008, 100, 0);
	int64_t r = place(dtp, &pv, 0x1000, 100, DTRACE_UPROBE_RETURN);
	CHECK(b > 0 && b != a);
	CHECK(r > 0 && r != a && r != b);
	CHECK(place(dtp, &pv, 0x1000, 300, DTRACE_UPROBE_RETURN) == r);

	dt_prog_fini(dtp);
	free(dtp);
	return failures ? 1 : 0;
}
