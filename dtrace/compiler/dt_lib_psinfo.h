/* SPDX-License-Identifier: MIT */
/*
 * dt_lib_psinfo.h: the D library built into dtrace, psinfo.d
 * (dt_lib_psinfo.c), which dt_lib.c reads.
 */
#ifndef DT_LIB_PSINFO_H
#define DT_LIB_PSINFO_H

/* Its file name, its text, and the words (NULL-terminated) of which a
 * program names one to use it. */
extern const char dt_lib_psinfo_name[];
extern const char dt_lib_psinfo_text[];
extern const char *const dt_lib_psinfo_words[];

#endif /* DT_LIB_PSINFO_H */
