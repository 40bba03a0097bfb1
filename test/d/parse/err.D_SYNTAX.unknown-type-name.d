/* SPDX-License-Identifier: MIT */
/* A name that is no type where a type must be: a syntax error, as in
 * DTrace, whose lexer makes it an identifier. */
struct foo {
	nosuch_t x;
};
