/* SPDX-License-Identifier: MIT */
/*
 * dt_uretdepth.h: the return probe firings the kernel omits, counted
 * (dt_uretdepth.c).
 */
#ifndef DT_URETDEPTH_H
#define DT_URETDEPTH_H

#include "dt_impl.h"
#include "dt_bpf.h"

/* Beside the return probes that ret attached (ret->errs 0, or all when
 * NULL; the links go to ret->links), the counter of the firings the kernel
 * omits (cpuinfo.uret_drops).  Nothing for an entry request.  What fails
 * is warned about once a session; dtp's error is left as it was. */
void dt_uretdepth_attach(dtrace_hdl_t *dtp, const dt_attach_req_t *ret);

#endif /* DT_URETDEPTH_H */
