/* SPDX-License-Identifier: MIT */
/*
 * dt_lib.c: D libraries.
 *
 * Every `*.d` file of each `-L` directory, in the order given, then of
 * the installed library directory (DT_LIBRARYDIR, which `dtrace -V`
 * prints) is read before the session's first program; a file whose name
 * an earlier directory has is not (so `-L` overrides an installed
 * library), as in DTrace.  Their types, inlines,
 * variables and translators are then known to every program of the
 * session, and their `#pragma D option` lines set the session's options
 * (a program's own pragmas and later ones override them), as in DTrace.
 * Their clauses are compiled against the probes they match, so that an
 * error in one is reported with the library's path and line, and
 * discarded (dt_compile.c): they never run.
 *
 * One library is built in, psinfo.d (dt_lib_psinfo.c: curpsinfo,
 * curlwpsinfo, curcpu and their translators from the kernel's task_struct):
 * it comes after the directories, whose psinfo.d replaces it, and only
 * for a program that names one of its words on a kernel with BTF, since
 * declaring it reads the kernel's BTF; the first such program of the
 * session adds it, whether or not the libraries were read before.
 *
 * `#pragma D depends_on library NAME` orders the files: the library NAME,
 * from whichever directory, comes first.  A dependency
 * on a file that is not there, or a cycle, fails every compile of the
 * session with DTrace's message.  A library whose own `depends_on`
 * (provider, module or library) is not satisfied is skipped without a
 * word, as DTrace does, so that a directory may hold libraries for
 * providers that are not there; any other error in a library fails the
 * compile, reported with the library's path and line.
 *
 * Two phases, once per session: the files are parsed before the first
 * program is (their typedefs and structs are needed to parse it), and
 * their declarations are checked after the first program's pragmas are
 * applied (the code generator's layout, strsize among it, is fixed at its
 * first use).  The parse trees stay until the session ends: inlines and
 * translators are compiled from them at each use.  So do those of the
 * session's programs that declare inlines or translators, which later
 * programs see too (dt_lib_keep()).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_lib.h"
#include "dt_lib_psinfo.h"

#ifndef DT_LIBRARYDIR
#define DT_LIBRARYDIR "/usr/local/lib/dtrace"
#endif

typedef struct dt_library {
	char *path;		/* DIR/NAME.d */
	const char *text;	/* a built-in library's; NULL: read path */
	char **deps;		/* the libraries it depends on, as DIR/NAME
				   in its own directory (found by NAME in
				   any directory) */
	int ndeps;
	int mark;		/* sorting: 0 new, 1 being visited, 2 done */
	bool loaded;		/* parsed without error: pcb is kept */
	bool declared;		/* handed to dt_lib_next_undeclared() */
	dt_pcb_t *pcb;
} dt_library_t;

struct dt_lib_state {
	char **dirs;		/* -L, in order */
	int ndirs;
	bool parsed;
	dt_library_t **libs;	/* of every directory, in loading order */
	int nlibs;
};

static struct dt_lib_state *lib_state(dtrace_hdl_t *dtp)
{
	if (dtp->lib == NULL)
		dtp->lib = dt_zalloc(sizeof(*dtp->lib));
	return dtp->lib;
}

const char *dt_lib_default_dir(void)
{
	return DT_LIBRARYDIR;
}

void dt_lib_add_dir(dtrace_hdl_t *dtp, const char *dir)
{
	struct dt_lib_state *st = lib_state(dtp);

	st->dirs = dt_realloc(st->dirs, (st->ndirs + 1) * sizeof(char *));
	st->dirs[st->ndirs++] = dt_strdup(dir);
}

static void lib_free(dt_library_t *lib)
{
	if (lib->pcb != NULL) {
		dt_pcb_fini(lib->pcb);
		free(lib->pcb);
	}
	for (int i = 0; i < lib->ndeps; i++)
		free(lib->deps[i]);
	free(lib->deps);
	free(lib->path);
	free(lib);
}

void dt_lib_fini(dtrace_hdl_t *dtp)
{
	struct dt_lib_state *st = dtp->lib;

	if (st == NULL)
		return;
	for (int i = 0; i < st->nlibs; i++)
		lib_free(st->libs[i]);
	free(st->libs);
	for (int i = 0; i < st->ndirs; i++)
		free(st->dirs[i]);
	free(st->dirs);
	free(st);
	dtp->lib = NULL;
	free(dtp->decl_progs);
	dtp->decl_progs = NULL;
	dtp->ndecl_progs = 0;
}

/* lib is loaded: its declarations serve every program after it. */
static void lib_loaded(dtrace_hdl_t *dtp, dt_library_t *lib, dt_pcb_t *pcb)
{
	lib->pcb = pcb;
	lib->loaded = true;
	dtp->decl_progs = dt_realloc(dtp->decl_progs, (dtp->ndecl_progs + 1) *
				     sizeof(*dtp->decl_progs));
	dtp->decl_progs[dtp->ndecl_progs++] = pcb->prog;
}

/* The whole text of a file, NUL-terminated; NULL (errno set) when it
 * cannot be read or is larger than a script may be. */
static char *read_text(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return NULL;
	char *text = dt_read_stream(f, DT_SCRIPT_MAX, lenp);
	int err = errno;
	fclose(f);
	errno = err;
	return text;
}

/* The NAME of a line `#pragma D depends_on library NAME`, copied into
 * name; false for any other line. */
static bool depends_line(const char *line, char *name, size_t size)
{
	char w[5][256];
	int n = sscanf(line, " # %255s %255s %255s %255s %255s", w[0], w[1],
		       w[2], w[3], w[4]);

	if (n != 5 || strcmp(w[0], "pragma") != 0 || strcmp(w[1], "D") != 0 ||
	    strcmp(w[2], "depends_on") != 0 || strcmp(w[3], "library") != 0)
		return false;
	snprintf(name, size, "%s", w[4]);
	return true;
}

/* The libraries text names with #pragma D depends_on library, as paths
 * in dir. */
static void find_deps(dt_library_t *lib, const char *dir, const char *text)
{
	char name[256], path[4096];

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char *line = dt_zalloc(n + 1);

		memcpy(line, p, n);
		if (depends_line(line, name, sizeof(name))) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			lib->deps = dt_realloc(lib->deps, (lib->ndeps + 1) *
					       sizeof(char *));
			lib->deps[lib->ndeps++] = dt_strdup(path);
		}
		free(line);
		p = nl != NULL ? nl + 1 : NULL;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* The library of path's file name, whatever its directory: one name is
 * one library (the first directory that has it). */
static dt_library_t *lib_find(struct dt_lib_state *st, const char *path)
{
	for (int i = 0; i < st->nlibs; i++)
		if (strcmp(base_name(st->libs[i]->path), base_name(path)) == 0)
			return st->libs[i];
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the *.d files of dir, sorted; NULL when it cannot be read
 * (DTrace skips such a directory). */
static char **dir_files(const char *dir, int *np)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0;

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 3 || strcmp(e->d_name + len - 2, ".d") != 0)
			continue;
		names = dt_realloc(names, (n + 1) * sizeof(char *));
		names[n++] = dt_strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(char *), name_cmp);
	*np = n;
	return names;
}

/* Put lib after what it depends on in order[]; -1 with DTrace's message
 * on a missing library or a cycle. */
static int lib_sort(dtrace_hdl_t *dtp, dt_library_t *lib,
		    dt_library_t **order, int *n)
{
	struct dt_lib_state *st = dtp->lib;

	if (lib->mark == 2)
		return 0;
	lib->mark = 1;
	for (int i = 0; i < lib->ndeps; i++) {
		dt_library_t *dep = lib_find(st, lib->deps[i]);
		if (dep == NULL) {
			dt_set_error(dtp, "Invalid library dependency in %s: "
				     "%s", lib->path, lib->deps[i]);
			return -1;
		}
		if (dep->mark == 1) {
			dt_set_error(dtp, "Cyclic dependency detected: %s => "
				     "%s", dep->path, lib->path);
			return -1;
		}
		if (lib_sort(dtp, dep, order, n) < 0)
			return -1;
	}
	lib->mark = 2;
	order[(*n)++] = lib;
	return 0;
}

/* pcb->lib_missing of a library: NULL when the library name was
 * loaded, else its path. */
static const char *lib_missing(dt_pcb_t *pcb, const char *name)
{
	const char *slash = strrchr(pcb->srcname, '/');
	int dirlen = slash != NULL ? (int)(slash - pcb->srcname) : 0;
	size_t size = (size_t)dirlen + strlen(name) + 2;
	char *path = dt_pcb_alloc(pcb, size);

	snprintf(path, size, "%.*s/%s", dirlen, pcb->srcname, name);
	dt_library_t *dep = lib_find(pcb->dtp->lib, path);
	return dep == NULL ? path : dep->loaded ? NULL : dep->path;
}

/* Parse one library; false when it failed with another error than an
 * unsatisfied dependency (dtp->errmsg says which). */
static bool lib_parse(dtrace_hdl_t *dtp, dt_library_t *lib,
		      void (*parsed)(dt_pcb_t *))
{
	size_t len = lib->text != NULL ? strlen(lib->text) : 0;
	char *text = lib->text != NULL ? dt_strdup(lib->text)
				       : read_text(lib->path, &len);

	if (text == NULL)
		return true;	/* DTrace skips a file it cannot read */
	dt_pcb_t *pcb = dt_zalloc(sizeof(*pcb));
	dt_pcb_init(pcb, dtp, text, len, lib->path, false);
	free(text);
	pcb->library = true;
	pcb->lib_missing = lib_missing;
	if (setjmp(pcb->jb) != 0) {
		dt_pcb_fini(pcb);
		free(pcb);
		return dtp->errtag == D_PRAGMA_DEPEND;
	}
	dt_parse(pcb);
	parsed(pcb);
	lib_loaded(dtp, lib, pcb);
	return true;
}

/* Add the libraries of one directory, but for a name that an earlier
 * directory has (DTrace's -L directories override the installed one). */
static void add_dir(struct dt_lib_state *st, const char *dir)
{
	int nfiles = 0;
	char **names = dir_files(dir, &nfiles);
	char path[4096];
	size_t len;

	for (int i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		free(names[i]);
		if (lib_find(st, path) != NULL)
			continue;
		dt_library_t *lib = dt_zalloc(sizeof(*lib));
		lib->path = dt_strdup(path);
		char *text = read_text(path, &len);
		if (text != NULL)
			find_deps(lib, dir, text);
		free(text);
		st->libs = dt_realloc(st->libs, (st->nlibs + 1) *
				      sizeof(*st->libs));
		st->libs[st->nlibs++] = lib;
	}
	free(names);
}

/* Parse every library, each after those it depends on; -1 with the
 * error of the first that fails. */
static int parse_sorted(dtrace_hdl_t *dtp, void (*parsed)(dt_pcb_t *))
{
	struct dt_lib_state *st = dtp->lib;
	int n = 0, rc = 0;
	dt_library_t **order = dt_zalloc((st->nlibs + 1) * sizeof(*order));

	for (int i = 0; i < st->nlibs && rc == 0; i++)
		rc = lib_sort(dtp, st->libs[i], order, &n);
	for (int i = 0; i < n && rc == 0; i++) {
		st->libs[i] = order[i];
		if (!lib_parse(dtp, order[i], parsed))
			rc = -1;
	}
	free(order);
	return rc;
}

void dt_lib_keep(dt_pcb_t *pcb)
{
	struct dt_lib_state *st = lib_state(pcb->dtp);

	if (pcb->prog->inlines == NULL && pcb->prog->xlators == NULL)
		return;
	dt_library_t *lib = dt_zalloc(sizeof(*lib));
	dt_pcb_t *copy = dt_zalloc(sizeof(*copy));
	lib->path = dt_strdup(pcb->srcname != NULL ? pcb->srcname : "");
	lib->declared = true;
	*copy = *pcb;
	pcb->arena = NULL;	/* the copy owns it now */
	lib_loaded(pcb->dtp, lib, copy);
	st->libs = dt_realloc(st->libs, (st->nlibs + 1) * sizeof(*st->libs));
	st->libs[st->nlibs++] = lib;
}

/* Whether pcb's program names a word of words. */
static bool names_word(const dt_pcb_t *pcb, const char *const *words)
{
	for (; *words != NULL; words++)
		if (memmem(pcb->src, pcb->srclen, *words, strlen(*words)))
			return true;
	return false;
}

/* The built-in psinfo.d, added for a program that may use it when no
 * directory has a psinfo.d, on a kernel with BTF (its translators read
 * the kernel's task_struct); NULL when it is not added. */
static dt_library_t *add_psinfo(struct dt_lib_state *st, const dt_pcb_t *pcb)
{
	char path[64];

	snprintf(path, sizeof(path), "built-in/%s", dt_lib_psinfo_name);
	if (lib_find(st, path) != NULL || !names_word(pcb, dt_lib_psinfo_words) ||
	    access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return NULL;
	dt_library_t *lib = dt_zalloc(sizeof(*lib));
	lib->path = dt_strdup(path);
	lib->text = dt_lib_psinfo_text;
	st->libs = dt_realloc(st->libs, (st->nlibs + 1) * sizeof(*st->libs));
	st->libs[st->nlibs++] = lib;
	return lib;
}

void dt_lib_parse_all(dt_pcb_t *pcb, void (*parsed)(dt_pcb_t *))
{
	dtrace_hdl_t *dtp = pcb->dtp;
	struct dt_lib_state *st = lib_state(dtp);
	dt_library_t *lib;

	if (dtp->opt.nolibs)
		return;
	if (st->parsed) {	/* a later program may be the first to use it */
		if ((lib = add_psinfo(st, pcb)) != NULL &&
		    !lib_parse(dtp, lib, parsed))
			dt_pcb_error_wrap(pcb);
		return;
	}
	st->parsed = true;
	for (int i = 0; i < st->ndirs; i++)
		add_dir(st, st->dirs[i]);
	add_dir(st, dtp->opt.syslibdir ? dtp->opt.syslibdir : DT_LIBRARYDIR);
	add_psinfo(st, pcb);
	if (parse_sorted(dtp, parsed) < 0)
		dt_pcb_error_wrap(pcb);
}

dt_pcb_t *dt_lib_next_undeclared(dtrace_hdl_t *dtp)
{
	struct dt_lib_state *st = dtp->lib;

	for (int i = 0; st != NULL && i < st->nlibs; i++) {
		dt_library_t *lib = st->libs[i];
		if (lib->loaded && !lib->declared) {
			lib->declared = true;
			return lib->pcb;
		}
	}
	return NULL;
}
