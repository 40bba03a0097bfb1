/* SPDX-License-Identifier: MIT */
/*
 * dt_debuginfo.h: where libdwfl finds a file's separate debug information,
 * for the C types of probe arguments (dt_dwarf.c) and the unwinder
 * (dt_unwind.c): Dwfl_Callbacks.find_debuginfo.
 */
#ifndef DT_DEBUGINFO_H
#define DT_DEBUGINFO_H

#include <elfutils/libdwfl.h>

int dt_debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname,
		      Dwarf_Addr base, const char *file_name,
		      const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

#endif /* DT_DEBUGINFO_H */
