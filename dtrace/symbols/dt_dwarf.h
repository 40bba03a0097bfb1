/* SPDX-License-Identifier: MIT */
/*
 * dt_dwarf.h: D types from the DWARF of traced programs (dt_dwarf.c):
 * the parameter and return types of a function, and named types for
 * casts and sizeof.
 */
#ifndef DT_DWARF_H
#define DT_DWARF_H

#include "dt_impl.h"

/* The types of the parameters of function func of the ELF file at path
 * (its DWARF or its separate debug file's), at most max into params (an
 * entry is NULL where the type has no D equivalent), and its return type
 * into *ret when ret is not NULL.  Returns the number of parameters, or -1
 * when the file has no DWARF for func. */
int dt_dwarf_func_types(dtrace_hdl_t *dtp, const char *path,
			const char *func, dt_type_t **params, int max,
			dt_type_t **ret);
/* Define the type name ("struct point", "union u", "enum e", a typedef
 * name) of the file at path in the session's type table from its DWARF.
 * Returns 0, or -1 when the file does not define it. */
int dt_dwarf_load_type(dtrace_hdl_t *dtp, const char *path, const char *name);
/* Typed arguments of a pid probe (entry: the parameters, return: args[1]
 * the return value) from the DWARF of its module, over the provider's
 * untyped ones.  Nothing changes when there is no DWARF. */
void dt_dwarf_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp);
/* Declare the named types (typedefs, struct, union and enum tags) of the
 * $target's executable from its DWARF, so that scripts use them in casts
 * and sizeof.  Returns how many; 0 without a target or DWARF. */
int dt_dwarf_target_types(dtrace_hdl_t *dtp);
/* struct/union/enum tag of module mod of $target ("a.out" for the
 * executable): `struct a.out`point`; NULL when it has no such type. */
dt_type_t *dt_dwarf_module_type(dtrace_hdl_t *dtp, const char *mod,
				dt_typekind_t kind, const char *tag);
/* The source line of link-time address addr of the ELF file at path (its
 * DWARF or its separate debug file's): the line number, and the source
 * file's name into *file (valid until dt_dwarf_fini()).  0 when the file
 * has no line table covering addr. */
int dt_dwarf_line(dtrace_hdl_t *dtp, const char *path, uint64_t addr,
		  const char **file);
/* Close every file opened for the session. */
void dt_dwarf_fini(dtrace_hdl_t *dtp);

#endif /* DT_DWARF_H */
