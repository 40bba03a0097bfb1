/* SPDX-License-Identifier: MIT */
/*
 * dt_printf.c: D's printf() run over the values the consumer decoded from
 * its record (dt_output.h); its format was parsed and checked when the
 * clause compiled (dt_format.c).  printa() with a format runs it once per
 * row, over the row's key and the aggregations' values (%@).
 *
 * The format's syntax and what each conversion accepts are described in
 * dt_format.c.
 *
 * Invariants: the checker and the runner parse with the same function
 * (pf_parse), so a format the checker accepted never surprises the runner;
 * the runner never reads outside the record data it is given.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netdb.h>

#include "dt_output.h"
#include "dt_ksyms.h"

/* --- run time --- */

typedef struct pf_run {
	dtrace_hdl_t *dtp;
	FILE *out;
	const dt_value_t *vals;
	int nvals, vi;
	const dt_pfagg_t *aggs;
	int naggs, ai;
	char err[256];
} pf_run_t;

/* An integer record's value, sign- or zero-extended from its size. */
static uint64_t pf_int(const dt_value_t *val, bool is_signed)
{
	const dt_recdesc_t *rec = val->rec;
	const uint8_t *p = val->p;

	switch (rec->size) {
	case 1: {
		uint8_t v = p[0];
		return is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v = 0;
		memcpy(&v, p, rec->size < 8 ? rec->size : 8);
		return v;
	}
	}
}

/* Build the C format of a conversion, widths resolved, "ll" for ints. */
static void pf_cfmt(char *buf, size_t len, const pf_spec_t *sp, int width,
		    int prec, const char *lenmod, char conv)
{
	int n = snprintf(buf, len, "%%%s", sp->flags);

	if (width >= 0)
		n += snprintf(buf + n, len - n, "%d", width);
	if (prec >= 0)
		n += snprintf(buf + n, len - n, ".%d", prec);
	snprintf(buf + n, len - n, "%s%c", lenmod, conv);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void pf_out_int(FILE *out, const char *cfmt, uint64_t v)
{
	fprintf(out, cfmt, (unsigned long long)v);
}

static void pf_out_str(FILE *out, const char *cfmt, const char *s)
{
	fprintf(out, cfmt, s);
}

static void pf_out_char(FILE *out, const char *cfmt, int c)
{
	fprintf(out, cfmt, c);
}

static void pf_out_float(FILE *out, const char *cfmt, long double v)
{
	fprintf(out, cfmt, v);
}
#pragma GCC diagnostic pop

/* Take the next value, or fail with a message. */
static const dt_value_t *pf_next_val(pf_run_t *r, int convno)
{
	if (r->vi >= r->nvals) {
		snprintf(r->err, sizeof(r->err), "printf( ) conversion #%d "
			 "has no recorded argument", convno);
		return NULL;
	}
	return &r->vals[r->vi++];
}

static int pf_dyn(pf_run_t *r, int convno, int *v)
{
	const dt_value_t *val = pf_next_val(r, convno);

	if (val == NULL)
		return -1;
	if (val->rec->kind != DT_RK_INT) {
		snprintf(r->err, sizeof(r->err), "printf( ) conversion #%d: "
			 "'*' argument is not an integer", convno);
		return -1;
	}
	*v = (int)(int64_t)pf_int(val, true);
	return 0;
}

/* Escape a string as %S prints it. */
static char *pf_escape(const char *s, size_t n)
{
	char *buf = malloc(n * 4 + 1), *q = buf;
	size_t i;

	if (buf == NULL)
		return NULL;
	for (i = 0; i < n && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;

		switch (c) {
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		case '\\': esc = "\\\\"; break;
		case '"': esc = "\\\""; break;
		default: break;
		}
		if (esc != NULL) {
			strcpy(q, esc);
			q += strlen(esc);
		} else if (isprint(c)) {
			*q++ = (char)c;
		} else {
			q += sprintf(q, "\\%03o", c);
		}
	}
	*q = '\0';
	return buf;
}

/* %T: a time in ns as RFC 822 writes a date, in local time. */
static void pf_time822(char *buf, size_t len, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (localtime_r(&sec, &tm) == NULL ||
	    strftime(buf, len, "%a, %d %b %G %T %Z", &tm) == 0)
		snprintf(buf, len, "%" PRIu64, ns);
}

/* The value of an integer conversion: cut to a short by h, to a char by
 * hh, sign-extended when signed. */
static uint64_t pf_len_cut(const pf_spec_t *sp, uint64_t v, bool is_signed)
{
	if (strcmp(sp->len, "hh") == 0)
		return is_signed ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	if (strcmp(sp->len, "h") == 0)
		return is_signed ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	return v;
}

void dt_printf_walltime(char *buf, size_t len, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (localtime_r(&sec, &tm) == NULL ||
	    strftime(buf, len, "%Y %b %e %T", &tm) == 0)
		snprintf(buf, len, "%" PRIu64, ns);
}

/* The value an aggregation shows through %@. */
static uint64_t pf_aggval(const dt_pfagg_t *a, bool *is_signed);

/* Print a conversion whose value is a string. */
static int pf_emit_str(pf_run_t *r, const pf_spec_t *sp, int width, int prec,
		       const char *s, size_t n)
{
	char cfmt[64];
	char *copy = strndup(s, n);

	if (copy == NULL)
		return -1;
	if (sp->conv == 'S') {
		char *esc = pf_escape(copy, n);

		free(copy);
		if (esc == NULL)
			return -1;
		copy = esc;
	}
	pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "", 's');
	pf_out_str(r->out, cfmt, copy);
	free(copy);
	return 0;
}

/* %I: the host name of the IPv4 or IPv6 address that s writes, when the
 * system's resolver knows one; else s itself, as DTrace prints it. */
static int pf_emit_host(pf_run_t *r, const pf_spec_t *sp, int width,
			int prec, const char *s, size_t n)
{
	char addr[64], host[NI_MAXHOST];
	struct sockaddr_in in4 = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	const struct sockaddr *sa = NULL;
	socklen_t salen = 0;

	snprintf(addr, sizeof(addr), "%.*s", (int)strnlen(s, n), s);
	if (inet_pton(AF_INET, addr, &in4.sin_addr) == 1) {
		sa = (const struct sockaddr *)&in4;
		salen = sizeof(in4);
	} else if (inet_pton(AF_INET6, addr, &in6.sin6_addr) == 1) {
		sa = (const struct sockaddr *)&in6;
		salen = sizeof(in6);
	}
	if (sa != NULL && getnameinfo(sa, salen, host, sizeof(host), NULL, 0,
				      NI_NAMEREQD) == 0)
		return pf_emit_str(r, sp, width, prec, host, strlen(host));
	return pf_emit_str(r, sp, width, prec, s, n);
}

/* %P: the service name of a port (in host byte order), else its number,
 * as DTrace prints it. */
static int pf_emit_port(pf_run_t *r, const pf_spec_t *sp, int width,
			int prec, uint16_t port)
{
	char name[64];
	struct servent se, *res = NULL;
	char buf[1024];

	if (getservbyport_r(htons(port), NULL, &se, buf, sizeof(buf),
			    &res) == 0 && res != NULL)
		snprintf(name, sizeof(name), "%s", res->s_name);
	else
		snprintf(name, sizeof(name), "%u", port);
	return pf_emit_str(r, sp, width, prec, name, strlen(name));
}

/* %e %E %f %g %G: a float, double or long double, whichever the argument
 * is (the length modifier is not asked for). */
static int pf_emit_float(pf_run_t *r, const pf_spec_t *sp, int convno,
			 int width, int prec, const dt_value_t *val)
{
	char cfmt[64];
	long double v;

	if ((val->rec->kind != DT_RK_INT && val->rec->kind != DT_RK_MEM) ||
	    !dt_type_float_value(val->rec->type, val->p, &v)) {
		snprintf(r->err, sizeof(r->err), "printf( ) conversion #%d "
			 "(%%%c) needs a floating-point argument", convno,
			 sp->conv);
		return -1;
	}
	pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "L", sp->conv);
	pf_out_float(r->out, cfmt, v);
	return 0;
}

/* Print one value conversion (not %%). */
static int pf_emit(pf_run_t *r, const pf_spec_t *sp, int convno, int width,
		   int prec)
{
	pf_class_t cls = pf_class(sp->conv);
	const dt_recdesc_t *rec;
	const dt_value_t *val;
	char cfmt[64], tmp[64];
	bool is_signed;
	uint64_t v;

	if (sp->agg) {
		const dt_pfagg_t *a;

		if (r->naggs == 0) {
			snprintf(r->err, sizeof(r->err), "printf( ) %%@ "
				 "conversion #%d without an aggregation",
				 convno);
			return -1;
		}
		a = &r->aggs[r->ai < r->naggs ? r->ai : r->naggs - 1];
		r->ai++;
		if (a->desc->func == DT_AGG_QUANTIZE ||
		    a->desc->func == DT_AGG_LQUANTIZE ||
		    a->desc->func == DT_AGG_LLQUANTIZE) {
			return dt_agg_print_value(r->out, a->desc, a->val,
						  a->normal);
		}
		v = pf_aggval(a, &is_signed);
		if (sp->conv == 'd' || sp->conv == 'i')
			pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "ll",
				is_signed ? 'd' : 'u');
		else
			pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec,
				sp->conv == 'c' ? "" : "ll", sp->conv);
		if (sp->conv == 'c')
			pf_out_char(r->out, cfmt, (int)(int64_t)v);
		else
			pf_out_int(r->out, cfmt, v);
		return 0;
	}

	val = pf_next_val(r, convno);
	if (val == NULL)
		return -1;
	rec = val->rec;
	if (cls == PF_FLOAT)
		return pf_emit_float(r, sp, convno, width, prec, val);
	if (cls == PF_STR) {
		if (rec->kind == DT_RK_INT) {
			snprintf(r->err, sizeof(r->err), "printf( ) "
				 "conversion #%d (%%%c) got an integer",
				 convno, sp->conv);
			return -1;
		}
		if (sp->conv == 'I')
			return pf_emit_host(r, sp, width, prec,
					    (const char *)val->p, rec->size);
		return pf_emit_str(r, sp, width, prec, (const char *)val->p,
				   rec->size);
	}
	if (sp->conv == 'k' && (rec->kind == DT_RK_USTACK ||
				rec->kind == DT_RK_KSTACK)) {
		/* as trace() prints it, width and precision ignored */
		dt_text_stack(r->dtp, r->out, val);
		return 0;
	}
	if (rec->kind == DT_RK_UADDR && (sp->conv == 'a' || sp->conv == 'A' ||
					 sp->conv == 's')) {
		const char *sym = val->usym != NULL ? val->usym : "";

		return pf_emit_str(r, sp, width, prec, sym, strlen(sym));
	}
	dt_recdesc_t addr = { .kind = DT_RK_INT, .size = 8 };
	dt_value_t addrval = { .rec = &addr };
	if (rec->kind == DT_RK_UADDR) {	/* another conversion: the address */
		addrval.p = val->p + 8;
		val = &addrval;
		rec = &addr;
	}
	if (rec->kind != DT_RK_INT) {
		snprintf(r->err, sizeof(r->err), "printf( ) conversion #%d "
			 "(%%%c) needs an integer argument", convno, sp->conv);
		return -1;
	}
	switch (sp->conv) {
	case 'd':
	case 'i':
		is_signed = rec->is_signed || sp->len[0] == 'h';
		v = pf_len_cut(sp, pf_int(val, is_signed), is_signed);
		pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "ll",
			is_signed ? 'd' : 'u');
		pf_out_int(r->out, cfmt, v);
		return 0;
	case 'c':
		v = pf_int(val, true);
		pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "", 'c');
		pf_out_char(r->out, cfmt, (int)(int64_t)v);
		return 0;
	case 'C': {
		char c = (char)pf_int(val, true);
		pf_spec_t str = *sp;

		str.conv = 'S';		/* escaped as %S escapes */
		return pf_emit_str(r, &str, width, prec, &c, 1);
	}
	case 'p':
		v = pf_int(val, false);
		pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "ll", 'x');
		pf_out_int(r->out, cfmt, v);
		return 0;
	case 'a':
	case 'A':
		/* recorded without the pid (printa keys): the address, a
		 * kernel one (caller) by its symbol */
		v = pf_int(val, false);
		if (r->dtp != NULL && dt_ksym_is_kernel(v))
			dt_ksym_format(r->dtp, v, tmp, sizeof(tmp));
		else
			snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);
		return pf_emit_str(r, sp, width, prec, tmp, strlen(tmp));
	case 'Y':
	case 'T':
		v = pf_int(val, false);
		if (sp->conv == 'T')
			pf_time822(tmp, sizeof(tmp), v);
		else
			dt_printf_walltime(tmp, sizeof(tmp), v);
		return pf_emit_str(r, sp, width, prec, tmp, strlen(tmp));
	case 'P':
		return pf_emit_port(r, sp, width, prec,
				    (uint16_t)pf_int(val, false));
	case 'k':
		snprintf(r->err, sizeof(r->err), "printf( ) %%k needs a "
			 "stack( ) or ustack( ) argument");
		return -1;
	default:	/* u o x X */
		v = pf_len_cut(sp, pf_int(val, false), false);
		pf_cfmt(cfmt, sizeof(cfmt), sp, width, prec, "ll", sp->conv);
		pf_out_int(r->out, cfmt, v);
		return 0;
	}
}

int dt_printf_values(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		     const dt_value_t *vals, int nvals,
		     const dt_pfagg_t *aggs, int naggs)
{
	pf_run_t r = { .dtp = dtp, .out = out, .vals = vals, .nvals = nvals,
		       .aggs = aggs, .naggs = naggs };
	const char *p = fmt;
	int convno = 0;

	while (*p != '\0') {
		const char *pct = strchr(p, '%');
		pf_spec_t sp;
		int width, prec;

		if (pct == NULL) {
			fputs(p, out);
			break;
		}
		fwrite(p, 1, (size_t)(pct - p), out);
		convno++;
		if (pf_parse(pct, convno, &sp, r.err, sizeof(r.err)) != 0)
			goto fail;
		p = sp.end;
		if (sp.conv == '%') {
			fputc('%', out);
			continue;
		}
		width = sp.width;
		prec = sp.prec;
		if (sp.dynwidth && pf_dyn(&r, convno, &width) != 0)
			goto fail;
		if (sp.dynprec && pf_dyn(&r, convno, &prec) != 0)
			goto fail;
		if (width < -1) {	/* a negative '*' width: left-justify */
			pf_addflag(&sp, '-');
			width = -width;
		}
		if (prec < -1)
			prec = -1;
		if (pf_emit(&r, &sp, convno, width, prec) != 0)
			goto fail;
	}
	return 0;
fail:
	if (dtp != NULL)
		dt_set_error(dtp, "%s", r.err);
	return -1;
}

int dt_printf_rows(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		   const dt_outagg_t *agg)
{
	int n = agg->naggs, err = 0;
	dt_pfagg_t *pa = dt_zalloc(sizeof(*pa) * (size_t)n);
	/* what an aggregation without the row's key shows: its initial
	 * value, one for each (a row may miss several) */
	int64_t **init = dt_zalloc(sizeof(*init) * (size_t)n);

	for (int a = 0; a < n; a++) {
		init[a] = dt_zalloc(dt_agg_nwords(agg->descs[a]) * 8);
		dt_agg_init_val(agg->descs[a], init[a]);
	}
	for (size_t i = 0; i < agg->nrows && err == 0; i++) {
		const dt_outrow_t *row = &agg->rows[i];

		for (int a = 0; a < n; a++) {
			pa[a].desc = agg->descs[a];
			pa[a].normal = agg->normals[a];
			pa[a].val = row->cells[a].val ? row->cells[a].val
						      : init[a];
		}
		err = dt_printf_values(dtp, out, fmt, row->keys,
				       agg->descs[0]->nkeys, pa, n);
	}
	for (int a = 0; a < n; a++)
		free(init[a]);
	free(init);
	free(pa);
	return err;
}

/* --- aggregation values for %@ --- */

static uint64_t pf_aggval(const dt_pfagg_t *a, bool *is_signed)
{
	const int64_t *v = a->val;
	int64_t normal = a->normal ? (int64_t)a->normal : 1;

	*is_signed = true;
	switch (a->desc->func) {
	case DT_AGG_COUNT:
		*is_signed = false;
		return (uint64_t)v[0] / (uint64_t)normal;
	case DT_AGG_AVG:
		return v[0] ? (uint64_t)(v[1] / normal / v[0]) : 0;
	case DT_AGG_STDDEV:
		*is_signed = false;
		return dt_agg_stddev(v, (uint64_t)normal);
	default:
		return (uint64_t)(v[0] / normal);
	}
}
