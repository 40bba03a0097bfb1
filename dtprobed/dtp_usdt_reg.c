/* SPDX-License-Identifier: MIT */
/*
 * dtp_usdt_reg.c: the state-file reader and writer of the usdt plugin,
 * compiled into dtprobed as well, so both sides share one implementation
 * of the format (the Makefile builds dtprobed from the files of dtprobed/ only).
 */
#include "../plugins/usdt/usdt_reg.c"
