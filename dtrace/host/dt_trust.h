/* SPDX-License-Identifier: MIT */
/*
 * dt_trust.h: whether a file may be loaded into dtrace's process, judged
 * by who may change it.  A plugin runs with all of dtrace's privilege from
 * its first constructor on, so it must be a file that only root, or the
 * user running dtrace, could have put there (see dt_trust.c).
 */
#ifndef DT_TRUST_H
#define DT_TRUST_H

#include <stdbool.h>
#include <stddef.h>

/* Whether dtrace runs with more privilege than the user who started it:
 * a setuid or setgid executable, or one with file capabilities (the
 * kernel's AT_SECURE).  Then only root's files are trusted, and the
 * places a user names (DTRACE_PLUGIN_PATH, -x plugindir) are not
 * searched. */
bool dt_trust_secure_exec(void);

/* Whether the directory dir, and every directory above it, may be changed
 * only by trusted users; else false with why[] naming the directory, its
 * owner and what is wrong.  A dir that does not exist is neither: false
 * with why[0] == '\0'. */
bool dt_trust_dir(const char *dir, char *why, size_t len);

/* Whether the file path, as it resolves through symbolic links, is a
 * regular file that only trusted users may change, in a directory that
 * only they may change; real[] is then its resolved path, which is what
 * to load (nobody else can make it another file).  Else false with why[]
 * naming the file or the directory, its owner and what is wrong. */
bool dt_trust_file(const char *path, char *real, size_t rlen, char *why,
		   size_t len);

#endif
