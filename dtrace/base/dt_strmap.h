/* SPDX-License-Identifier: MIT */
/*
 * dt_strmap.h: a map from (tag, name) to a pointer (dt_subr.c).
 */
#ifndef DT_STRMAP_H
#define DT_STRMAP_H

#include <stdint.h>

struct dt_pcb;

/*
 * A map from (tag, name) to a pointer, for lookups and duplicate checks
 * that would otherwise walk a list each time (quadratic in a script with
 * 100,000 declarations).  Names are not copied: they must outlive the
 * map.  Its memory comes from pcb's arena when pcb is set (a compile
 * error frees it with the rest), else from malloc (dt_strmap_fini()).
 */
typedef struct dt_strmap {
	struct dt_strmap_ent *ents;
	uint32_t size, n;	/* size: a power of two, 0 before the first put */
	struct dt_pcb *pcb;
} dt_strmap_t;
void *dt_strmap_get(const dt_strmap_t *m, uint32_t tag, const char *name);
/* Map (tag, name) to v, replacing what it mapped to. */
void dt_strmap_put(dt_strmap_t *m, uint32_t tag, const char *name, void *v);
void dt_strmap_fini(dt_strmap_t *m);

#endif /* DT_STRMAP_H */
