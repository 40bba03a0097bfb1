/* SPDX-License-Identifier: MIT */
/*
 * dt_header.c: dtrace -h, the header an application includes to fire its
 * probes, and the naming helpers that dtrace -G shares.
 *
 * For provider myapp and probe query__start(int, char *) the header has
 *
 *	#define MYAPP_QUERY_START(arg0, arg1) \
 *		DTRACE_USDT_PROBE2(myapp, query__start, -4, (int)(arg0), \
 *				   8, (char *)(arg1))
 *	#define MYAPP_QUERY_START_ENABLED() \
 *		DTRACE_USDT_ENABLED(myapp, query__start)
 *
 * Naming follows DTrace: the probe's name is the declared one with each "__"
 * turned into "-"; a macro name is the upper-cased provider, "_", and the
 * upper-cased probe name with "-" and "." turned into "_".  The argument
 * specification (size, negative when signed) comes from the declared native
 * types, and each argument is cast to its declared type, so the site passes
 * what the .d file promises whatever the caller's expression type.
 *
 * The header is self-contained: the probe-site macros (DTRACE_USDT_PROBEn
 * and the rest) are include/dtrace/usdt.h, copied in whole, so a header
 * generated once can ship in a source tarball and compile where no dtrace
 * is installed.  That copy keeps usdt.h's own guard, DTRACE_USDT_H: two
 * generated headers in one unit, or one and <dtrace/usdt.h>, define the
 * macros once.
 *
 * Defining DTRACE_USDT_DISABLE before inclusion makes every macro empty
 * (ENABLED is 0), for builds without probes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_usdt_gen.h"

/* include/dtrace/usdt.h as a string (made by the Makefile). */
static const char usdt_h_text[] =
#include "dt_usdt_text.h"
	;

char *dt_usdt_default_output(const char *script, const char *ext)
{
	size_t n = strlen(script);
	char *out;

	if (n > 2 && strcmp(script + n - 2, ".d") == 0)
		n -= 2;
	out = dt_zalloc(n + strlen(ext) + 1);
	memcpy(out, script, n);
	strcpy(out + n, ext);
	return out;
}

char *dt_usdt_probe_dname(const char *declared)
{
	char *out = dt_zalloc(strlen(declared) + 1), *p = out;

	while (*declared != '\0') {
		if (declared[0] == '_' && declared[1] == '_') {
			*p++ = '-';
			declared += 2;
		} else {
			*p++ = *declared++;
		}
	}
	return out;
}

char *dt_usdt_macro_name(const char *dname)
{
	char *out = dt_strdup(dname), *p;

	for (p = out; *p != '\0'; p++) {
		if (*p == '-' || *p == '.')
			*p = '_';
		else
			*p = (char)toupper((unsigned char)*p);
	}
	return out;
}

int dt_usdt_write_file(dtrace_hdl_t *dtp, const char *path, const char *buf,
		       size_t size)
{
	char *tmp = dt_zalloc(strlen(path) + 16);
	size_t done = 0;
	int fd;

	sprintf(tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		dt_set_error(dtp, "failed to create %s: %s", path,
			     strerror(errno));
		free(tmp);
		return -1;
	}
	while (done < size) {
		ssize_t n = write(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	if (fchmod(fd, 0644) != 0 || close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		fd = -1;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	dt_set_error(dtp, "failed to write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

/* The C spelling of a D type for a cast, or NULL if a site cannot pass it
 * in a register (structs by value, void).  A float or double goes in a
 * general register or memory ("nor"), where a uprobe reads its bits. */
static const char *header_ctype(const dt_type_t *t)
{
	switch (t->kind) {
	case DT_TK_STRING:
		return "char *";
	case DT_TK_INT:
	case DT_TK_ENUM:
	case DT_TK_PTR:
	case DT_TK_FLOAT:
		return t->name;
	default:
		return NULL;
	}
}

/* The size field of an argument specification: bytes, negative if signed
 * (header_probe() adds the f of a floating-point type). */
static int header_argsize(const dt_type_t *t)
{
	if (t->kind == DT_TK_PTR || t->kind == DT_TK_STRING)
		return 8;
	return t->is_signed ? -(int)t->size : (int)t->size;
}

static int header_check_probe(dtrace_hdl_t *dtp, const dt_providerdecl_t *pv,
			      const dt_probedecl_t *pr)
{
	/* usdt.h's DTRACE_USDT_PROBE0 .. 16 */
	if (pr->nargs > DTRACE_ARGS_MAX) {
		dt_set_error(dtp, "probe %s:::%s has %d arguments, at most %d "
			     "are supported", pv->name, pr->name, pr->nargs,
			     DTRACE_ARGS_MAX);
		return -1;
	}
	for (int i = 0; i < pr->nargs; i++) {
		const dt_type_t *t = pr->args[i];
		int sz = t ? abs(header_argsize(t)) : 0;

		if (t == NULL || header_ctype(t) == NULL ||
		    (sz != 1 && sz != 2 && sz != 4 && sz != 8)) {
			dt_set_error(dtp, "probe %s:::%s: argument %d has a type "
				     "a probe site cannot pass (%s)", pv->name,
				     pr->name, i, t ? t->name : "?");
			return -1;
		}
	}
	return 0;
}

static void header_probe(FILE *f, const dt_providerdecl_t *pv,
			 const char *pmacro, const dt_probedecl_t *pr)
{
	char *dname = dt_usdt_probe_dname(pr->name);
	char *mname = dt_usdt_macro_name(dname);

	fprintf(f, "/* %s:::%s */\n", pv->name, dname);
	fprintf(f, "DTRACE_USDT_DECLARE_SEMA(%s, %s);\n", pv->name, pr->name);
	fprintf(f, "#define\t%s_%s(", pmacro, mname);
	for (int i = 0; i < pr->nargs; i++)
		fprintf(f, "%sarg%d", i ? ", " : "", i);
	fprintf(f, ") \\\n\tDTRACE_USDT_PROBE%d(%s, %s", pr->nargs, pv->name,
		pr->name);
	for (int i = 0; i < pr->nargs; i++)
		fprintf(f, ", \\\n\t    %d%s, (%s)(arg%d)",
			header_argsize(pr->args[i]),
			pr->args[i]->kind == DT_TK_FLOAT ? "f" : "",
			header_ctype(pr->args[i]), i);
	fprintf(f, ")\n");
	fprintf(f, "#define\t%s_%s_ENABLED() \\\n\tDTRACE_USDT_ENABLED(%s, %s)\n\n",
		pmacro, mname, pv->name, pr->name);
	free(mname);
	free(dname);
}

/* The same macros, empty, for builds with DTRACE_USDT_DISABLE. */
static void header_probe_disabled(FILE *f, const char *pmacro,
				  const dt_probedecl_t *pr)
{
	char *dname = dt_usdt_probe_dname(pr->name);
	char *mname = dt_usdt_macro_name(dname);

	fprintf(f, "#define\t%s_%s(", pmacro, mname);
	for (int i = 0; i < pr->nargs; i++)
		fprintf(f, "%sarg%d", i ? ", " : "", i);
	fprintf(f, ") do { } while (0)\n");
	fprintf(f, "#define\t%s_%s_ENABLED() (0)\n", pmacro, mname);
	free(mname);
	free(dname);
}

static void header_guard(const char *out_path, char *buf, size_t size)
{
	const char *base = strrchr(out_path, '/');
	size_t n = 0;

	base = base ? base + 1 : out_path;
	buf[n++] = '_';
	for (; *base != '\0' && n + 1 < size; base++)
		buf[n++] = isalnum((unsigned char)*base) ?
			(char)toupper((unsigned char)*base) : '_';
	buf[n] = '\0';
}

int dt_header_generate(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
		       const char *out_path)
{
	const dt_providerdecl_t *pv;
	const dt_probedecl_t *pr;
	char guard[256], *buf = NULL;
	size_t size = 0;
	FILE *f;
	int rc;

	for (pv = prog->providers; pv != NULL; pv = pv->next)
		for (pr = pv->probes; pr != NULL; pr = pr->next)
			if (header_check_probe(dtp, pv, pr) != 0)
				return -1;

	header_guard(out_path, guard, sizeof(guard));
	f = open_memstream(&buf, &size);
	if (f == NULL) {
		dt_set_error(dtp, "failed to generate header: %s",
			     strerror(errno));
		return -1;
	}
	fprintf(f, "/*\n * Generated by dtrace(8): do not edit.\n */\n\n"
		"#ifndef\t%s\n#define\t%s\n\n", guard, guard);
	fprintf(f, "#ifndef DTRACE_USDT_DISABLE\n\n"
		"/* <dtrace/usdt.h>, inlined: this header needs no dtrace "
		"installed. */\n\n%s\n", usdt_h_text);
	for (pv = prog->providers; pv != NULL; pv = pv->next) {
		char *pmacro = dt_usdt_macro_name(pv->name);

		for (pr = pv->probes; pr != NULL; pr = pr->next)
			header_probe(f, pv, pmacro, pr);
		free(pmacro);
	}
	fprintf(f, "#else /* DTRACE_USDT_DISABLE */\n\n");
	for (pv = prog->providers; pv != NULL; pv = pv->next) {
		char *pmacro = dt_usdt_macro_name(pv->name);

		for (pr = pv->probes; pr != NULL; pr = pr->next)
			header_probe_disabled(f, pmacro, pr);
		free(pmacro);
	}
	fprintf(f, "\n#endif /* DTRACE_USDT_DISABLE */\n\n#endif /* %s */\n",
		guard);
	if (fclose(f) != 0) {
		free(buf);
		dt_set_error(dtp, "failed to generate header: %s",
			     strerror(errno));
		return -1;
	}
	rc = dt_usdt_write_file(dtp, out_path, buf, size);
	free(buf);
	return rc;
}
