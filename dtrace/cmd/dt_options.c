/* SPDX-License-Identifier: MIT */
/*
 * dt_options.c: -x name[=value] and #pragma D option.
 *
 * One table names every option, how its value is parsed and where it is
 * stored.  Sizes take k, m, g, t suffixes; times take ns, us, ms, s, m, h,
 * d or hz (a rate: 10hz is every 100ms).  Every option accepted does what
 * it says; one of DTrace's that is not implemented here is refused with
 * the reason (OPT_REFUSED), rather than silently ignored; one whose only
 * value here is what this implementation does (bufresize=manual) takes
 * that value and refuses DTrace's others by name (OPT_ONLY).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "dt_impl.h"
#include "dt_output.h"
#include "dt_lib.h"
#include "dt_options.h"

typedef enum {
	OPT_BOOL,	/* no value or yes/on/...: set; no/off/...: unset */
	OPT_SIZE,
	OPT_TIME,
	OPT_INT,
	OPT_STRING,
	OPT_REFUSED,	/* DTrace's, not implemented: refused with why */
	OPT_ONLY,	/* one value, why; DTrace's others (also) refused */
	OPT_ALWAYS,	/* no value: what it asks is always so here (why) */
	OPT_SPECIAL,	/* handled by opt_special() */
} opt_kind_t;

typedef struct dt_optdesc {
	const char *name;
	opt_kind_t kind;
	size_t off;	/* in dt_options_t */
	const char *why;	/* OPT_REFUSED: the reason; OPT_ONLY: the value */
	const char *also;	/* OPT_ONLY: DTrace's other values, "a|b" */
} dt_optdesc_t;

#define NO_CTF "types come from BTF and DWARF, there is no CTF"
#define NO_SYMREF "D has no references to kernel or user symbols (`name)"
#define NO_DIF "programs are BPF, whose registers are fixed"

#define O(f) offsetof(dt_options_t, f)

static const dt_optdesc_t options[] = {
	{ "aggpack",	   OPT_REFUSED, 0, "aggregations print in DTrace's "
	  "default layout" },
	{ "aggpercpu",	   OPT_BOOL,   O(aggpercpu) },
	{ "aggrate",	   OPT_TIME,   O(aggrate) },
	{ "aggsize",	   OPT_SIZE,   O(aggsize) },
	{ "aggsortkey",	   OPT_BOOL,   O(aggsortkey) },
	{ "aggsortkeypos", OPT_INT,    O(aggsortkeypos) },
	{ "aggsortpos",	   OPT_INT,    O(aggsortpos) },
	{ "aggsortrev",	   OPT_BOOL,   O(aggsortrev) },
	{ "aggzoom",	   OPT_REFUSED, 0, "aggregations print in DTrace's "
	  "default layout" },
	{ "agghist",	   OPT_REFUSED, 0, "aggregations print in DTrace's "
	  "default layout" },
	{ "amin",	   OPT_REFUSED, 0, "the compiler computes no "
	  "stability attributes" },
	{ "argref",	   OPT_BOOL,   O(argref) },
	{ "bufpolicy",	   OPT_SPECIAL, 0 },
	{ "bufresize",	   OPT_ONLY,   0, "manual", "auto" },
	{ "bufsize",	   OPT_SIZE,   O(bufsize) },
	{ "cleanrate",	   OPT_TIME,   O(cleanrate) },
	{ "core",	   OPT_SPECIAL, 0 },
	{ "cpp",	   OPT_BOOL,   O(cpp) },
	{ "cppargs",	   OPT_SPECIAL, 0 },
	{ "cpphdrs",	   OPT_SPECIAL, 0 },	/* -H */
	{ "cpppath",	   OPT_STRING, O(cpppath) },
	{ "cpu",	   OPT_REFUSED, 0, "probes fire on every CPU" },
	{ "ctfpath",	   OPT_REFUSED, 0, NO_CTF },
	{ "ctypes",	   OPT_REFUSED, 0, NO_CTF },
	{ "debug",	   OPT_BOOL,   O(debug) },
	{ "debugassert",   OPT_REFUSED, 0, "there is no debugging output" },
	{ "define",	   OPT_SPECIAL, 0 },	/* -D */
	{ "defaultargs",   OPT_BOOL,   O(defaultargs) },
	{ "destructive",   OPT_BOOL,   O(destructive) },
	{ "disasm",	   OPT_REFUSED, 0, "-S prints the one BPF "
	  "disassembly" },
	{ "droptags",	   OPT_BOOL,   O(droptags) },
	{ "dtypes",	   OPT_REFUSED, 0, NO_CTF },
	{ "dynvarsize",	   OPT_SIZE,   O(dynvarsize) },
	{ "empty",	   OPT_BOOL,   O(empty) },
	{ "encoding",	   OPT_REFUSED, 0, "strings print as the bytes "
	  "traced" },
	{ "errtags",	   OPT_BOOL,   O(errtags) },
	{ "evaltime",	   OPT_SPECIAL, 0 },
	{ "execgate",	   OPT_SPECIAL, 0 },
	{ "flowindent",	   OPT_BOOL,   O(flowindent) },
	{ "grabanon",	   OPT_REFUSED, 0, "there is no anonymous tracing" },
	{ "help",	   OPT_BOOL,   O(help) },
	{ "incdir",	   OPT_SPECIAL, 0 },	/* -I */
	{ "iregs",	   OPT_REFUSED, 0, NO_DIF },
	{ "jstackframes",  OPT_REFUSED, 0, "there is no jstack()" },
	{ "jstackstrsize", OPT_REFUSED, 0, "there is no jstack()" },
	{ "kdefs",	   OPT_REFUSED, 0, NO_SYMREF },
	{ "knodefs",	   OPT_REFUSED, 0, NO_SYMREF },
	/* a translator is chosen when the program is compiled */
	{ "late",	   OPT_ONLY,   0, "static", "dynamic" },
	{ "lazyload",	   OPT_REFUSED, 0, "-G objects register their "
	  "probes when they are loaded" },
	{ "ldpath",	   OPT_REFUSED, 0, "-G compiles its object with $CC, it "
	  "runs no linker" },
	{ "libdir",	   OPT_SPECIAL, 0 },	/* -L */
	{ "linkmode",	   OPT_REFUSED, 0, NO_SYMREF },
	{ "linktype",	   OPT_ONLY,   0, "elf", "dof" },
	{ "lockmem",	   OPT_REFUSED, 0, "the locked memory limit is "
	  "raised to unlimited" },
	{ "maxframes",	   OPT_INT,    O(maxframes) },
	{ "metrics",	   OPT_STRING, O(metrics) },
	{ "modpath",	   OPT_REFUSED, 0, "kernel modules are not read" },
	{ "nolibs",	   OPT_BOOL,   O(nolibs) },
	{ "noresolve",	   OPT_BOOL,   O(noresolve) },
	{ "nspec",	   OPT_INT,    O(nspec) },
	{ "pcapsize",	   OPT_REFUSED, 0, "there is no pcap()" },
	{ "pgmax",	   OPT_REFUSED, 0, "processes are read through /proc, "
	  "none is held open" },
	{ "oformat",	   OPT_SPECIAL, 0 },
	{ "plugindir",	   OPT_SPECIAL, 0 },
	{ "preallocate",   OPT_REFUSED, 0, "buffers are allocated when "
	  "tracing starts" },
	{ "printsize",	   OPT_SIZE,   O(printsize) },
	{ "procprobes",	   OPT_INT,    O(procprobes) },
	{ "pspec",	   OPT_REFUSED, 0, "a probe description and a "
	  "declaration are told apart by what follows them" },
	{ "quiet",	   OPT_BOOL,   O(quiet) },
	{ "rawbytes",	   OPT_BOOL,   O(rawbytes) },
	{ "scratchsize",   OPT_REFUSED, 0, "scratch memory (alloca()) has "
	  "a fixed size" },
	{ "setenv",	   OPT_SPECIAL, 0 },
	{ "specsize",	   OPT_SIZE,   O(specsize) },
	{ "stdc",	   OPT_REFUSED, 0, "cpp is the system's, whose ISO C "
	  "mode is fixed" },
	{ "stackframes",   OPT_INT,    O(stackframes) },
	{ "stackindent",   OPT_INT,    O(stackindent) },
	{ "statusrate",	   OPT_TIME,   O(statusrate) },
	{ "strsize",	   OPT_SIZE,   O(strsize) },
	/* -G writes no D source or comments into its object */
	{ "strip",	   OPT_ALWAYS, 0 },
	{ "syslibdir",	   OPT_SPECIAL, 0 },
	{ "switchrate",	   OPT_TIME,   O(switchrate) },
	/* every CPU writes its records to the one "output" ring buffer, in
	 * the order they are written: they are read in temporal order */
	{ "temporal",	   OPT_BOOL,   O(temporal) },
	{ "tree",	   OPT_REFUSED, 0, "parse trees are not printed" },
	{ "tregs",	   OPT_REFUSED, 0, NO_DIF },
	{ "udefs",	   OPT_REFUSED, 0, NO_SYMREF },
	{ "undef",	   OPT_SPECIAL, 0 },	/* -U */
	{ "unodefs",	   OPT_REFUSED, 0, NO_SYMREF },
	{ "unsetenv",	   OPT_SPECIAL, 0 },
	{ "unwinder",	   OPT_SPECIAL, 0 },
	{ "uprobe",	   OPT_SPECIAL, 0 },
	{ "ustackbytes",   OPT_SIZE,   O(ustackbytes) },
	{ "ustackframes",  OPT_INT,    O(ustackframes) },
	{ "verbose",	   OPT_BOOL,   O(verbose) },
	{ "version",	   OPT_REFUSED, 0, "the D language is Sun D 2.0 "
	  "only" },
	{ "zdefs",	   OPT_BOOL,   O(zdefs) },
	{ "zone",	   OPT_REFUSED, 0, "Linux has no zones" },
};

/*
 * A line of help for each option -x help lists, by name; a test checks
 * that none is missing (options/options_help.sh).  Kept apart from the table
 * above, whose rows say how an option is parsed.
 */
static const struct {
	const char *name, *help;
} option_help[] = {
	{ "aggpercpu", "follow each aggregation entry with its value on each CPU" },
	{ "aggrate", "how often aggregations are read while tracing (time)" },
	{ "aggsize", "bytes of each aggregation's map" },
	{ "aggsortkey", "sort aggregations by key rather than by value" },
	{ "aggsortkeypos", "the key that sorts first (from 0)" },
	{ "aggsortpos", "the aggregation that sorts printa()'s entries (from 0)" },
	{ "aggsortrev", "sort aggregations in reverse order" },
	{ "argref", "allow macro arguments ($1...) the script does not use" },
	{ "bufpolicy", "what the output buffer does when full: switch, fill or ring" },
	{ "bufresize", "manual: the buffer is never resized (the one choice)" },
	{ "bufsize", "bytes of the output buffer (-b)" },
	{ "cleanrate", "accepted: a dynamic variable is freed when assigned 0" },
	{ "core", "lift the core size limit, so that a crash of dtrace dumps core" },
	{ "cpp", "run the C preprocessor on scripts (-C)" },
	{ "cppargs", "arguments for the C preprocessor" },
	{ "cpphdrs", "print the headers the preprocessor includes (-H)" },
	{ "cpppath", "the C preprocessor to run" },
	{ "debug", "print the plugins' choices on stderr (where each probe was placed)" },
	{ "define", "define a preprocessor macro (-D)" },
	{ "defaultargs", "a macro argument not given reads as 0 (or \"\")" },
	{ "destructive", "allow destructive actions (-w)" },
	{ "droptags", "start each drop message with DTrace's tag of its kind" },
	{ "dynvarsize", "bytes of each dynamic variable's map (keys and values)" },
	{ "empty", "run even when no clause is left to enable" },
	{ "errtags", "start each compile error with its tag ([D_SYNTAX])" },
	{ "evaltime", "where a -c process waits for its probes: exec, preinit or postinit" },
	{ "execgate", "hold new programs at exec until their probes are placed: on or off" },
	{ "flowindent", "indent entry and return probes by call depth (-F)" },
	{ "help", "list the options, the plugins' with them (this list)" },
	{ "incdir", "a directory for the preprocessor's includes (-I)" },
	{ "late", "static: translators are chosen at compile time (the one choice)" },
	{ "libdir", "a directory of D libraries (-L)" },
	{ "linktype", "elf: -G writes an ELF object (the one choice)" },
	{ "maxframes", "the most frames a stack() or ustack() keeps" },
	{ "metrics", "serve the aggregations to Prometheus at http://[ADDR:]PORT/metrics (loopback when no ADDR)" },
	{ "nolibs", "read no D library" },
	{ "noresolve", "print user addresses unresolved, as module:0xoffset" },
	{ "nspec", "speculations that may be active at once" },
	{ "oformat", "the output format: text, json (JSON Lines), folded (stacks), flamegraph (SVG) or pprof (-o FILE)" },
	{ "plugindir", "load provider plugins from this directory too, first" },
	{ "procprobes", "probes the programs may make for registered processes not seen yet" },
	{ "quiet", "print only what the script traces (-q)" },
	{ "printsize", "bytes of an object that print() shows (8192)" },
	{ "rawbytes", "print traced data as bytes" },
	{ "setenv", "set a variable in the environment of -c commands (NAME=VALUE)" },
	{ "specsize", "bytes of records a speculation holds" },
	{ "stackframes", "frames of stack() when not told" },
	{ "stackindent", "columns before each frame of a printed stack" },
	{ "statusrate", "how often the session's status is read (time)" },
	{ "strsize", "characters a string holds" },
	{ "strip", "accepted: -G writes no D source into its object" },
	{ "syslibdir", "the installed directory of D libraries" },
	{ "switchrate", "how often the output buffer is read (time)" },
	{ "temporal", "accepted: records are always read in the order written" },
	{ "undef", "undefine a preprocessor macro (-U)" },
	{ "unsetenv", "remove a variable from the environment of -c commands" },
	{ "unwinder", "what unwinds ustack()'s copied stacks: libdw or libunwind" },
	{ "uprobe", "how uprobes are attached: multi or perf" },
	{ "ustackbytes", "bytes of user stack ustack() copies for unwinding" },
	{ "ustackframes", "frames of ustack() when not told" },
	{ "verbose", "report stability attributes and argument types (-v)" },
	{ "zdefs", "allow descriptions that match no probe (-Z)" },
};

static const char *option_help_of(const char *name)
{
	for (size_t i = 0; i < sizeof(option_help) / sizeof(*option_help); i++)
		if (strcmp(option_help[i].name, name) == 0)
			return option_help[i].help;
	return "";
}

/* maxframes' default, DTrace's: the kernel's bound on a stack it takes
 * (perf_event_max_stack), 127 where it cannot be read. */
static uint64_t kernel_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned long n = 0;

	if (f != NULL) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n >= 1 && n <= 1024 ? n : 127;
}

void dt_opt_defaults(dt_options_t *o)
{
	memset(o, 0, sizeof(*o));
	o->bufsize = 4 << 20;
	o->aggsize = 4 << 20;
	o->strsize = 256;
	o->switchrate = 1000000000ull;
	o->aggrate = 1000000000ull;
	o->statusrate = 1000000000ull;
	o->nspec = 1;
	o->specsize = 32 << 10;
	o->ustackframes = 100;
	o->stackframes = 20;
	o->maxframes = kernel_max_stack();
	o->stackindent = 14;
	o->printsize = DT_PRINTSIZE_DEFAULT;
	o->ustackbytes = 8192;
	o->procprobes = DT_INST_DEFAULT;
	o->aggsortpos = 0;
	o->aggsortkeypos = 0;
}

/* A boolean option's value, as DTrace reads it, in any case: none or
 * yes, true, on, enable(d), set, 1 sets it; no, false, off, disable(d),
 * unset, 0 unsets it; anything else is invalid (-1). */
static int parse_bool(const char *s, bool *v)
{
	static const char *const on[] = { "yes", "true", "on", "enable",
					  "enabled", "set", "1" };
	static const char *const off[] = { "no", "false", "off", "disable",
					   "disabled", "unset", "0" };

	if (s == NULL) {
		*v = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(on) / sizeof(*on); i++) {
		if (strcasecmp(s, on[i]) == 0 || strcasecmp(s, off[i]) == 0) {
			*v = strcasecmp(s, on[i]) == 0;
			return 0;
		}
	}
	return -1;
}

/*
 * The values each size option may take.  bufsize: the output ring buffer
 * is a power-of-two number of pages whose size the kernel takes in 32
 * bits (0, or less than a record, is taken, and refused when enabling,
 * as DTrace refuses it: dt_cg_check_space()); aggsize and dynvarsize: a map's memory, which the kernel bounds
 * at 4 GiB (0, dynvarsize's default, leaves each variable its usual
 * number of elements); strsize: a string lives on the BPF stack and in
 * map values.
 */
static const struct {
	size_t off;
	uint64_t min, max;
	const char *range;
} size_limits[] = {
	{ O(bufsize), 0, 1ull << 31, "at most 2g" },
	{ O(aggsize), 1, 1ull << 32, "between 1 and 4g" },
	{ O(dynvarsize), 0, 1ull << 32, "at most 4g" },
	{ O(strsize), 2, 4096, "between 2 and 4096" },
};

static int size_in_range(dtrace_hdl_t *dtp, const dt_optdesc_t *d,
			 const char *val, uint64_t v)
{
	for (size_t i = 0; i < sizeof(size_limits) / sizeof(*size_limits); i++) {
		if (size_limits[i].off != d->off)
			continue;
		if (v >= size_limits[i].min && v <= size_limits[i].max)
			return 0;
		dt_set_error(dtp, "failed to set option -x %s=%s: value must "
			     "be %s", d->name, val, size_limits[i].range);
		return -1;
	}
	return 0;
}

/*
 * An option of one value here (OPT_ONLY): that value is accepted, DTrace's
 * others are refused by name ("only bufresize=manual is supported"), any
 * other value is invalid (-1).
 */
static int opt_only(dtrace_hdl_t *dtp, const dt_optdesc_t *d, const char *val)
{
	size_t n = val != NULL ? strlen(val) : 0;

	if (val == NULL || n == 0)
		return -1;
	if (strcmp(val, d->why) == 0)
		return 0;
	for (const char *p = d->also; p != NULL && *p != '\0'; ) {
		size_t len = strcspn(p, "|");
		if (len == n && strncmp(p, val, n) == 0) {
			dt_set_error(dtp, "failed to set option -x %s=%s: only "
				     "%s=%s is supported", d->name, val, d->name,
				     d->why);
			return -2;
		}
		p += len + (p[len] == '|');
	}
	return -1;
}

/*
 * evaltime: where a -c process stops for its probes to be placed
 * (dt_evaltime_t, dt_proc.c): preinit, its libraries mapped and not
 * initialized; exec, right after its exec, and again once the loader
 * mapped its libraries; postinit, its entry point, the libraries
 * initialized.  DTrace's main (a stop at main(), whose symbol a stripped
 * program lacks) is refused by name.
 */
static int opt_evaltime(dtrace_hdl_t *dtp, const char *val)
{
	static const char *const names[] = {
		[DT_EVALTIME_PREINIT] = "preinit",
		[DT_EVALTIME_EXEC] = "exec",
		[DT_EVALTIME_POSTINIT] = "postinit",
	};

	if (val != NULL && strcmp(val, "main") == 0) {
		dt_set_error(dtp, "failed to set option -x evaltime=%s: only "
			     "evaltime=exec, preinit and postinit are "
			     "supported", val);
		return -2;
	}
	for (size_t i = 0; val != NULL && i < sizeof(names) / sizeof(*names);
	     i++) {
		if (strcmp(val, names[i]) == 0) {
			dtp->opt.evaltime = (int)i;
			return 0;
		}
	}
	return -1;
}

/* bufpolicy: switch (a record that finds the buffer full is dropped and
 * counted), fill or ring: see dt_consume.c and dt_cg.c. */
static int opt_bufpolicy(dtrace_hdl_t *dtp, const char *val)
{
	static const char *const names[] = {
		[DT_BUFPOLICY_SWITCH] = "switch",
		[DT_BUFPOLICY_FILL] = "fill",
		[DT_BUFPOLICY_RING] = "ring",
	};

	for (size_t i = 0; val != NULL && i < sizeof(names) / sizeof(*names);
	     i++)
		if (strcmp(val, names[i]) == 0) {
			dtp->opt.bufpolicy = (int)i;
			return 0;
		}
	return -1;
}

/*
 * core: dtrace dumps core when it exits, as DTrace's option asks (a way to
 * look at the consumer's state after a run).
 */
static void dump_core(void)
{
	static const char msg[] = "dtrace: forcing a core dump (-x core)\n";
	struct rlimit lim = { RLIM_INFINITY, RLIM_INFINITY };

	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)n;	/* the dump comes all the same */
	signal(SIGABRT, SIG_DFL);
	setrlimit(RLIMIT_CORE, &lim);
	abort();
}

static int opt_core(const char *val)
{
	static bool registered;

	if (val != NULL)
		return -1;
	if (!registered && atexit(dump_core) != 0)
		return -1;
	registered = true;
	return 0;
}

/* setenv=NAME=VALUE and unsetenv=NAME: the environment of the processes
 * -c starts (dt_proc.c). */
static int opt_env(dtrace_hdl_t *dtp, const char *name, const char *val)
{
	bool set = name[0] == 's';	/* setenv, else unsetenv */
	dt_options_t *o = &dtp->opt;

	/* setenv's value has a name and '=', unsetenv's a name alone */
	if (val == NULL || *val == '\0' || *val == '=' ||
	    (strchr(val, '=') != NULL) != set)
		return -1;
	o->env_edits = dt_realloc(o->env_edits, (o->nenv_edits + 1) *
				  sizeof(*o->env_edits));
	o->env_edits[o->nenv_edits++] = dt_strdup(val);
	return 0;
}

void dt_opt_add_cpp_arg(dtrace_hdl_t *dtp, const char *flag, const char *val)
{
	size_t len = strlen(flag) + strlen(val) + 1;
	char *s = dt_zalloc(len);

	snprintf(s, len, "%s%s", flag, val);
	dtp->opt.cpp_args = dt_realloc(dtp->opt.cpp_args,
		(dtp->opt.cpp_nargs + 1) * sizeof(char *));
	dtp->opt.cpp_args[dtp->opt.cpp_nargs++] = s;
}

/* define, undef and incdir: -D, -U and -I, as in DTrace. */
static int opt_cpp(dtrace_hdl_t *dtp, const char *name, const char *val)
{
	static const struct {
		const char *name, *flag;
	} cpp_opts[] = {
		{ "define", "-D" }, { "undef", "-U" }, { "incdir", "-I" },
	};

	for (size_t i = 0; i < sizeof(cpp_opts) / sizeof(*cpp_opts); i++) {
		if (strcmp(name, cpp_opts[i].name) != 0)
			continue;
		if (val == NULL || *val == '\0')
			return -1;
		dt_opt_add_cpp_arg(dtp, cpp_opts[i].flag, val);
		return 0;
	}
	return 1;	/* not one of them */
}

/* cppargs: more arguments of the preprocessor, split at blanks. */
static int opt_cppargs(dtrace_hdl_t *dtp, const char *val)
{
	if (val == NULL)
		return -1;
	char *copy = dt_strdup(val), *save = NULL;
	for (char *w = strtok_r(copy, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save))
		dt_opt_add_cpp_arg(dtp, w, "");
	free(copy);
	return 0;
}

/* -x plugindir names a directory that must exist: a typo refused here,
 * as DTrace refuses a bad option value, instead of a session that goes on
 * without its plugins and later says its probes match nothing. */
static bool plugindir_exists(dtrace_hdl_t *dtp, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0) {
		dt_set_error(dtp, "failed to set option -x plugindir=%s: %s",
			     dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		dt_set_error(dtp, "failed to set option -x plugindir=%s: %s",
			     dir, strerror(ENOTDIR));
		return false;
	}
	return true;
}

static int opt_special(dtrace_hdl_t *dtp, const char *name, const char *val)
{
	int rc = opt_cpp(dtp, name, val);

	if (rc <= 0)
		return rc;
	if (strcmp(name, "bufpolicy") == 0)
		return opt_bufpolicy(dtp, val);
	if (strcmp(name, "evaltime") == 0)
		return opt_evaltime(dtp, val);
	if (strcmp(name, "core") == 0)
		return opt_core(val);
	if (strcmp(name, "setenv") == 0 || strcmp(name, "unsetenv") == 0)
		return opt_env(dtp, name, val);
	if (strcmp(name, "cpphdrs") == 0) {
		if (val != NULL)
			return -1;
		dt_opt_add_cpp_arg(dtp, "-H", "");
		return 0;
	}
	if (strcmp(name, "cppargs") == 0)
		return opt_cppargs(dtp, val);
	if (strcmp(name, "syslibdir") == 0) {
		if (val == NULL || *val == '\0')
			return -1;
		free((char *)dtp->opt.syslibdir);
		dtp->opt.syslibdir = dt_strdup(val);
		return 0;
	}
	if (strcmp(name, "oformat") == 0) {
		int f = dt_oformat_by_name(val);
		if (f < 0)
			return -1;
		dtp->opt.oformat = f;
		dtp->opt.json = f == DT_OFORMAT_JSON;
		return 0;
	}
	if (strcmp(name, "uprobe") == 0) {
		if (val == NULL || (strcmp(val, "multi") && strcmp(val, "perf")))
			return -1;
		dtp->opt.uprobe_mech = dt_strdup(val);
		return 0;
	}
	if (strcmp(name, "unwinder") == 0) {
		if (val == NULL ||
		    (strcmp(val, "libdw") && strcmp(val, "libunwind")))
			return -1;
		dtp->opt.unwinder = strcmp(val, "libdw") == 0 ?
			DT_UNWINDER_LIBDW : DT_UNWINDER_LIBUNWIND;
		return 0;
	}
	if (strcmp(name, "execgate") == 0) {
		if (val == NULL || (strcmp(val, "on") && strcmp(val, "off")))
			return -1;
		dtp->opt.no_execgate = strcmp(val, "off") == 0;
		return 0;
	}
	if (strcmp(name, "libdir") == 0) {
		if (val == NULL || *val == '\0')
			return -1;
		dt_lib_add_dir(dtp, val);
		return 0;
	}
	if (strcmp(name, "plugindir") == 0) {
		if (val == NULL || *val == '\0')
			return -1;
		if (!plugindir_exists(dtp, val))
			return -2;
		int n = 0;
		while (dtp->plugin_dirs && dtp->plugin_dirs[n])
			n++;
		dtp->plugin_dirs = dt_realloc(dtp->plugin_dirs,
					      (n + 2) * sizeof(char *));
		dtp->plugin_dirs[n] = dt_strdup(val);
		dtp->plugin_dirs[n + 1] = NULL;
		return 0;
	}
	return -1;
}

int dt_opt_set(dtrace_hdl_t *dtp, const char *name, const char *val)
{
	const dt_optdesc_t *d = NULL;
	char *base = (char *)&dtp->opt;
	uint64_t v;

	/* PLUGIN.name: a provider plugin's own option. */
	if (strchr(name, '.') != NULL && name[0] != '.')
		return dt_provider_option(dtp, name, val);
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strcmp(options[i].name, name) == 0)
			d = &options[i];
	/* Else perhaps PLUGINname, a plugin's option without the dot
	 * (fbtmode), known once the plugins are loaded. */
	if (d == NULL)
		return dt_provider_option(dtp, name, val);

	int rc = 0;
	switch (d->kind) {
	case OPT_BOOL:
		rc = parse_bool(val, (bool *)(base + d->off));
		break;
	case OPT_SIZE:
		rc = val ? dt_parse_size(val, &v) : -1;
		if (rc == 0 && size_in_range(dtp, d, val, v) < 0)
			return -1;
		if (rc == 0 && d->off == O(printsize))
			v = dt_printsize_value(v);
		if (rc == 0)
			*(uint64_t *)(base + d->off) = v;
		break;
	case OPT_TIME:
		rc = val ? dt_parse_time(val, &v) : -1;
		if (rc == 0)
			*(uint64_t *)(base + d->off) = v;
		break;
	case OPT_INT: {
		char *end;
		rc = -1;
		if (val != NULL) {
			errno = 0;
			long long n = strtoll(val, &end, 0);
			if (errno == 0 && *end == '\0' && end != val) {
				*(int64_t *)(base + d->off) = n;
				rc = 0;
				if ((d->off == O(ustackframes) ||
				     d->off == O(stackframes) ||
				     d->off == O(maxframes)) &&
				    (n < 1 || n > 1024))
					rc = -1;	/* as ustack(n) */
				if (d->off == O(nspec) &&
				    (n < 1 || n > DT_NSPEC_MAX))
					rc = -1;
				if (d->off == O(procprobes) &&
				    (n < 0 || n > DT_INST_LIMIT))
					rc = -1;
				if (d->off == O(stackindent) &&
				    (n < 0 || n > 1024))
					rc = -1;
			}
		}
		break;
	}
	case OPT_STRING:
		rc = val ? 0 : -1;
		if (rc == 0)
			*(const char **)(base + d->off) = dt_strdup(val);
		break;
	case OPT_REFUSED:
		dt_set_error(dtp, "failed to set option -x %s: not supported "
			     "here: %s", name, d->why);
		return -1;
	case OPT_ONLY:
		rc = opt_only(dtp, d, val);
		if (rc == -2)
			return -1;	/* the error says why */
		break;
	case OPT_ALWAYS:
		rc = val ? -1 : 0;
		break;
	case OPT_SPECIAL:
		rc = opt_special(dtp, name, val);
		if (rc == -2)
			return -1;	/* the error says why */
		break;
	}
	if (rc < 0) {
		dt_set_error(dtp, "failed to set option -x %s%s%s: Invalid "
			     "value for specified option", name,
			     val ? "=" : "", val ? val : "");
		return -1;
	}
	return 0;
}

void dt_opt_fini(dt_options_t *o)
{
	free((char *)o->syslibdir);
	for (int i = 0; i < o->nenv_edits; i++)
		free(o->env_edits[i]);
	free(o->env_edits);
}

/* "name=value" or "name" as given to -x. */
int dt_opt_set_arg(dtrace_hdl_t *dtp, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (eq == NULL)
		return dt_opt_set(dtp, arg, NULL);
	char *name = dt_strdup(arg);
	name[eq - arg] = '\0';
	int rc = dt_opt_set(dtp, name, eq + 1);
	free(name);
	return rc;
}

/* dtrace -x help: every option name, the plugins' with what they do. */
void dt_opt_list(dtrace_hdl_t *dtp, FILE *fp)
{
	fprintf(fp, "Options (-x name[=value], #pragma D option):\n");
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (options[i].kind != OPT_REFUSED)
			fprintf(fp, "  %-24s %s\n", options[i].name,
				option_help_of(options[i].name));
	fprintf(fp, "Options of the provider plugins (-x plugin.name[=value]):"
		"\n");
	dt_provider_options_list(dtp, fp);
}

/* A refusal reads as DTrace's: the option, its value, and the reason
 * dt_opt_set() gave last in its message. */
void dt_opt_apply_pragmas(dt_pcb_t *pcb)
{
	for (dt_pragma_opt_t *o = pcb->prog->options; o; o = o->next) {
		if (dt_opt_set(pcb->dtp, o->name, o->value) == 0)
			continue;
		char why[sizeof(pcb->dtp->errmsg)];
		const char *colon = strrchr(pcb->dtp->errmsg, ':');
		snprintf(why, sizeof(why), "%s", colon != NULL ? colon + 2 :
			 pcb->dtp->errmsg);
		if (o->value == NULL)
			dt_pcb_error(pcb, D_PRAGMA_OPTSET, o->line, "failed to "
				     "set option '%s': %s", o->name, why);
		dt_pcb_error(pcb, D_PRAGMA_OPTSET, o->line, "failed to set "
			     "option '%s' to '%s': %s", o->name, o->value, why);
	}
}
