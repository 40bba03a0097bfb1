/* SPDX-License-Identifier: MIT */
/*
 * dt_hash.h: the one hash function and the one hash table of the engine,
 * the exec gate and dtprobed, which plugins use too: <dtrace/hash.h>,
 * under the engine's names.  The engine's tables draw their memory from
 * its allocator, which ends dtrace when memory runs out
 * (dt_htab_nofail(), dt_impl.h), or from an arena.
 */
#ifndef DT_HASH_H
#define DT_HASH_H

#include <dtrace/hash.h>

#define DT_HASH_INIT	DTRACE_HASH_INIT
#define dt_hash_bytes	dtrace_hash_bytes
#define dt_hash_str	dtrace_hash_str
#define dt_hash_u64	dtrace_hash_u64

typedef dtrace_htab_eq_f dt_htab_eq_f;
typedef dtrace_htab_t dt_htab_t;

#define DT_HTAB_INIT(type, eqf)	DTRACE_HTAB_INIT(type, eqf)
#define dt_htab_init		dtrace_htab_init
#define dt_htab_find		dtrace_htab_find
#define dt_htab_insert		dtrace_htab_insert
#define dt_htab_remove		dtrace_htab_remove
#define dt_htab_reserve		dtrace_htab_reserve
#define dt_htab_next		dtrace_htab_next
#define dt_htab_count		dtrace_htab_count
#define dt_htab_clear		dtrace_htab_clear
#define dt_htab_fini		dtrace_htab_fini

#endif /* DT_HASH_H */
