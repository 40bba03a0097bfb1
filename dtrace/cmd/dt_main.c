/* SPDX-License-Identifier: MIT */
/*
 * dt_main.c: the dtrace command.
 *
 * Reads the options in order (program texts are compiled in the order they
 * are given, after every option was seen, as DTrace does), then does one of:
 * generate a header (-h) or an object (-G), list probes (-l), compile only
 * (-e), or trace until exit(), the end of the -c/-p processes, or a signal
 * (the session's event loop: dt_session.c).
 *
 * Exit status: 0 on success (or the value of exit()), 1 on failure, 2 on
 * a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "dt_impl.h"
#include "dt_bpf.h"
#include "dt_btf.h"
#include "dt_cg.h"
#include "dt_compile.h"
#include "dt_consume.h"
#include "dt_dwarf.h"
#include "dt_exec.h"
#include "dt_ksyms.h"
#include "dt_metrics.h"
#include "dt_lib.h"
#include "dt_options.h"
#include "dt_output.h"
#include "dt_proc.h"
#include "dt_program.h"
#include "dt_progdesc.h"
#include "dt_runtime.h"
#include "dt_session.h"
#include "dt_sigwatch.h"
#include "dt_usdt_gen.h"

enum { E_SUCCESS = 0, E_ERROR = 1, E_USAGE = 2 };

/* -i: a probe id, resolved to its full name before compiling. */
#define DT_CTX_ID	(-2)

/* A program text in command-line order. */
typedef struct dt_spec {
	int ctx;		/* DT_CTX_SCRIPT or DT_CTX_NAME... */
	const char *arg;	/* -n text or -s path */
} dt_spec_t;

typedef struct dt_cmd {
	dt_spec_t *specs;
	int nspecs;
	const char **cmds;	/* -c */
	int ncmds;
	pid_t *pids;		/* -p */
	int npids;
	bool header, object;	/* -h, -G */
	bool compile_only;	/* -e */
	const char *outpath;	/* -o */
	char **objs;		/* -G inputs */
	int nobjs;
	char **args;		/* the operands, wherever they stood */
	int nargs;
	int nmatched;		/* probes the specs matched, all together */
} dt_cmd_t;

static void usage(FILE *out)
{
	fputs("Usage: dtrace [-CeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n"
	      "\t[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]\n"
	      "\t[-x opt[=val]] [-X a|c|s|t]\n"
	      "\t[-P provider [[ predicate ] action ]]\n"
	      "\t[-m [ provider: ] module [[ predicate ] action ]]\n"
	      "\t[-f [[ provider: ] module: ] func [[ predicate ] action ]]\n"
	      "\t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]\n"
	      "\t[-i probe-id [[ predicate ] action ]] [ args ... ]\n\n"
	      "\tpredicate -> '/' D-expression '/'\n"
	      "\t   action -> '{' D-statements '}'\n\n"
	      "\t-b  set trace buffer size\n"
	      "\t-c  run specified command and exit upon its completion\n"
	      "\t-C  run cpp(1) preprocessor on script files\n"
	      "\t-D  define symbol when invoking preprocessor\n"
	      "\t-e  exit after compiling request but prior to enabling probes\n"
	      "\t-f  enable or list probes matching the specified function name\n"
	      "\t-F  coalesce trace output by function\n"
	      "\t-G  generate an ELF file containing embedded dtrace program\n"
	      "\t-h  generate a header file with definitions for static probes\n"
	      "\t-H  print included files when invoking preprocessor\n"
	      "\t-i  enable or list probes matching the specified probe id\n"
	      "\t-I  add include directory to preprocessor search path\n"
	      "\t-l  list probes matching specified criteria\n"
	      "\t-L  add library directory to library search path\n"
	      "\t-m  enable or list probes matching the specified module name\n"
	      "\t-n  enable or list probes matching the specified probe name\n"
	      "\t-o  set output file\n"
	      "\t-p  grab specified process-ID and cache its symbol tables\n"
	      "\t-P  enable or list probes matching the specified provider name\n"
	      "\t-q  set quiet mode (only output explicitly traced data)\n"
	      "\t-s  enable or list probes according to the specified D script\n"
	      "\t-S  print D compiler intermediate code\n"
	      "\t-U  undefine symbol when invoking preprocessor\n"
	      "\t-v  set verbose mode (report stability attributes, arguments)\n"
	      "\t-V  report DTrace API version\n"
	      "\t-w  permit destructive actions\n"
	      "\t-x  enable or modify compiler and tracing options\n"
	      "\t-X  specify ISO C conformance settings for preprocessor\n"
	      "\t-Z  permit probe descriptions that match zero probes\n", out);
}

static void fail(dtrace_hdl_t *dtp)
{
	if (dtp->errmsg[0] != '\0')
		fprintf(stderr, "dtrace: %s\n", dtp->errmsg);
}

static dtrace_hdl_t *dt_open(void)
{
	dtrace_hdl_t *dtp = dt_zalloc(sizeof(*dtp));

	dt_opt_defaults(&dtp->opt);
	dtp->progname = "dtrace";
	dtp->out = stdout;
	dtp->types = dt_typetab_create();
	return dtp;
}

static void dt_close(dtrace_hdl_t *dtp)
{
	dt_session_steps_end();	/* start-up may have ended in an error */
	dt_exec_fini(dtp);
	dt_metrics_stop(dtp);
	dt_consume_fini(dtp);
	dt_prog_fini(dtp);
	dt_bpf_fini(dtp);
	dt_proc_fini(dtp);
	dt_cg_fini(dtp);
	dt_btf_fini(dtp);
	dt_ksyms_fini(dtp);
	dt_compile_fini(dtp);
	dt_lib_fini(dtp);
	dt_probe_fini(dtp);
	dt_provider_fini(dtp);
	dt_dwarf_fini(dtp);
	dt_typetab_destroy(dtp->types);
	for (int i = 0; i < dtp->nclauses; i++) {
		dt_as_fini(&dtp->clauses[i]->code);
		free(dtp->clauses[i]);
	}
	free(dtp->clauses);
	for (int i = 0; dtp->plugin_dirs && dtp->plugin_dirs[i]; i++)
		free((char *)dtp->plugin_dirs[i]);
	free(dtp->plugin_dirs);
	free((char *)dtp->opt.uprobe_mech);
	free((char *)dtp->opt.cpppath);
	free((char *)dtp->opt.metrics);
	for (int i = 0; i < dtp->opt.cpp_nargs; i++)
		free((char *)dtp->opt.cpp_args[i]);
	free(dtp->opt.cpp_args);
	dt_opt_fini(&dtp->opt);
	free(dtp->macro_argv);
	if (dtp->out != stdout && dtp->out != NULL)
		fclose(dtp->out);
	free(dtp);
}

static void add_spec(dt_cmd_t *cmd, int ctx, const char *arg)
{
	cmd->specs = dt_realloc(cmd->specs, (cmd->nspecs + 1) * sizeof(dt_spec_t));
	cmd->specs[cmd->nspecs++] = (dt_spec_t){ ctx, arg };
}

/* Parse a pid for -p: a positive decimal number. */
static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end != '\0' || end == s || v <= 0 || v > 0x7fffffff)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

#ifndef DT_PLUGINDIR
#define DT_PLUGINDIR "/usr/local/lib/dtrace/plugins"
#endif

/* -V: DTrace's version line, then where the installed plugins are (what
 * plugin authors install into; also pkg-config's plugindir). */
static void print_version(void)
{
	printf("dtrace: Sun D 2.0\n"
	       "dtrace: plugin directory: %s\n"
	       "dtrace: library directory: %s\n", DT_PLUGINDIR,
	       dt_lib_default_dir());
}

/* --help as the next option: the usage on standard output, exit 0.  (-h
 * is DTrace's header generation.) */
static bool help_if_asked(int argc, char **argv)
{
	if (optind >= argc || strcmp(argv[optind], "--help") != 0)
		return false;
	usage(stdout);
	exit(E_SUCCESS);
}

/* The next option, or -1 at an operand or the end (--help prints the
 * usage and exits). */
static int next_option(int argc, char **argv, const char *optstr)
{
	help_if_asked(argc, argv);
	return getopt(argc, argv, optstr);
}

/* Options; returns -1 on a usage error (message printed). */
static int parse_args(dtrace_hdl_t *dtp, dt_cmd_t *cmd, int argc, char **argv)
{
	static const char optstr[] =
		"+aAb:c:CD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwx:X:Z";
	int c;

	/* -32 and -64 select a data model; there is only one here. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-64") == 0 || strcmp(argv[i], "-32") == 0) {
			if (argv[i][1] == '3') {
				fprintf(stderr, "dtrace: -32 is not supported\n");
				return -1;
			}
			memmove(&argv[i], &argv[i + 1], (argc - i) * sizeof(char *));
			argc--, i--;
		}
	}

	opterr = 0;
	/* Options may follow the operands (macro arguments, -G objects), as
	 * in DTrace: getopt stops at each operand, which is kept. */
	cmd->args = dt_zalloc((size_t)argc * sizeof(char *));
	for (bool rest = false; optind < argc;) {
		if (rest || (c = next_option(argc, argv, optstr)) == -1) {
			rest = rest || strcmp(argv[optind - 1], "--") == 0;
			if (optind < argc)
				cmd->args[cmd->nargs++] = argv[optind++];
			continue;
		}
		switch (c) {
		case 'a':
		case 'A':
			fprintf(stderr, "dtrace: anonymous tracing (-%c) is "
				"not supported: tracing lives as long as the "
				"dtrace command\n", c);
			return -2;
		case 'b':
			if (dt_opt_set(dtp, "bufsize", optarg) < 0)
				goto opt_error;
			break;
		case 'c':
			cmd->cmds = dt_realloc(cmd->cmds, (cmd->ncmds + 1) *
					       sizeof(char *));
			cmd->cmds[cmd->ncmds++] = optarg;
			break;
		case 'C': dtp->opt.cpp = true; break;
		case 'D': dt_opt_add_cpp_arg(dtp, "-D", optarg); break;
		case 'U': dt_opt_add_cpp_arg(dtp, "-U", optarg); break;
		case 'I': dt_opt_add_cpp_arg(dtp, "-I", optarg); break;
		case 'H': dt_opt_add_cpp_arg(dtp, "-H", ""); break;
		case 'X':	/* DTrace's short form of -x stdc */
			if (dt_opt_set(dtp, "stdc", optarg) < 0)
				goto opt_error;
			break;
		case 'e': cmd->compile_only = true; break;
		case 'F': dtp->opt.flowindent = true; break;
		case 'G': cmd->object = true; break;
		case 'h': cmd->header = true; break;
		case 'i': add_spec(cmd, DT_CTX_ID, optarg); break;
		case 'l': dtp->opt.list = true; break;
		case 'L':
			if (dt_opt_set(dtp, "libdir", optarg) < 0)
				goto opt_error;
			break;
		case 'm': add_spec(cmd, DT_CTX_MODULE, optarg); break;
		case 'n': add_spec(cmd, DT_CTX_NAME, optarg); break;
		case 'f': add_spec(cmd, DT_CTX_FUNCTION, optarg); break;
		case 'P': add_spec(cmd, DT_CTX_PROVIDER, optarg); break;
		case 's': add_spec(cmd, DT_CTX_SCRIPT, optarg); break;
		case 'o': cmd->outpath = optarg; break;
		case 'p': {
			pid_t pid;
			if (parse_pid(optarg, &pid) < 0) {
				fprintf(stderr, "dtrace: invalid process id "
					"'%s'\n", optarg);
				return -1;
			}
			cmd->pids = dt_realloc(cmd->pids, (cmd->npids + 1) *
					       sizeof(pid_t));
			cmd->pids[cmd->npids++] = pid;
			break;
		}
		case 'q': dtp->opt.quiet = true; break;
		case 'S': dtp->opt.show_bpf = true; break;
		case 'v': dtp->opt.verbose = true; break;
		case 'V':
			print_version();
			exit(E_SUCCESS);
		case 'w': dtp->opt.destructive = true; break;
		case 'x':
			if (dt_opt_set_arg(dtp, optarg) < 0)
				goto opt_error;
			break;
		case 'Z': dtp->opt.zdefs = true; break;
		default:
			if (optopt && strchr(optstr, optopt))
				fprintf(stderr, "dtrace: option requires an "
					"argument -- %c\n", optopt);
			else
				fprintf(stderr, "dtrace: illegal option -- %c\n",
					optopt);
			usage(stderr);
			return -1;
		}
	}

	/* The operands: -G's objects, else macro arguments $1 ... */
	int nmacro = cmd->nargs;
	if (cmd->object) {
		cmd->objs = cmd->args;
		cmd->nobjs = cmd->nargs;
		nmacro = 0;
	}
	dtp->macro_argc = nmacro + 1;
	dtp->macro_argv = dt_zalloc((dtp->macro_argc + 1) * sizeof(char *));
	dtp->macro_argv[0] = argv[0];
	for (int i = 0; i < cmd->nspecs; i++)
		if (cmd->specs[i].ctx == DT_CTX_SCRIPT)
			dtp->macro_argv[0] = (char *)cmd->specs[i].arg;
	for (int i = 0; i < nmacro; i++)
		dtp->macro_argv[i + 1] = cmd->args[i];
	return 0;

opt_error:
	fail(dtp);
	return -2;
}

/* Read a script; "-" is standard input.  NULL after setting the error. */
static char *read_script(dtrace_hdl_t *dtp, const char *path, size_t *lenp)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");

	if (f == NULL) {
		dt_set_error(dtp, "failed to open %s: %s", path, strerror(errno));
		return NULL;
	}
	char *text = dt_read_stream(f, DT_SCRIPT_MAX, lenp);
	int err = errno;
	if (f != stdin)
		fclose(f);
	if (text == NULL && err == EFBIG)
		dt_set_error(dtp, "failed to read %s: script is larger than "
			     "%u MB", path, DT_SCRIPT_MAX >> 20);
	else if (text == NULL)
		dt_set_error(dtp, "failed to read %s: %s", path, strerror(err));
	return text;
}

typedef struct gen_arg {
	dt_cmd_t *cmd;
	const char *script;
} gen_arg_t;

static int gen_output(dtrace_hdl_t *dtp, const dt_program_ast_t *prog,
		      void *arg)
{
	gen_arg_t *g = arg;
	char *out = NULL;
	int rc;

	if (g->cmd->outpath == NULL)
		out = dt_usdt_default_output(g->script,
					     g->cmd->header ? ".h" : ".o");
	const char *path = g->cmd->outpath ? g->cmd->outpath : out;
	if (g->cmd->header)
		rc = dt_header_generate(dtp, prog, path);
	else
		rc = dt_link_generate(dtp, prog, path, g->cmd->objs,
				      g->cmd->nobjs);
	free(out);
	return rc;
}

/* The length of the description a -n argument starts with: up to the
 * body or the predicate (a '/' in a field that is a path is the path's). */
static size_t description_len(const char *s)
{
	bool path = false;
	size_t i;

	for (i = 0; s[i] != '\0' && s[i] != '{'; i++) {
		if (s[i] == ':')
			path = s[i + 1] == '/';
		else if (s[i] == '/' && !path)
			break;
	}
	return i;
}

/* The text up to the clause body, as DTrace names a -n description. */
static void print_description_match(dtrace_hdl_t *dtp, const dt_spec_t *s,
				    const dt_compile_result_t *res)
{
	if (dtp->opt.quiet)
		return;
	if (s->ctx == DT_CTX_SCRIPT) {
		fprintf(stderr, "dtrace: script '%s' matched %d probe%s\n",
			s->arg, res->nprobes, res->nprobes == 1 ? "" : "s");
		return;
	}
	size_t n = description_len(s->arg);
	fprintf(stderr, "dtrace: description '%.*s' matched %d probe%s\n",
		(int)n, s->arg, res->nprobes, res->nprobes == 1 ? "" : "s");
}

/*
 * -i ID [ predicate action ]: the probe of that id, as `dtrace -l` numbers
 * them (every provider asked for all its probes first).  Returns the text
 * to compile with the id replaced by the probe's full name, or NULL.
 */
static char *resolve_probe_id(dtrace_hdl_t *dtp, const char *arg)
{
	dtrace_probedesc_t all = { "", "", "", "" };
	char *end;
	unsigned long id;

	while (*arg == ' ' || *arg == '\t')
		arg++;
	errno = 0;
	id = strtoul(arg, &end, 10);
	if (errno || end == arg || id == 0) {
		dt_set_error(dtp, "invalid probe identifier %s", arg);
		return NULL;
	}
	/* An id is its probe's for good: only one not made yet (every id
	 * but BEGIN's, END's and ERROR's) needs every provider asked */
	if (id > dtp->nprobes && dt_probe_iter(dtp, &all, NULL, NULL) < 0)
		return NULL;
	if (id > dtp->nprobes) {
		dt_set_error(dtp, "invalid probe specifier %s: probe "
			     "description :::%lu does not match any probes",
			     arg, id);
		return NULL;
	}
	dtrace_probe_t *p = dtp->probes[id];
	size_t len = strlen(p->prv) + strlen(p->mod) + strlen(p->fun) +
		     strlen(p->prb) + strlen(end) + 8;
	char *text = dt_zalloc(len);
	snprintf(text, len, "%s:%s:%s:%s%s", p->prv, p->mod, p->fun, p->prb,
		 end);
	return text;
}

static void print_stability(dtrace_hdl_t *dtp, const dt_spec_t *s,
			    const dt_compile_result_t *res);

static int compile_specs(dtrace_hdl_t *dtp, dt_cmd_t *cmd, bool generate)
{
	cmd->nmatched = 0;
	for (int i = 0; i < cmd->nspecs; i++) {
		dt_spec_t *s = &cmd->specs[i];
		dt_compile_result_t res = { 0 };
		gen_arg_t g = { cmd, s->arg };
		char *text = NULL;
		size_t len;
		int rc;

		if (generate) {
			res.gen = gen_output;
			res.gen_arg = &g;
		}
		if (s->ctx == DT_CTX_SCRIPT) {
			text = read_script(dtp, s->arg, &len);
			if (text == NULL)
				return -1;
			rc = dt_compile(dtp, text, len, s->arg, s->ctx, &res);
		} else if (s->ctx == DT_CTX_ID) {
			text = resolve_probe_id(dtp, s->arg);
			if (text == NULL)
				return -1;
			rc = dt_compile(dtp, text, strlen(text), NULL,
					DT_CTX_NAME, &res);
		} else {
			rc = dt_compile(dtp, s->arg, strlen(s->arg), NULL,
					s->ctx, &res);
		}
		free(text);
		if (rc < 0)
			return -1;
		if (!generate && !dtp->opt.list)
			print_description_match(dtp, s, &res);
		if (!generate && !dtp->opt.list && dtp->opt.verbose)
			print_stability(dtp, s, &res);
		cmd->nmatched += res.nprobes;
	}
	return 0;
}

static const char *stability_name(dtrace_stability_t s)
{
	static const char *names[] = {
		"Internal", "Private", "Obsolete", "External", "Unstable",
		"Evolving", "Stable", "Standard",
	};
	return (unsigned)s < 8 ? names[s] : "Unknown";
}

/* One block of attributes, as dtrace -l -v and -v print them: a name's
 * and its data's stability, then the dependency class. */
static void print_attrs(FILE *out, const char *title,
			const dtrace_stability_t *a)
{
	static const char *classes[] = { "Unknown", "CPU", "Platform",
					 "Group", "ISA", "Common" };

	fprintf(out, "\n\t%s\n\t\tIdentifier Names: %s\n"
		"\t\tData Semantics:   %s\n\t\tDependency Class: %s\n",
		title, stability_name(a[0]), stability_name(a[1]),
		classes[(unsigned)a[2] < 6 ? a[2] : 0]);
}

/* dtrace -v: the stability report of one program, after its "matched"
 * line, as DTrace prints it (the description cut where its clause
 * starts, as there). */
static void print_stability(dtrace_hdl_t *dtp, const dt_spec_t *s,
			    const dt_compile_result_t *res)
{
	dtrace_stability_t d[3] = { res->descattr.name, res->descattr.data,
				    (dtrace_stability_t)res->descattr.dclass };
	dtrace_stability_t t[3] = { res->stmtattr.name, res->stmtattr.data,
				    (dtrace_stability_t)res->stmtattr.dclass };
	FILE *out = dtp->out;

	if (s->ctx == DT_CTX_SCRIPT)
		fprintf(out, "\nStability attributes for script %s:\n",
			s->arg);
	else
		fprintf(out, "\nStability attributes for description %.*s:\n",
			(int)description_len(s->arg), s->arg);
	print_attrs(out, "Minimum Probe Description Attributes", d);
	print_attrs(out, "Minimum Statement Attributes", t);
	fprintf(out, "\n");
}

static void list_verbose(dtrace_hdl_t *dtp, dtrace_probe_t *p)
{
	dtrace_stability_t attr[6];
	FILE *out = dtp->out;

	dt_probe_attrs(p, attr);
	dt_probe_ctypes(dtp, p);
	print_attrs(out, "Probe Description Attributes", attr);
	print_attrs(out, "Argument Attributes", attr + 3);
	fprintf(out, "\n\tArgument Types\n");
	if (p->nargs <= 0)
		fprintf(out, "\t\tNone\n");
	for (int i = 0; i < p->nargs; i++)
		fprintf(out, "\t\targs[%d]: %s\n", i, p->argtypes[i]->name);
	fprintf(out, "\n");
}

static int list_one(dtrace_hdl_t *dtp, dtrace_probe_t *p, void *arg)
{
	bool *seen = arg;

	if (seen[p->id])
		return 0;
	seen[p->id] = true;
	fprintf(dtp->out, "%5u %10s %17s %33s %s\n", p->id, p->prv, p->mod,
		p->fun, p->prb);
	if (dtp->opt.verbose)
		list_verbose(dtp, p);
	return 0;
}

/* Whether t is the probe that stands for the processes not seen yet
 * (DTRACE_PROBE_TEMPLATE) of the same file site as p, a process's own. */
static bool stands_for(const dtrace_probe_t *t, const dtrace_probe_t *p)
{
	return t != p && t->provider == p->provider &&
	       (t->attr & DTRACE_PROBE_TEMPLATE) &&
	       strcmp(t->mod, p->mod) == 0 && strcmp(t->fun, p->fun) == 0 &&
	       strcmp(t->prb, p->prb) == 0;
}

/* Whether clause c names p only through a description of a file by its
 * path ("myapp:/usr/bin/myapp::"), which lists the file's probes: those
 * that stand for its processes, not each running process's own too, when
 * the clause lists the one that stands for p. */
static bool listed_by_path_only(dtrace_hdl_t *dtp, const dtrace_probe_t *p,
				int c)
{
	bool template_listed = false;

	if ((p->attr & DTRACE_PROBE_TEMPLATE) || p->provider == NULL ||
	    !p->provider->templates)
		return false;
	for (int i = 0; i < dtp->clause_ndescs[c]; i++) {
		const dtrace_probedesc_t *d = &dtp->clause_descs[c][i];

		if ((d->mod == NULL || d->mod[0] != '/') &&
		    dt_probe_matches(dtp, p, d))
			return false;
	}
	for (uint32_t id = 1; id <= dtp->nprobes && !template_listed; id++)
		template_listed = stands_for(dtp->probes[id], p) &&
				  dt_cs_has(&dtp->probes[id]->clauses, c);
	return template_listed;
}

/* -l: the probes of the descriptions (or all), as DTrace lists them. */
static int list_probes(dtrace_hdl_t *dtp, dt_cmd_t *cmd)
{
	dtrace_probedesc_t all = { "", "", "", "" };
	int rc = 0;

	if (cmd->nspecs == 0) {
		if (dt_probe_iter(dtp, &all, NULL, NULL) < 0)
			return -1;
		bool *seen = dt_zalloc(dtp->nprobes + 1);
		for (uint32_t id = 1; id <= dtp->nprobes; id++)
			list_one(dtp, dtp->probes[id], seen);
		free(seen);
		return 0;
	}
	/* Descriptions were compiled with -l set: their probes carry the
	 * clauses.  As DTrace lists them, one description after the other,
	 * each its probes in id order: a probe two of them match is listed
	 * twice. */
	bool *seen = dt_zalloc(dtp->nprobes + 1);
	for (int c = 0; c < dtp->nclauses; c++) {
		memset(seen, 0, dtp->nprobes + 1);
		for (uint32_t id = 1; id <= dtp->nprobes; id++)
			if (dt_cs_has(&dtp->probes[id]->clauses, c) &&
			    !listed_by_path_only(dtp, dtp->probes[id], c))
				list_one(dtp, dtp->probes[id], seen);
	}
	free(seen);
	return rc;
}

static void raise_memlock(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	setrlimit(RLIMIT_MEMLOCK, &rl);
}

static int trace(dtrace_hdl_t *dtp, dt_cmd_t *cmd)
{
	/* A kernel without the ring buffer or attach cookies gets a message
	 * that says so, rather than a verifier complaint. */
	dt_session_step("building and attaching the programs");
	if (dt_bpf_check_features(dtp) < 0 ||
	    dt_cg_check_destructive(dtp) < 0 || dt_cg_check_space(dtp) < 0 ||
	    dt_prog_build_all(dtp) < 0 ||
	    dt_consume_init(dtp) < 0)
		return -1;
	/* before any probe fires: an address in use ends the session here */
	if (dtp->opt.metrics != NULL &&
	    dt_metrics_start(dtp, dtp->opt.metrics) < 0)
		return -1;
	/* the loader's events say when a process maps a library, which its
	 * user stacks and addresses are symbolized with */
	if (dt_pd_uses_usyms(dtp) && dt_exec_watch(dtp, NULL) < 0)
		return -1;
	dt_session_signals();
	if (dt_exec_start(dtp) < 0 || dt_prog_start(dtp) < 0)
		return -1;
	dt_sigwatch_start(dtp);
	dtp->tracing = true;
	/* -x evaltime=exec: the libraries' probes, once they are mapped */
	if (cmd->ncmds > 0 && dtp->opt.evaltime == DT_EVALTIME_EXEC) {
		int ran = dt_proc_load_libraries(dtp);

		if (ran < 0 || (ran > 0 && dt_prog_poll_providers(dtp) < 0))
			return -1;
	}
	if (cmd->ncmds > 0 && dt_proc_release(dtp) < 0)
		return -1;
	dt_session_steps_end();
	int rc = dt_session_loop(dtp, cmd->outpath,
				 cmd->ncmds > 0 || cmd->npids > 0);
	dt_exec_stop(dtp);
	dt_session_report_exits(dtp);

	/* END fires, then everything still in the buffer is printed. */
	if (dt_prog_stop(dtp) < 0)
		rc = -1;
	if (dt_consume_poll(dtp, 0) < 0)
		rc = -1;
	dt_consume_report_drops(dtp);
	if (dt_consume_final(dtp) < 0)
		rc = -1;
	if (dt_session_flush(dtp, cmd->outpath) < 0)
		rc = -1;
	return rc;
}

static int grab_processes(dtrace_hdl_t *dtp, dt_cmd_t *cmd)
{
	for (int i = 0; i < cmd->ncmds; i++) {
		pid_t pid;
		if (dt_proc_create(dtp, cmd->cmds[i], &pid) < 0)
			return -1;
		if (dtp->target == 0)
			dtp->target = pid;
	}
	for (int i = 0; i < cmd->npids; i++) {
		if (dt_proc_grab(dtp, cmd->pids[i]) < 0)
			return -1;
		if (dtp->target == 0)
			dtp->target = cmd->pids[i];
	}
	return 0;
}

/* -x help: the options, with the plugins' own, which loading tells. */
static int list_options(dtrace_hdl_t *dtp)
{
	if (dt_bpf_init(dtp) < 0 || dt_provider_load_all(dtp) < 0)
		return E_ERROR;
	dt_opt_list(dtp, stdout);
	return E_SUCCESS;
}

static int run(dtrace_hdl_t *dtp, dt_cmd_t *cmd)
{
	if (dtp->opt.help)
		return list_options(dtp);
	if (cmd->header || cmd->object) {
		if (cmd->header && cmd->object) {
			fprintf(stderr, "dtrace: -h and -G may not be used "
				"together\n");
			return E_USAGE;
		}
		if (cmd->nspecs == 0) {
			fprintf(stderr, "dtrace: -%c requires a script "
				"(-s)\n", cmd->header ? 'h' : 'G');
			return E_USAGE;
		}
		dtp->opt.list = true;	/* compile without matching probes */
		dtp->opt.zdefs = true;	/* -h and -G imply -Z, as in DTrace */
		return compile_specs(dtp, cmd, true) < 0 ? E_ERROR : E_SUCCESS;
	}
	if (cmd->nspecs == 0 && !dtp->opt.list) {
		usage(stderr);
		return E_USAGE;
	}
	/* Listing and compiling need no privilege; tracing is told what it
	 * lacks before a process is started or a file written. */
	if (!dtp->opt.list && !cmd->compile_only &&
	    dt_bpf_check_privilege(dtp) < 0)
		return E_ERROR;
	FILE *out = dt_output_open(dtp, cmd->outpath);
	if (out == NULL && cmd->outpath != NULL) {
		dt_set_error(dtp, "failed to open output file '%s': %s",
			     cmd->outpath, strerror(errno));
		return E_ERROR;
	}
	if (out != NULL)
		dtp->out = out;
	raise_memlock();
	if (dtp->opt.list)	/* even when a description matches nothing */
		fprintf(dtp->out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER",
			"MODULE", "FUNCTION", "NAME");
	dt_session_step("loading the provider plugins");
	if (dt_bpf_init(dtp) < 0 || dt_provider_load_all(dtp) < 0)
		return E_ERROR;
	dt_session_step("starting the -c and -p processes");
	if (grab_processes(dtp, cmd) < 0)
		return E_ERROR;
	dt_session_step("matching the probe descriptions");
	if (dt_prog_maps_declare(dtp) < 0 || compile_specs(dtp, cmd, false) < 0)
		return E_ERROR;
	dt_session_step(NULL);
	if (dtp->opt.list)
		return list_probes(dtp, cmd) < 0 ? E_ERROR : E_SUCCESS;
	if (cmd->compile_only)
		return E_SUCCESS;
	/* nothing to trace (-x empty, a script of declarations): DTrace says
	 * so rather than waiting for nothing, unless told to (-Z) */
	if (cmd->nmatched == 0 && !dtp->opt.zdefs) {
		dt_set_error(dtp, "no probes matched");
		return E_ERROR;
	}
	if (trace(dtp, cmd) < 0)
		return E_ERROR;
	return dtp->exitstatus;
}

int main(int argc, char **argv)
{
	dtrace_hdl_t *dtp = dt_open();
	dt_cmd_t cmd = { 0 };
	int status;

	int rc = parse_args(dtp, &cmd, argc, argv);
	if (rc < 0) {
		status = rc == -1 ? E_USAGE : E_ERROR;
	} else {
		status = run(dtp, &cmd);
		if (status == E_ERROR)
			fail(dtp);
	}
	fflush(stdout);
	dt_close(dtp);
	free(cmd.specs);
	free(cmd.cmds);
	free(cmd.pids);
	free(cmd.args);
	return status;
}
