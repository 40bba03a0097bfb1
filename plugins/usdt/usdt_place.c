/* SPDX-License-Identifier: MIT */
/*
 * usdt_place.c: which instruction of a site the probe goes on.
 *
 * A site made by <dtrace/usdt.h> on x86-64 is a 1-byte nop, which its note
 * names, followed by a 5-byte nop (0f 1f 44 00 00).  A uprobe on the
 * 1-byte nop traps into the kernel at every firing (int3, then the nop is
 * emulated); a kernel with the optimized uprobe rewrites a uprobe on a
 * 5-byte nop, at its first hit, into a call to a trampoline that enters
 * the kernel through a system call, about four times cheaper.  So the
 * probe goes on the 5-byte nop when the site has one and the kernel can
 * optimize it; elsewhere, on the nop the note names (the classic
 * placement, every other tool's).  Sites of <sys/sdt.h> and of older
 * headers have no 5-byte nop after theirs and keep the classic placement.
 *
 * What the kernel makes of a probe on a 5-byte nop is asked of the engine
 * (host->sites->uprobe_nop5), once per session and only when a site has one:
 * the engine asks the kernel, and tries whether a child forked after the
 * optimization survives it (the first kernels with the optimization
 * crash such a child: then the classic placement is kept).
 *
 * A probe placed one byte past the note sees the same registers (the
 * nops change none), but the kernel reports the address it trapped at:
 * arguments read relative to %rip are corrected by that byte when their
 * specification is made (usdt_rtspec_fill), and the trampoline takes it
 * off mstate.regs_ip (USDT_SPEC_SHIFTED), so that dtprobed's map, keyed
 * on the note's address, still finds the site.
 *
 * -x usdt.sitemode=classic forces the classic placement (for comparison,
 * and as a way out); =nop5 places on the 5-byte nop whatever the kernel
 * does with it (for measurements: a kernel without the optimization
 * single-steps it; one whose optimization forked children do not survive
 * is named in a warning).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "usdt_impl.h"

static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

bool usdt_site_has_nop5(const unsigned char *code, size_t len)
{
	return len >= 1 + sizeof(nop5) && code[0] == 0x90 &&
	       memcmp(code + 1, nop5, sizeof(nop5)) == 0;
}

int usdt_sitemode_parse(const char *value, usdt_sitemode_t *mode)
{
	static const struct {
		const char *name;
		usdt_sitemode_t mode;
	} modes[] = {
		{ "auto", USDT_SITE_AUTO },
		{ "classic", USDT_SITE_CLASSIC },
		{ "nop5", USDT_SITE_NOP5 },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (value != NULL && strcmp(value, modes[i].name) == 0) {
			*mode = modes[i].mode;
			return 0;
		}
	return -EINVAL;
}

void usdt_placement_decide(const dtrace_host_t *h, dtrace_provider_t *pv,
			   usdt_placement_t *pl)
{
	if (pl->known || pl->mode == USDT_SITE_CLASSIC)
		return;
	pl->kernel = h->sites->uprobe_nop5(pv);
	pl->known = true;
	pl->on_nop5 = pl->mode == USDT_SITE_NOP5 ||
		      pl->kernel == DTRACE_NOP5_OPTIMIZED;
	if (pl->mode == USDT_SITE_NOP5 && pl->kernel == DTRACE_NOP5_FORK_UNSAFE)
		h->report->warn(
			pv,
			"usdt: -x usdt.sitemode=nop5: this kernel's "
			"optimized uprobes crash a child that a traced process "
			"forks: trace only programs that do not fork");
}

uint8_t usdt_site_shift(const usdt_placement_t *pl, const usdt_note_t *note)
{
	return note->nop5 && pl->on_nop5 ? 1 : 0;
}

void usdt_placement_debug(const dtrace_host_t *h, dtrace_provider_t *pv,
			  const usdt_placement_t *pl, const dtrace_probe_t *prp,
			  const usdt_note_t *note, const char *path)
{
	h->report->debug(
		pv, "probe %s:%s:%s:%s: the site at offset 0x%llx of %s: on %s",
		h->probes->name(prp, DTRACE_FIELD_PRV),
		h->probes->name(prp, DTRACE_FIELD_MOD),
		h->probes->name(prp, DTRACE_FIELD_FUN),
		h->probes->name(prp, DTRACE_FIELD_PRB),
		(unsigned long long)note->offset, path,
		usdt_placement_name(pl, note));
}

const char *usdt_placement_name(const usdt_placement_t *pl,
				const usdt_note_t *note)
{
	if (!note->nop5)
		return "the nop the note names (classic: the site has no "
		       "5-byte nop)";
	if (pl->mode == USDT_SITE_CLASSIC)
		return "the nop the note names (usdt.sitemode=classic)";
	if (usdt_site_shift(pl, note) != 0)
		return pl->kernel == DTRACE_NOP5_OPTIMIZED ?
		       "the 5-byte nop (optimized)" :
		       pl->kernel == DTRACE_NOP5_FORK_UNSAFE ?
		       "the 5-byte nop (usdt.sitemode=nop5; optimized, but "
		       "a forked child would crash)" :
		       "the 5-byte nop (usdt.sitemode=nop5; the kernel "
		       "single-steps it)";
	return pl->kernel == DTRACE_NOP5_FORK_UNSAFE ?
	       "the nop the note names (classic: the kernel's optimized "
	       "uprobes crash a forked child)" :
	       "the nop the note names (classic: the kernel does not "
	       "optimize uprobes)";
}
