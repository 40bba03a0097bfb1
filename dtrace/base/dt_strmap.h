/* SPDX-License-Identifier: MIT */
/*
 * dt_strmap.h: a map from (tag, name) to a pointer (dt_subr.c), on the
 * hash table of dt_hash.h.
 */
#ifndef DT_STRMAP_H
#define DT_STRMAP_H

#include <stdint.h>

#include "dt_hash.h"

struct dt_pcb;

/*
 * A map from (tag, name) to a pointer, for lookups and duplicate checks
 * that would otherwise walk a list each time (quadratic in a script with
 * 100,000 declarations).  Names are not copied: they must outlive the
 * map.  Its memory comes from pcb's arena when pcb is set (a compile
 * error frees it with the rest), else from malloc (dt_strmap_fini()).
 * All zero, or with only pcb set, it is empty.
 */
typedef struct dt_strmap {
	dt_htab_t tab;		/* of struct dt_strmap_ent */
	struct dt_pcb *pcb;
} dt_strmap_t;
void *dt_strmap_get(const dt_strmap_t *m, uint32_t tag, const char *name);
/* Map (tag, name) to v, replacing what it mapped to. */
void dt_strmap_put(dt_strmap_t *m, uint32_t tag, const char *name, void *v);
void dt_strmap_fini(dt_strmap_t *m);

#endif /* DT_STRMAP_H */
