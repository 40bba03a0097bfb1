/* SPDX-License-Identifier: MIT */
/*
 * dt_array.h: the one growable array of the engine, the exec gate and
 * dtprobed, which plugins use too: <dtrace/array.h>, under the engine's
 * names.  The engine's dt_array_room() (dt_impl.h) never fails: dtrace
 * ends when memory does.
 */
#ifndef DT_ARRAY_H
#define DT_ARRAY_H

#include <dtrace/array.h>

#define DT_ARRAY_NEED(arr, cap, need)	DTRACE_ARRAY_NEED(arr, cap, need)
#define DT_ARRAY_ROOM(arr, n, cap)	DTRACE_ARRAY_ROOM(arr, n, cap)

#endif /* DT_ARRAY_H */
