/* SPDX-License-Identifier: MIT */
/*
 * dt_debuginfo.c: where libdwfl finds a file's separate debug information.
 *
 * Where the symbols' reader finds it (dt_elf_debug_open(): by build-id
 * under the debug directory, then by .gnu_debuglink, a candidate carrying
 * the file's build-id), and nowhere else.  dwfl_standard_find_debuginfo()
 * then asks debuginfod: it loads the debuginfod client and libcurl (19 ms
 * of each `dtrace -p` of a program without local debug information, a third
 * of the run), and where DEBUGINFOD_URLS is set it would download, at
 * start, the debug information of the program and of its libraries.
 */
#include <stdint.h>
#include <sys/stat.h>

#include "dt_debuginfo.h"
#include "dt_elf.h"

int dt_debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname,
		      Dwarf_Addr base, const char *file_name,
		      const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	const unsigned char *id = NULL;
	dt_elf_debug_key_t key = { .path = file_name,
				   .debuglink = debuglink_file };
	GElf_Addr id_vaddr;
	struct stat st;
	int idlen;

	(void)userdata, (void)modname, (void)base, (void)debuglink_crc;
	if (file_name == NULL || stat(file_name, &st) != 0)
		return -1;
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	idlen = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (idlen > 0) {
		key.build_id = id;
		key.build_id_len = (size_t)idlen;
	}
	return dt_elf_debug_open(dt_elf_debug_dir(), &key, debuginfo_file_name);
}
