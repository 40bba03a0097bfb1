/* SPDX-License-Identifier: MIT */
/*
 * dt_output.h: the trace output stream (see dt_output.c).
 */
#ifndef DT_OUTPUT_H
#define DT_OUTPUT_H

#include <stdio.h>

#include "dt_impl.h"

/* A stream writing to path (created or truncated), or to standard output
 * when path is NULL (closing it leaves standard output open).  A failed
 * write's errno is kept in dtp->out_errno.  NULL with errno set when the
 * file cannot be opened. */
FILE *dt_output_open(dtrace_hdl_t *dtp, const char *path);

#endif /* DT_OUTPUT_H */
