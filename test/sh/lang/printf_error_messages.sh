#!/bin/bash
# SPDX-License-Identifier: MIT
# A bad printf() format is DTrace's syntax error (D_SYNTAX), worded as
# DTrace words it, naming no function; its arguments against the format
# have the D_PRINTF_* tags, naming the function.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/check_lib.sh"

F="dtrace: failed to compile script x.d:"
want "undefined" 'BEGIN { printf("%Z", 1); }' \
	"$F [D_SYNTAX] line 1: format conversion #1 is undefined: %Z"
want "positional" 'BEGIN { printf("%d %1$d", 1); }' \
	"$F [D_SYNTAX] line 1: format conversion #2 uses unsupported positional format (%n\$)"
want "no name" $'BEGIN\n{\n\tprintf("abc %");\n}\n' \
	"$F [D_SYNTAX] line 3: format conversion #1 name expected before end of format string"
want "printa" 'BEGIN { @a = count(); printa("%y %@d", @a); }' \
	"$F [D_SYNTAX] line 1: format conversion #1 is undefined: %y"
want "no value" 'BEGIN { printf("%s"); }' \
	"$F [D_PRINTF_ARG_PROTO] line 1: printf( ) prototype mismatch: conversion #1 (%s) is missing a corresponding value argument"
exit $status
