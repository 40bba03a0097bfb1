/* SPDX-License-Identifier: MIT */
/*
 * usdt_reg_impl.h: the parts of usdt_reg.c that only dtprobed uses (the
 * plugin reads through usdt_reg.h): parse one state text and write one.
 */
#ifndef USDT_REG_IMPL_H
#define USDT_REG_IMPL_H

#include <stdbool.h>
#include <stdio.h>
#include "usdt_reg.h"

/* Parse a state text (total: any inconsistency gives -EINVAL). */
int usdt_reg_parse(const char *text, size_t len, usdt_reg_t **out);
/* Write the registrations of one process (all of list share its pid). */
void usdt_reg_write(FILE *f, const usdt_reg_t *list);

#endif /* USDT_REG_IMPL_H */
