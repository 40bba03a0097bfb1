/* SPDX-License-Identifier: MIT */
/* A scalar declared again as an associative array. */
self int a;
self int a[int];
