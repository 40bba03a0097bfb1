/*
 * dt_rtld.h: the instructions that call the dynamic loader's debugger hook,
 * where the exec watch places its uprobe (see dt_rtld.c for why).
 */
#ifndef DT_RTLD_H
#define DT_RTLD_H

#include <stdint.h>

/* The file offsets of the direct calls (and jumps) to the hook at file
 * offset hook_off of the loader at path, at most max of them, in sites.
 * Returns how many, or -errno: -ENOENT when there is none, -E2BIG when
 * there are more than max. */
int dt_rtld_hook_sites(const char *path, uint64_t hook_off, uint64_t *sites,
		       int max);

#endif /* DT_RTLD_H */
