/* SPDX-License-Identifier: MIT */
/*
 * test_program.c: underlying probes (dtrace/runtime/dt_prog_sites.c) as providers ask
 * for them, before anything is attached: one per (file, offset, entry or
 * return), whichever providers, kinds and processes its overlays name, so
 * that a firing runs its program once and the overlay lookup alone picks
 * the process's probe (and its provider's trampoline its arguments).
 */
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_program.h"
#include "unit_check.h"

static int64_t place_kind(dtrace_hdl_t *dtp, dt_provider_t *pv, uint64_t off,
			  pid_t pid, unsigned flags, int kind)
{
	dtrace_uprobe_t up = { .path = "/bin/true", .offset = off, .pid = pid,
			       .kind = kind, .flags = flags };

	return dt_prog_uprobe(dtp, pv, &up);
}

static int64_t place(dtrace_hdl_t *dtp, dt_provider_t *pv, uint64_t off,
		     pid_t pid, unsigned flags)
{
	return place_kind(dtp, pv, off, pid, flags, 0);
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

	/* Other providers and kinds at the site: the same one, up to four
	 * trampolines; a fifth gets one of its own. */
	dt_provider_t pv2, pv3;
	memset(&pv2, 0, sizeof(pv2));
	memset(&pv3, 0, sizeof(pv3));
	CHECK(place(dtp, &pv2, 0x1000, 0, 0) == a);
	CHECK(place_kind(dtp, &pv, 0x1000, 100, 0, 1) == a);
	CHECK(place_kind(dtp, &pv2, 0x1000, 0, 0, 1) == a);
	int64_t own = place(dtp, &pv3, 0x1000, 0, 0);
	CHECK(own > 0 && own != a && own != b && own != r);
	CHECK(place(dtp, &pv3, 0x1000, 500, 0) == own);

	dt_prog_fini(dtp);
	free(dtp);
	return failures ? 1 : 0;
}
