/* SPDX-License-Identifier: MIT */
/*
 * usdt_reg.c: the registration state files of dtprobed, read (by the usdt
 * plugin and by dtprobed at start) and written (by dtprobed).
 *
 * Format, version 1: text, one record per line, fields separated by one TAB,
 * no field holds a TAB, newline or backslash except the module path, which
 * is escaped (\t \n \\).  Numbers are decimal except addresses (0x hex).
 *
 *	dtprobed-state	1
 *	proc	PID	START_TIME
 *	reg	ID	PROVIDER	DEV	INO	0xBIAS	MODULE
 *	attr	I	NAME/NAME/CLASS			(0..4, optional)
 *	probe	NAME	NARGS	NXARGS
 *	native	I	TYPE				(NARGS lines)
 *	xlate	I	TYPE	MAPPING			(NXARGS lines)
 *	site	0xADDR	0xOFFSET	0xSEMA	0xSEMAOFF
 *
 * attr lines follow their reg; native, xlate and site lines follow their
 * probe.  The parser is total: any line it does not understand, any count or
 * index out of range, makes the whole file invalid (-EINVAL), never a crash;
 * dtprobed relies on that when it reads back what its sandboxed child made
 * of a message.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "usdt_reg.h"
#include "usdt_reg_impl.h"

static const char *env_or(const char *env, const char *def)
{
	const char *v = getenv(env);

	return v != NULL && *v != '\0' ? v : def;
}

const char *usdt_reg_statedir(void)
{
	return env_or(USDT_REG_STATEDIR_ENV, USDT_REG_STATEDIR_DEFAULT);
}

const char *usdt_reg_socket_path(void)
{
	return env_or(USDT_REG_SOCKET_ENV, USDT_REG_SOCKET_DEFAULT);
}

const char *usdt_reg_map_path(void)
{
	return env_or(USDT_REG_MAP_ENV, USDT_REG_MAP_DEFAULT);
}

int usdt_reg_stability(const char *name)
{
	static const char *const names[] = {
		"Internal", "Private", "Obsolete", "External",
		"Unstable", "Evolving", "Stable", "Standard",
	};

	for (int i = 0; name != NULL && i < 8; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static void reg_free_one(usdt_reg_t *r)
{
	for (int i = 0; i < r->nprobes; i++) {
		usdt_reg_probe_t *p = &r->probes[i];

		free(p->name);
		free(p->dname);
		for (int j = 0; j < USDT_REG_ARGS_MAX; j++) {
			free(p->native[j]);
			free(p->xlate[j]);
		}
		free(p->sites);
	}
	free(r->probes);
	free(r->provider);
	free(r->module);
	for (int i = 0; i < 5; i++)
		free(r->attrs[i]);
	free(r);
}

void usdt_reg_free(usdt_reg_t *list)
{
	while (list != NULL) {
		usdt_reg_t *next = list->next;

		reg_free_one(list);
		list = next;
	}
}

/* ---- parsing ---- */

#define REG_FIELDS_MAX	8

/* Split line (modified) at TABs; returns the number of fields or -1. */
static int reg_split(char *line, char **f)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p != '\0'; p++) {
		if (*p != '\t')
			continue;
		if (n == REG_FIELDS_MAX)
			return -1;
		*p = '\0';
		f[n++] = p + 1;
	}
	return n;
}

static int reg_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '\0' || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

static int reg_int(const char *s, int lo, int hi, int *v)
{
	uint64_t u;

	if (reg_u64(s, &u) != 0 || u < (uint64_t)lo || u > (uint64_t)hi)
		return -1;
	*v = (int)u;
	return 0;
}

/* A name or type: printable, no TAB, bounded. */
static char *reg_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 256)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)s[i]))
			return NULL;
	return strdup(s);
}

static char *reg_unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *p = out;

	if (out == NULL)
		return NULL;
	for (; *s != '\0'; s++) {
		if (*s != '\\') {
			*p++ = *s;
			continue;
		}
		s++;
		if (*s == 't')
			*p++ = '\t';
		else if (*s == 'n')
			*p++ = '\n';
		else if (*s == '\\')
			*p++ = '\\';
		else {
			free(out);
			return NULL;
		}
	}
	*p = '\0';
	return out;
}

static char *reg_dname(const char *name)
{
	char *out = malloc(strlen(name) + 1), *p = out;

	if (out == NULL)
		return NULL;
	while (*name != '\0') {
		if (name[0] == '_' && name[1] == '_') {
			*p++ = '-';
			name += 2;
		} else {
			*p++ = *name++;
		}
	}
	*p = '\0';
	return out;
}

typedef struct reg_parser {
	pid_t pid;
	uint64_t start;
	bool have_proc;
	usdt_reg_t *head, **tail, *cur;
	usdt_reg_probe_t *probe;
	int nnative, nxlate;
} reg_parser_t;

/*
 * Room for item n of *arr (items of size sz): the array doubles when n is a
 * power of two, so that reading is linear in the number of items (one
 * realloc() per item moved the array of a large provider again and again).
 * The capacity follows from n and needs no field of its own.
 */
static int reg_grow(void *arr, int n, size_t sz)
{
	void **ap = arr, *p;

	if ((n & (n - 1)) != 0)
		return 0;
	p = realloc(*ap, (n ? 2 * (size_t)n : 1) * sz);
	if (p == NULL)
		return -ENOMEM;
	*ap = p;
	return 0;
}

static int reg_line_reg(reg_parser_t *ps, char **f, int n)
{
	usdt_reg_t *r;

	if (n != 7 || !ps->have_proc)
		return -1;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	*ps->tail = r;
	ps->tail = &r->next;
	ps->cur = r;
	ps->probe = NULL;
	r->pid = ps->pid;
	r->start_time = ps->start;
	r->provider = reg_name(f[2]);
	r->module = reg_unescape(f[6]);
	if (reg_u64(f[1], &r->id) || reg_u64(f[3], &r->dev) ||
	    reg_u64(f[4], &r->ino) || reg_u64(f[5], &r->bias) ||
	    r->provider == NULL || r->module == NULL)
		return -1;
	return 0;
}

static int reg_line_probe(reg_parser_t *ps, char **f, int n)
{
	usdt_reg_t *r = ps->cur;
	usdt_reg_probe_t *p;

	if (n != 4 || r == NULL || r->nprobes >= 100000)
		return -1;
	if (ps->probe && (ps->nnative != ps->probe->nargs ||
			  ps->nxlate != ps->probe->nxargs))
		return -1;
	if (reg_grow(&r->probes, r->nprobes, sizeof(*p)) != 0)
		return -ENOMEM;
	p = &r->probes[r->nprobes++];
	memset(p, 0, sizeof(*p));
	ps->probe = p;
	ps->nnative = ps->nxlate = 0;
	p->name = reg_name(f[1]);
	p->dname = p->name ? reg_dname(p->name) : NULL;
	if (p->name == NULL || p->dname == NULL ||
	    reg_int(f[2], 0, USDT_REG_ARGS_MAX, &p->nargs) ||
	    reg_int(f[3], 0, USDT_REG_ARGS_MAX, &p->nxargs))
		return -1;
	return 0;
}

static int reg_line_arg(reg_parser_t *ps, char **f, int n, bool xlate)
{
	usdt_reg_probe_t *p = ps->probe;
	int i;

	if (p == NULL || n != (xlate ? 4 : 3) ||
	    reg_int(f[1], 0, USDT_REG_ARGS_MAX - 1, &i))
		return -1;
	if (xlate) {
		if (i != ps->nxlate || i >= p->nxargs ||
		    reg_int(f[3], 0, p->nargs ? p->nargs - 1 : 0,
			    &p->mapping[i]))
			return -1;
		p->xlate[i] = reg_name(f[2]);
		ps->nxlate++;
		return p->xlate[i] ? 0 : -1;
	}
	if (i != ps->nnative || i >= p->nargs)
		return -1;
	p->native[i] = reg_name(f[2]);
	ps->nnative++;
	return p->native[i] ? 0 : -1;
}

static int reg_line_site(reg_parser_t *ps, char **f, int n)
{
	usdt_reg_probe_t *p = ps->probe;
	usdt_reg_site_t *s;

	if (p == NULL || n != 5 || p->nsites >= 200000)
		return -1;
	if (reg_grow(&p->sites, p->nsites, sizeof(*s)) != 0)
		return -ENOMEM;
	s = &p->sites[p->nsites++];
	if (reg_u64(f[1], &s->addr) || reg_u64(f[2], &s->offset) ||
	    reg_u64(f[3], &s->sema_addr) || reg_u64(f[4], &s->sema_offset))
		return -1;
	return 0;
}

static int reg_line(reg_parser_t *ps, char *line, int lineno)
{
	char *f[REG_FIELDS_MAX];
	int n = reg_split(line, f), i;
	uint64_t v;

	if (n < 0)
		return -1;
	if (lineno == 1)
		return n == 2 && strcmp(f[0], "dtprobed-state") == 0 &&
			strcmp(f[1], "1") == 0 ? 0 : -1;
	if (strcmp(f[0], "proc") == 0) {
		if (n != 3 || ps->have_proc || reg_u64(f[1], &v) ||
		    v == 0 || v > 0x7fffffff || reg_u64(f[2], &ps->start))
			return -1;
		ps->pid = (pid_t)v;
		ps->have_proc = true;
		return 0;
	}
	if (strcmp(f[0], "reg") == 0)
		return reg_line_reg(ps, f, n);
	if (strcmp(f[0], "attr") == 0) {
		if (n != 3 || ps->cur == NULL || reg_int(f[1], 0, 4, &i) ||
		    ps->cur->attrs[i] != NULL)
			return -1;
		ps->cur->attrs[i] = reg_name(f[2]);
		return ps->cur->attrs[i] ? 0 : -1;
	}
	if (strcmp(f[0], "probe") == 0)
		return reg_line_probe(ps, f, n);
	if (strcmp(f[0], "native") == 0)
		return reg_line_arg(ps, f, n, false);
	if (strcmp(f[0], "xlate") == 0)
		return reg_line_arg(ps, f, n, true);
	if (strcmp(f[0], "site") == 0)
		return reg_line_site(ps, f, n);
	return -1;
}

int usdt_reg_parse(const char *text, size_t len, usdt_reg_t **out)
{
	reg_parser_t ps = { 0 };
	char *buf, *line, *save = NULL;
	int lineno = 0, rc = 0;

	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return -EINVAL;
	buf = malloc(len + 1);
	if (buf == NULL)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\0';
	ps.tail = &ps.head;
	for (line = strtok_r(buf, "\n", &save); line && rc == 0;
	     line = strtok_r(NULL, "\n", &save))
		rc = reg_line(&ps, line, ++lineno);
	if (rc == 0 && ps.probe && (ps.nnative != ps.probe->nargs ||
				    ps.nxlate != ps.probe->nxargs))
		rc = -1;
	if (rc == 0 && lineno == 0)
		rc = -1;
	free(buf);
	if (rc != 0) {
		usdt_reg_free(ps.head);
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	*out = ps.head;
	return 0;
}

/* ---- writing ---- */

static void reg_write_escaped(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
}

void usdt_reg_write(FILE *f, const usdt_reg_t *list)
{
	fprintf(f, "dtprobed-state\t1\n");
	if (list == NULL)
		return;
	fprintf(f, "proc\t%d\t%" PRIu64 "\n", (int)list->pid, list->start_time);
	for (const usdt_reg_t *r = list; r != NULL; r = r->next) {
		fprintf(f, "reg\t%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64
			"\t0x%" PRIx64 "\t", r->id, r->provider, r->dev, r->ino,
			r->bias);
		reg_write_escaped(f, r->module ? r->module : "");
		fputc('\n', f);
		for (int i = 0; i < 5; i++)
			if (r->attrs[i] != NULL)
				fprintf(f, "attr\t%d\t%s\n", i, r->attrs[i]);
		for (int i = 0; i < r->nprobes; i++) {
			const usdt_reg_probe_t *p = &r->probes[i];

			fprintf(f, "probe\t%s\t%d\t%d\n", p->name, p->nargs,
				p->nxargs);
			for (int j = 0; j < p->nargs; j++)
				fprintf(f, "native\t%d\t%s\n", j, p->native[j]);
			for (int j = 0; j < p->nxargs; j++)
				fprintf(f, "xlate\t%d\t%s\t%d\n", j, p->xlate[j],
					p->mapping[j]);
			for (int j = 0; j < p->nsites; j++)
				fprintf(f, "site\t0x%" PRIx64 "\t0x%" PRIx64
					"\t0x%" PRIx64 "\t0x%" PRIx64 "\n",
					p->sites[j].addr, p->sites[j].offset,
					p->sites[j].sema_addr,
					p->sites[j].sema_offset);
		}
	}
}

/* ---- reading the directory ---- */

/* The whole of f, whose size is told first, so that a file past
 * USDT_REG_FILE_MAX is refused unread; 0 with *buf (NUL-terminated) and
 * *len, or a negative errno. */
static int reg_slurp(FILE *f, char **buf, size_t *len)
{
	struct stat sb;
	size_t cap, n;

	if (fstat(fileno(f), &sb) != 0)
		return -errno;
	if (sb.st_size > (off_t)USDT_REG_FILE_MAX)
		return -EFBIG;
	/* One byte more than told, to see a file that grew meanwhile. */
	cap = (size_t)sb.st_size + 2;
	*buf = malloc(cap);
	if (*buf == NULL)
		return -ENOMEM;
	*len = 0;
	while ((n = fread(*buf + *len, 1, cap - 1 - *len, f)) > 0)
		*len += n;
	(*buf)[*len] = '\0';
	if (*len == cap - 1) {
		free(*buf);
		*buf = NULL;
		return -EAGAIN;	/* rewritten while read: the caller skips it */
	}
	return 0;
}

static int reg_read_file(const char *path, usdt_reg_t **out)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (f == NULL)
		return errno == ENOENT ? 0 : -errno;
	rc = reg_slurp(f, &buf, &len);
	fclose(f);
	if (rc == 0)
		rc = usdt_reg_parse(buf, len, out);
	free(buf);
	return rc;
}

static bool reg_is_pid_name(const char *s)
{
	if (*s == '\0' || strlen(s) > 10)
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int reg_cmp_pid(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int usdt_reg_read_pid(const char *statedir, pid_t pid, usdt_reg_t **out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%d",
		 statedir ? statedir : usdt_reg_statedir(), (int)pid);
	return reg_read_file(path, out);
}

int usdt_reg_read_all(const char *statedir, usdt_reg_t **out)
{
	DIR *d;
	struct dirent *de;
	long *pids = NULL;
	size_t n = 0, cap = 0;
	usdt_reg_t **tail = out;

	*out = NULL;
	if (statedir == NULL)
		statedir = usdt_reg_statedir();
	d = opendir(statedir);
	if (d == NULL)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		if (!reg_is_pid_name(de->d_name))
			continue;
		if (n == cap) {
			long *np = realloc(pids, (cap = cap * 2 + 64) * sizeof(*np));

			if (np == NULL)
				break;
			pids = np;
		}
		pids[n++] = atol(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(pids, n, sizeof(*pids), reg_cmp_pid);
	for (size_t i = 0; i < n; i++) {
		usdt_reg_t *l = NULL;

		if (usdt_reg_read_pid(statedir, (pid_t)pids[i], &l) != 0)
			continue;	/* damaged or vanished: skipped */
		*tail = l;
		while (*tail != NULL)
			tail = &(*tail)->next;
	}
	free(pids);
	return 0;
}
