/* SPDX-License-Identifier: MIT */
/*
 * dt_usdt_gen.h: dtrace -h and dtrace -G, the USDT build tooling.
 *
 * Both take the provider declarations of a compiled .d file (prog->providers)
 * and write one output file, atomically (a temporary file renamed into
 * place), so that a failure never leaves a partial output behind.  Inputs are
 * never written.  Errors go through dt_set_error(); both return 0 or -1.
 */
#ifndef DT_USDT_GEN_H
#define DT_USDT_GEN_H

#include "dt_impl.h"

/* dtrace -h: the C/C++ header with PROV_PROBE(...) and PROV_PROBE_ENABLED()
 * for every probe of every provider of prog (dt_header.c). */
int dt_header_generate(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
		       const char *out_path);

/* dtrace -G: the object carrying the provider descriptions and the code
 * that registers them with dtprobed, after checking objs[] (ELF relocatable
 * objects whose probe notes must all be declared); dt_link.c. */
int dt_link_generate(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
		     const char *out_path, char *const objs[], int nobjs);

/* The default output of -h / -G when -o is absent: the script's path with
 * its ".d" suffix (if any) replaced by ext (".h" or ".o").  Malloc'ed. */
char *dt_usdt_default_output(const char *script, const char *ext);

/* Shared by both: DTrace's name of a declared probe ("query__start" ->
 * "query-start") and the macro form of a name ("QUERY_START").  Malloc'ed. */
char *dt_usdt_probe_dname(const char *declared);
char *dt_usdt_macro_name(const char *dname);

/* Write size bytes to path atomically (temp file in the same directory,
 * then rename).  0 or -1 with dt_set_error(). */
int dt_usdt_write_file(dtrace_hdl_t *dtp, const char *path, const char *buf,
		       size_t size);

#endif /* DT_USDT_GEN_H */
