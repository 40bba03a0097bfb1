/* SPDX-License-Identifier: MIT */
/*
 * dt_trust.c: whether a plugin file may be loaded, by who may change it.
 *
 * dlopen() runs a plugin's constructors before dtrace can ask it anything,
 * with all of dtrace's privilege (root, or the capabilities of a dtrace
 * given file capabilities for tracing without root).  So, as sudo does
 * for its plugins and ssh for its keys, a file is loaded only when nobody
 * but a trusted user could have put it there or changed it:
 *
 * - trusted users are root, the real user running dtrace, and the owner
 *   of dtrace's executable, whose code runs already (a tree built as a
 *   user, then run with sudo: build/plugins is that user's, as
 *   build/dtrace is); under secure execution (setuid, setgid or file
 *   capabilities: AT_SECURE) root only, since the real user is the one
 *   the privilege is kept from;
 * - the file, as it resolves through symbolic links, is a regular file
 *   owned by a trusted user and writable by neither its group nor others;
 * - the directory it is in, and the directory it was found in, are owned
 *   by a trusted user and writable by neither group nor others (else
 *   anybody could add a file, or a link to any library, next to it);
 * - every directory above them is owned by a trusted user and writable by
 *   neither group nor others, unless it has the sticky bit (/tmp): there
 *   nobody but an entry's owner, the directory's owner or root renames or
 *   removes the entry, so the trusted directory below stays where it is.
 *
 * A file or directory its group may write is refused (an old Debian's
 * root:staff /usr/local: a group's members are not known to be trusted
 * users), unless the group is its owner's private group, as Debian's
 * OpenSSH judges: the owner's primary group, with no other member listed
 * (a user's files under a umask of 002).
 *
 * The check is made on the resolved path, which is then the path loaded:
 * as nobody else may change any directory of it or the file, what
 * dlopen() opens after the check is the file checked.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_trust.h"

bool dt_trust_secure_exec(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* The owner of the running executable (root when it cannot be read). */
static uid_t exe_owner(void)
{
	static uid_t owner;
	static bool known;
	struct stat st;

	if (!known)
		owner = stat("/proc/self/exe", &st) == 0 ? st.st_uid : 0;
	known = true;
	return owner;
}

static bool owner_trusted(uid_t uid)
{
	return uid == 0 || (!dt_trust_secure_exec() &&
			    (uid == getuid() || uid == exe_owner()));
}

/* "alice (uid 1001)", or "uid 1001" for a uid without a name. */
static void owner_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		snprintf(buf, len, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

/* Who may own what is loaded, as the messages say it: "root", "root or
 * the user running dtrace", "root or alice (uid 1000), the owner of
 * dtrace's executable"... */
static void trusted_owners(char *buf, size_t len)
{
	uid_t exe = exe_owner();
	char name[96];

	if (dt_trust_secure_exec()) {
		snprintf(buf, len, "root (dtrace runs with more privilege than "
			 "its user)");
		return;
	}
	int n = snprintf(buf, len, "root%s", getuid() != 0 ?
			 " or the user running dtrace" : "");
	if (exe != 0 && exe != getuid() && n > 0 && (size_t)n < len) {
		owner_name(exe, name, sizeof(name));
		snprintf(buf + n, len - n, " or %s, the owner of dtrace's "
			 "executable", name);
	}
}

/* Whether the group gid is the private group of the user uid: that user's
 * primary group, with no other member listed.  Its write permission then
 * gives nobody else anything (a umask of 002, as Ubuntu's users have). */
static bool private_group(gid_t gid, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);
	struct group *gr = getgrgid(gid);

	if (pw == NULL || gr == NULL || pw->pw_gid != gid)
		return false;
	for (char **m = gr->gr_mem; *m != NULL; m++)
		if (strcmp(*m, pw->pw_name) != 0)
			return false;
	return true;
}

/* Whether st, of the file or directory path, may be changed by trusted
 * users only; else why[].  above: a directory above the one that holds
 * the file, which may be writable by all with the sticky bit. */
static bool stat_trusted(const char *kind, const char *path,
			 const struct stat *st, bool above, char *why,
			 size_t len)
{
	mode_t w = st->st_mode & (S_IWGRP | S_IWOTH);

	if (w == S_IWGRP && private_group(st->st_gid, st->st_uid))
		w = 0;
	bool sticky = above && (st->st_mode & S_ISVTX);
	bool trusted = owner_trusted(st->st_uid);
	char owner[96], owners[192];

	if (trusted && (w == 0 || sticky))
		return true;
	owner_name(st->st_uid, owner, sizeof(owner));
	if (!trusted) {
		trusted_owners(owners, sizeof(owners));
		snprintf(why, len, "%s %s is owned by %s, not by %s", kind,
			 path, owner, owners);
	} else {
		snprintf(why, len, "%s %s, owned by %s, is writable by %s "
			 "(mode %04o)", kind, path, owner,
			 (w & S_IWOTH) ? "every user" : "its group",
			 (unsigned)(st->st_mode & 07777));
	}
	return false;
}

/* Whether path is a directory (type S_IFDIR) or a regular file (S_IFREG)
 * that trusted users only may change; else why[]. */
static bool entry_trusted(const char *path, mode_t type, bool above,
			  char *why, size_t len)
{
	const char *kind = type == S_IFDIR ? "directory" : "file";
	struct stat st;

	if (lstat(path, &st) < 0) {
		snprintf(why, len, "cannot read %s %s: %s", kind, path,
			 strerror(errno));
		return false;
	}
	if ((st.st_mode & S_IFMT) != type) {
		snprintf(why, len, "%s is not a %s", path,
			 type == S_IFDIR ? "directory" : "regular file");
		return false;
	}
	return stat_trusted(kind, path, &st, above, why, len);
}

/* Whether the resolved directory dir and those above it may be changed by
 * trusted users only; else why[]. */
static bool chain_trusted(const char *dir, char *why, size_t len)
{
	char path[PATH_MAX];
	bool above = false;

	snprintf(path, sizeof(path), "%s", dir);
	for (;;) {
		const char *p = path[0] ? path : "/";

		if (!entry_trusted(p, S_IFDIR, above, why, len))
			return false;
		char *slash = strrchr(path, '/');
		if (slash == NULL || path[0] == '\0')
			return true;
		*slash = '\0';	/* "/a/b" -> "/a" -> "" (the root) */
		above = true;
	}
}

bool dt_trust_dir(const char *dir, char *why, size_t len)
{
	char real[PATH_MAX];

	why[0] = '\0';
	if (realpath(dir, real) == NULL)
		return false;	/* no such directory: nothing to load */
	return chain_trusted(strcmp(real, "/") == 0 ? "" : real, why, len);
}

bool dt_trust_file(const char *path, char *real, size_t rlen, char *why,
		   size_t len)
{
	char resolved[PATH_MAX];

	if (realpath(path, resolved) == NULL) {
		snprintf(why, len, "cannot resolve %s: %s", path,
			 strerror(errno));
		return false;
	}
	if (!entry_trusted(resolved, S_IFREG, false, why, len))
		return false;
	char *slash = strrchr(resolved, '/');
	*slash = '\0';	/* realpath() made it absolute */
	bool ok = chain_trusted(resolved, why, len);
	*slash = '/';
	if (ok)
		snprintf(real, rlen, "%s", resolved);
	return ok;
}
