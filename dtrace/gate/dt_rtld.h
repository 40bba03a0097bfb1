/* SPDX-License-Identifier: MIT */
/*
 * dt_rtld.h: the instructions that call the dynamic loader's debugger hook,
 * where the exec watch places its uprobe (see dt_rtld.c for why).
 */
#ifndef DT_RTLD_H
#define DT_RTLD_H

#include <stddef.h>
#include <stdint.h>

/* The file (path, at most len bytes) and the file offset of the dynamic
 * loader's debugger hook (_r_debug.r_brk), found from this process's own
 * loader: what processes of this mount namespace use.  0 or -ENOENT. */
int dt_rtld_hook(char *path, size_t len, uint64_t *offset);

/* The file offsets of the direct calls (and jumps) to the hook at file
 * offset hook_off of the loader at path, at most max of them, in sites.
 * Returns how many, or -errno: -ENOENT when there is none, -E2BIG when
 * there are more than max. */
int dt_rtld_hook_sites(const char *path, uint64_t hook_off, uint64_t *sites,
		       int max);

#endif /* DT_RTLD_H */
