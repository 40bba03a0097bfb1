/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Clauses of one probe run in program order and see each other's work. */
BEGIN { n = 1; printf("first %d\n", n); }
BEGIN { n = n * 10; printf("second %d\n", n); }
BEGIN { n = n + 2; printf("third %d\n", n); exit(0); }
