/* SPDX-License-Identifier: MIT */
/* A struct variable copied into a variable it declares (x = v), and
 * trace() of a struct and an array variable: their bytes, as DTrace
 * prints memory. */
#pragma D option quiet
struct w { int a; int n; };
struct w v;
int arr[3];
BEGIN { v.n = 3; arr[1] = 7; x = v; printf("%d\n", x.n); trace(arr); exit(0); }
