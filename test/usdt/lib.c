/* SPDX-License-Identifier: MIT */
/* lib.c: a shared library with myapp probes (dlopen test). */
#include "prov.h"

__attribute__((constructor)) static void lib_fire(void)
{
	MYAPP_TICK(42);
}

int lib_func(int x)
{
	MYAPP_QUERY_START(x, "lib");
	return x + 1;
}
