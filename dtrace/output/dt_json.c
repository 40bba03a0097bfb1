/* SPDX-License-Identifier: MIT */
/*
 * dt_json.c: machine-readable output, -x oformat=json.
 *
 * Instead of DTrace's text, the consumer writes one JSON object per line
 * (JSON Lines) on the output (stdout, or the -o file): one per output
 * record, per fault, per drop report and per aggregation snapshot.  No
 * heading, probe line or final blank line is printed, and -q changes
 * nothing: every record is one line.  Messages on stderr are unchanged.
 *
 * Values.  Integers are JSON numbers, exact: a signed type prints as a
 * signed 64-bit value, an unsigned one as an unsigned 64-bit value (up to
 * 18446744073709551615; readers that keep numbers in doubles lose
 * precision above 2^53, Python's json does not).  A float, double or long
 * double is a JSON number with the digits that give its value back (9, 17
 * and 21 significant digits), or the string "nan", "inf" or "-inf", which
 * JSON has no number for.  Strings are JSON strings
 * of the bytes up to the first NUL: '"', '\' and control characters
 * (below 0x20, and 0x7f) are escaped (\n, \t, ... or \u00XX); a byte that
 * is not part of valid UTF-8 (overlong forms and surrogates included)
 * becomes U+FFFD, written "\ufffd".  Raw memory (tracemem, non-string
 * data) is a string of lowercase hex digits, two per byte.  A stack is an
 * array of its frames, innermost first, each {"address", "module",
 * "symbol", "offset"} (module, symbol and offset from the symbol as far
 * as they are known: a kernel frame's module is "vmlinux" or the kernel
 * module's name, from kallsyms).  A ufunc(), usym(),
 * umod() or uaddr() value, and a printf %a or %A argument, is {"pid",
 * the fields of a user frame, "value": the text DTrace prints}.
 *
 * Objects and their fields:
 *
 *   {"type":"probe", ...}	one output record (a clause fired)
 *     cpu		CPU the probe fired on
 *     id		the probe's id (the ID column of the text output)
 *     clause		index of the clause in the program, from 0
 *     probe		{"provider","module","function","name"}: strings
 *     actions		array, in program order, of the actions that ran
 *			and recorded something; each has "action" (its
 *			name) and:
 *       trace		  "value": number or string; or "bytes" (hex) for
 *			  raw data; or "stack" (array) and, for user
 *			  stacks, "pid".  A string that was not valid
 *			  UTF-8 also has "bytes": the exact bytes in hex.
 *       printf		  "format", "output" (the text printf makes),
 *			  "args" (the values of the arguments, as above)
 *       printa		  "aggregations" (names), "format" and "output"
 *			  when a format was given; the snapshots follow
 *			  the record, one "aggregation" line each
 *       print		  as trace, and "type" (its name) and, for a
 *			  struct with char * members, "strings": {"member"
 *			  or "outer.member": the string it pointed to}, for
 *			  those read when the probe fired
 *       exit		  "status"
 *       tracemem, printm "bytes" (hex)
 *       stack, ustack	  "stack" (array of frames), ustack also "pid"
 *       ufunc, usym,	  "pid", "address", "module", "symbol", "offset",
 *       umod, uaddr	  "value" (as above)
 *       system		  "command", "output" (what it wrote on its
 *			  standard output, captured), "status" (exit status,
 *			  -1 when it could not run or was killed)
 *       clear, denormalize	"aggregations" (names)
 *       trunc		  "aggregations", "count" (absent: all removed)
 *       normalize	  "aggregations", "factor"
 *       setopt		  "option", "value" (string, absent when none)
 *       freopen	  "file" ("" returns to the original output)
 *       ftruncate	  no other field
 *     (raise() and stop() act in BPF and record nothing.)
 *
 *   {"type":"aggregation", ...}	one aggregation snapshot
 *     trigger		"printa" (printed by printa()) or "exit" (printed at
 *			the end because the program did not print it)
 *     name		the name without '@' ("" for the anonymous @)
 *     function		"count", "sum", "avg", "min", "max", "stddev",
 *			"quantize", "lquantize", "llquantize"
 *     normal		the normalize() factor, only when not 1; every
 *			value and count below is already divided by it
 *     data		array of entries in the order the text output
 *			prints them (the aggsort* options apply):
 *       keys		  array of the key's values, as above
 *       value		  count, sum, min, max; avg and stddev (integer,
 *			  as the text prints them)
 *       count, sum	  avg and stddev only: the number of values and
 *			  their sum, for an exact mean
 *       count		  min and max: the number of values recorded
 *			  (0: none, after clear(); value is then 0)
 *       buckets	  quantize, lquantize, llquantize: the non-empty
 *			  buckets, ascending, each {"min","max","count"} with
 *			  inclusive bounds (the lowest bucket starts at
 *			  -9223372036854775808, the highest ends at
 *			  9223372036854775807)
 *       percpu	  -x aggpercpu only: array, in CPU order, of the
 *			  CPUs that recorded something in the entry, each
 *			  {"cpu": N} plus that CPU's own value fields as
 *			  above (value/count/sum or buckets)
 *
 *   {"type":"error", ...}	a run-time fault; the usual message is also
 *				printed on stderr and tracing goes on
 *     cpu, id, clause, probe	as for "probe"
 *     fault		DTrace's name of it, e.g. "invalid address"
 *     address		faulting address, for faults that have one
 *     action		1-based index of the action; 0: the predicate
 *     pc		the BPF instruction
 *     message		the text printed on stderr, without "dtrace: "
 *
 *   {"type":"drop", ...}	data was lost; also reported on stderr
 *     kind		"buffer" (output records), "aggregation" (a full
 *			aggregation buffer), "dynamic" (dynamic variables),
 *			"return" (return probe firings the kernel omitted)
 *     cpu		the CPU; absent for "dynamic" and "return"
 *     count		how many since the last report
 *
 * Invariants: every line is one complete JSON object, written with one
 * fwrite after it was built in memory, so that an action's failure or an
 * aggregation snapshot taken mid-record never leaves half an object.  The
 * values come decoded from the consumer (dt_output.h): a user frame's
 * module and symbol are what the consumer looked up.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "dt_output.h"

/* --- strings --- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_seqlen(const uint8_t *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void json_char(FILE *out, uint8_t c)
{
	switch (c) {
	case '"':	fputs("\\\"", out); return;
	case '\\':	fputs("\\\\", out); return;
	case '\b':	fputs("\\b", out); return;
	case '\f':	fputs("\\f", out); return;
	case '\n':	fputs("\\n", out); return;
	case '\r':	fputs("\\r", out); return;
	case '\t':	fputs("\\t", out); return;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
		return;
	}
}

bool dt_json_string(FILE *out, const void *s, size_t n)
{
	const uint8_t *p = s;
	bool valid = true;
	size_t i = 0, len;

	fputc('"', out);
	while (i < n) {
		len = utf8_seqlen(p + i, n - i);
		if (len == 0) {
			fputs("\\ufffd", out);
			valid = false;
			i++;
		} else if (len == 1) {
			json_char(out, p[i++]);
		} else {
			fwrite(p + i, 1, len, out);
			i += len;
		}
	}
	fputc('"', out);
	return valid;
}

bool dt_json_cstring(FILE *out, const void *s, size_t size)
{
	const char *nul = memchr(s, '\0', size);

	return dt_json_string(out, s, nul ? (size_t)(nul - (const char *)s)
					  : size);
}

void dt_json_hex(FILE *out, const void *p, size_t n)
{
	const uint8_t *b = p;

	fputc('"', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", b[i]);
	fputc('"', out);
}

/* "name": with the separator before it unless it is the first field. */
static void json_key(FILE *out, const char *name)
{
	fprintf(out, ",\"%s\":", name);
}

/* A C string (NULL: ""). */
static void json_str(FILE *out, const char *s)
{
	dt_json_string(out, s ? s : "", s ? strlen(s) : 0);
}

static void json_key_str(FILE *out, const char *name, const char *s)
{
	json_key(out, name);
	json_str(out, s);
}

/* --- values --- */

/* print(): one "path":"string" of a char * member's string. */
struct json_strings {
	FILE *out;
	int n;
};

static void json_member_string(void *arg, const char *path, const uint8_t *s,
			       size_t n)
{
	struct json_strings *js = arg;

	fputs(js->n++ > 0 ? "," : ",\"strings\":{", js->out);
	json_str(js->out, path);
	fputc(':', js->out);
	dt_json_cstring(js->out, s, n);
}

static void json_trace_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_value_t *v);

/* print(): the value as trace() gives it, the type's name, and the
 * strings of a struct's char * members, which the text form prints. */
static void json_print_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_outact_t *a)
{
	const dt_recdesc_t *r0 = &a->desc->recs[0];
	struct json_strings js = { out, 0 };

	json_trace_fields(dtp, out, &a->vals[0]);
	if (r0->type != NULL && r0->type->name != NULL)
		json_key_str(out, "type", r0->type->name);
	dt_print_strings(a->desc, a->data, json_member_string, &js);
	if (js.n > 0)
		fputc('}', out);
}

static void json_rec_int(FILE *out, const dt_recdesc_t *rec, const uint8_t *p)
{
	int64_t v = dt_rec_int(rec, p);

	/* dt_rec_int() zero-extends unsigned types: the bits are exact */
	if (rec->is_signed)
		fprintf(out, "%" PRId64, v);
	else
		fprintf(out, "%" PRIu64, (uint64_t)v);
}

/* What a user or kernel address is: "address", and "module", "symbol" and
 * "offset" (from the symbol) as far as they are known. */
static void json_upc_fields(dtrace_hdl_t *dtp, FILE *out, const dt_upc_t *u)
{
	fprintf(out, "\"address\":%" PRIu64, u->pc);
	if (dtp == NULL || !u->found)
		return;
	json_key_str(out, "module", u->module);
	if (u->symbol != NULL && !dtp->opt.noresolve) {
		json_key_str(out, "symbol", u->symbol);
		fprintf(out, ",\"offset\":%" PRIu64, u->offset);
	}
}

/* A stack as an array, innermost first: each frame, kernel or user, an
 * object (json_upc_fields()). */
static void json_stack(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v)
{
	const char *sep = "";

	fputc('[', out);
	for (int i = 0; i < v->nframes; i++) {
		fprintf(out, "%s{", sep);
		json_upc_fields(dtp, out, &v->frames[i]);
		fputc('}', out);
		sep = ",";
	}
	fputc(']', out);
}

/* A user stack record starts with the pid, which is not a frame. */
static uint64_t ustack_pid(const dt_value_t *v)
{
	uint64_t pid = 0;

	if (v->rec->size >= 8)
		memcpy(&pid, v->p, 8);
	return pid;
}

/* A ufunc/usym/umod/uaddr value: "pid", the address's fields, and
 * "value", the text DTrace prints for it. */
static void json_uaddr_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_value_t *v)
{
	fprintf(out, "\"pid\":%d,", (int)v->pid);
	json_upc_fields(dtp, out, &v->addr);
	json_key_str(out, "value", v->usym);
}

/* A value of floating-point type (see the top of the file). */
static void json_float(FILE *out, const dt_type_t *t, const uint8_t *p)
{
	long double v;

	if (!dt_type_float_value(t, p, &v))
		fputs("null", out);
	else if (isnan(v))
		fputs("\"nan\"", out);
	else if (isinf(v))
		fputs(v < 0 ? "\"-inf\"" : "\"inf\"", out);
	else
		fprintf(out, "%.*Lg", t->size == 4 ? 9 : t->size == 8 ? 17 : 21,
			v);
}

void dt_json_value(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v)
{
	const dt_recdesc_t *rec = v->rec;

	if (rec->type != NULL && dt_type_is_float(rec->type)) {
		json_float(out, rec->type, v->p);
		return;
	}
	switch (rec->kind) {
	case DT_RK_INT:
		json_rec_int(out, rec, v->p);
		return;
	case DT_RK_STRING:
		dt_json_cstring(out, v->p, rec->size);
		return;
	case DT_RK_USTACK:
	case DT_RK_KSTACK:
	case DT_RK_USAMPLE:
		json_stack(dtp, out, v);
		return;
	case DT_RK_UADDR:
		fputc('{', out);
		json_uaddr_fields(dtp, out, v);
		fputc('}', out);
		return;
	default:
		dt_json_hex(out, v->p, rec->size);
		return;
	}
}

/* trace(): "value", or "bytes", or "stack" (see the top of the file). */
static void json_trace_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_value_t *v)
{
	const dt_recdesc_t *rec = v->rec;
	const uint8_t *p = v->p;
	const char *nul;

	if (rec->type != NULL && dt_type_is_float(rec->type)) {
		json_key(out, "value");
		json_float(out, rec->type, p);
		return;
	}
	switch (rec->kind) {
	case DT_RK_INT:
		json_key(out, "value");
		json_rec_int(out, rec, p);
		return;
	case DT_RK_STRING:
		json_key(out, "value");
		if (dt_json_cstring(out, p, rec->size))
			return;
		/* not UTF-8: the exact bytes too, nothing is lost */
		nul = memchr(p, '\0', rec->size);
		json_key(out, "bytes");
		dt_json_hex(out, p, nul ? (size_t)(nul - (const char *)p)
					: rec->size);
		return;
	case DT_RK_USTACK:
	case DT_RK_USAMPLE:
		json_key(out, "pid");
		fprintf(out, "%" PRIu64, ustack_pid(v));
		json_key(out, "stack");
		json_stack(dtp, out, v);
		return;
	case DT_RK_KSTACK:
		json_key(out, "stack");
		json_stack(dtp, out, v);
		return;
	case DT_RK_UADDR:
		fputc(',', out);
		json_uaddr_fields(dtp, out, v);
		return;
	default:
		json_key(out, "bytes");
		dt_json_hex(out, p, rec->size);
		return;
	}
}

/* --- aggregations --- */

static const char *agg_func_name(dt_aggfunc_t f)
{
	switch (f) {
	case DT_AGG_COUNT:	return "count";
	case DT_AGG_SUM:	return "sum";
	case DT_AGG_AVG:	return "avg";
	case DT_AGG_MIN:	return "min";
	case DT_AGG_MAX:	return "max";
	case DT_AGG_STDDEV:	return "stddev";
	case DT_AGG_QUANTIZE:	return "quantize";
	case DT_AGG_LQUANTIZE:	return "lquantize";
	case DT_AGG_LLQUANTIZE:	return "llquantize";
	default:		return "unknown";
	}
}

static void json_agg_keys(dtrace_hdl_t *dtp, FILE *out,
			  const dt_aggdesc_t *d, const dt_outrow_t *row)
{
	fputs("\"keys\":[", out);
	for (int k = 0; k < d->nkeys; k++) {
		if (k > 0)
			fputc(',', out);
		if (row->keys[k].outside)
			fputs("null", out);	/* a descriptor out of bounds */
		else
			dt_json_value(dtp, out, &row->keys[k]);
	}
	fputc(']', out);
}

static void json_agg_buckets(FILE *out, const dt_aggdesc_t *d,
			     const int64_t *b, int64_t normal)
{
	int n = (int)dt_agg_nwords(d);
	const char *sep = "";

	json_key(out, "buckets");
	fputc('[', out);
	for (int i = 0; i < n; i++) {
		if (b[i] == 0)
			continue;
		fprintf(out, "%s{\"min\":%" PRId64 ",\"max\":%" PRId64
			",\"count\":%" PRId64 "}", sep, dt_agg_bucket_min(d, i),
			dt_agg_bucket_max(d, i), b[i] / normal);
		sep = ",";
	}
	fputc(']', out);
}

/* The value fields of one entry (see the top of the file). */
static void json_agg_value(FILE *out, const dt_aggdesc_t *d,
			   const int64_t *v, uint64_t normal)
{
	int64_t nm = normal ? (int64_t)normal : 1;

	switch (d->func) {
	case DT_AGG_COUNT:
		fprintf(out, ",\"value\":%" PRIu64, (uint64_t)v[0] /
			(uint64_t)nm);
		return;
	case DT_AGG_AVG:
		fprintf(out, ",\"value\":%" PRId64 ",\"count\":%" PRIu64
			",\"sum\":%" PRId64, v[0] ? v[1] / nm / v[0] : 0,
			(uint64_t)v[0], v[1] / nm);
		return;
	case DT_AGG_STDDEV:
		fprintf(out, ",\"value\":%" PRIu64 ",\"count\":%" PRIu64
			",\"sum\":%" PRId64, dt_agg_stddev(v, (uint64_t)nm),
			(uint64_t)v[0], v[1] / nm);
		return;
	case DT_AGG_MIN:
	case DT_AGG_MAX:
		fprintf(out, ",\"value\":%" PRId64 ",\"count\":%" PRIu64,
			v[0] / nm, (uint64_t)v[1]);
		return;
	case DT_AGG_QUANTIZE:
	case DT_AGG_LQUANTIZE:
	case DT_AGG_LLQUANTIZE:
		json_agg_buckets(out, d, v, nm);
		return;
	default:
		fprintf(out, ",\"value\":%" PRId64, v[0] / nm);
		return;
	}
}

/* aggpercpu: "percpu", the CPUs that recorded something in the entry,
 * each {"cpu": N, and its value as the entry's own fields}. */
static void json_agg_percpu(FILE *out, const dt_aggdesc_t *d,
			    const dt_outcell_t *cell, uint64_t normal)
{
	bool first = true;

	fputs(",\"percpu\":[", out);
	for (int cpu = 0; cpu < cell->npercpu; cpu++) {
		if (cell->percpu[cpu] == NULL)
			continue;
		fprintf(out, "%s{\"cpu\":%d", first ? "" : ",", cpu);
		json_agg_value(out, d, cell->percpu[cpu], normal);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

int dt_json_aggregation(dtrace_hdl_t *dtp, FILE *out, const dt_outagg_t *agg,
			const char *trigger)
{
	const dt_aggdesc_t *d = agg->descs[0];
	uint64_t normal = agg->normals[0];
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (f == NULL) {
		dt_set_error(dtp, "cannot format aggregation @%s: %s",
			     d->name, strerror(errno));
		return -1;
	}
	fputs("{\"type\":\"aggregation\"", f);
	json_key_str(f, "trigger", trigger);
	json_key_str(f, "name", d->name);
	json_key_str(f, "function", agg_func_name(d->func));
	if (normal > 1)
		fprintf(f, ",\"normal\":%" PRIu64, normal);
	fputs(",\"data\":[", f);
	for (size_t i = 0; i < agg->nrows; i++) {
		const dt_outrow_t *row = &agg->rows[i];

		fputs(i > 0 ? ",{" : "{", f);
		json_agg_keys(dtp, f, d, row);
		json_agg_value(f, d, row->cells[0].val, normal);
		if (dtp->opt.aggpercpu)
			json_agg_percpu(f, d, &row->cells[0], normal);
		fputc('}', f);
	}
	fputs("]}\n", f);
	fclose(f);
	fwrite(line, 1, len, out);
	free(line);
	return 0;
}

/* --- records --- */

/* The JSON output's state: the line of the record being built and the
 * aggregation lines that follow it. */
typedef struct json_out {
	dt_out_t base;
	char *line, *after;
	size_t linelen, afterlen;
	FILE *fline, *fafter;	/* NULL: no record is being built */
	int nacts;		/* action objects written so far */
} json_out_t;

static void json_probe(FILE *out, const dtrace_probe_t *prp)
{
	fputs(",\"probe\":{\"provider\":", out);
	json_str(out, prp ? prp->prv : NULL);
	json_key_str(out, "module", prp ? prp->mod : NULL);
	json_key_str(out, "function", prp ? prp->fun : NULL);
	json_key_str(out, "name", prp ? prp->prb : NULL);
	fputc('}', out);
}

static void json_head(FILE *out, const char *type, const dt_rechdr_t *hdr,
		      uint32_t clause, const dtrace_probe_t *prp)
{
	fprintf(out, "{\"type\":\"%s\",\"cpu\":%u,\"id\":%u,\"clause\":%u",
		type, hdr->cpu, hdr->prid, clause);
	json_probe(out, prp);
}

static void json_agg_names(FILE *out, const dt_outact_t *a)
{
	json_key(out, "aggregations");
	fputc('[', out);
	for (int i = 0; i < a->desc->naggs; i++) {
		const char *name = a->aggnames && a->aggnames[i] ?
				   a->aggnames[i] : "";

		if (i > 0)
			fputc(',', out);
		dt_json_string(out, name, strlen(name));
	}
	fputc(']', out);
}

/* printf-like text of an action into a string (NULL after an error). */
static char *json_format(dtrace_hdl_t *dtp, const dt_outact_t *a,
			 size_t *len)
{
	const dt_actdesc_t *act = a->desc;
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	int err;

	if (f == NULL)
		return NULL;
	err = dt_printf_values(dtp, f, act->fmt ? act->fmt : "", a->vals,
			       a->nvals, NULL, 0);
	fclose(f);
	if (err != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int json_printf(json_out_t *jo, const dt_outact_t *a)
{
	FILE *out = jo->fline;
	size_t len = 0;
	char *text = json_format(jo->base.dtp, a, &len);

	if (text == NULL)
		return -1;
	json_key_str(out, "format", a->desc->fmt);
	json_key(out, "output");
	dt_json_string(out, text, len);
	free(text);
	json_key(out, "args");
	fputc('[', out);
	for (int i = 0; i < a->nvals; i++) {
		if (i > 0)
			fputc(',', out);
		dt_json_value(jo->base.dtp, out, &a->vals[i]);
	}
	fputc(']', out);
	return 0;
}

/* system(): the command's standard output is captured into the line, so
 * that it cannot break the stream of objects. */
static int json_system(json_out_t *jo, const dt_outact_t *a)
{
	dtrace_hdl_t *dtp = jo->base.dtp;
	size_t len = 0, outlen = 0, n;
	char *cmd = json_format(dtp, a, &len), *text = NULL;
	char buf[4096];
	FILE *p, *f;
	int status = -1;

	if (cmd == NULL)
		return -1;
	json_key(jo->fline, "command");
	dt_json_string(jo->fline, cmd, len);
	f = open_memstream(&text, &outlen);
	fflush(dtp->out);
	p = f ? popen(cmd, "r") : NULL;
	if (p == NULL) {
		dt_warn(dtp, "system(\"%s\") failed: %s", cmd,
			strerror(errno));
	} else {
		while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
			fwrite(buf, 1, n, f);
		status = pclose(p);
		status = status != -1 && WIFEXITED(status) ?
			 WEXITSTATUS(status) : -1;
	}
	if (f != NULL)
		fclose(f);
	json_key(jo->fline, "output");
	dt_json_string(jo->fline, text ? text : "", text ? outlen : 0);
	fprintf(jo->fline, ",\"status\":%d", status);
	free(text);
	free(cmd);
	return 0;
}

/* printa(): the names (and the formatted text, with a format) in the
 * record; each snapshot on its own line after the record's. */
static int json_printa(json_out_t *jo, const dt_outact_t *a)
{
	dtrace_hdl_t *dtp = jo->base.dtp;
	const dt_actdesc_t *act = a->desc;

	json_agg_names(jo->fline, a);
	if (act->fmt != NULL) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int err = -1;

		if (f == NULL)
			return -1;
		if (a->agg != NULL)
			err = dt_printf_rows(dtp, f, act->fmt, a->agg);
		fclose(f);
		json_key_str(jo->fline, "format", act->fmt);
		json_key(jo->fline, "output");
		dt_json_string(jo->fline, text, len);
		free(text);
		if (err != 0)
			return -1;
	}
	for (int i = 0; i < act->naggs; i++) {
		if (a->each == NULL || a->each[i] == NULL)
			return -1;
		dt_json_aggregation(dtp, jo->fafter, a->each[i], "printa");
	}
	return 0;
}

static const char *json_act_name(dt_actkind_t kind)
{
	switch (kind) {
	case DT_ACT_TRACE:	return "trace";
	case DT_ACT_PRINT:	return "print";
	case DT_ACT_PRINTF:	return "printf";
	case DT_ACT_PRINTA:	return "printa";
	case DT_ACT_EXIT:	return "exit";
	case DT_ACT_TRACEMEM:	return "tracemem";
	case DT_ACT_PRINTM:	return "printm";
	case DT_ACT_STACK:	return "stack";
	case DT_ACT_USTACK:	return "ustack";
	case DT_ACT_UADDR:	return "uaddr";	/* json_action() names it */
	case DT_ACT_SYSTEM:	return "system";
	case DT_ACT_CLEAR:	return "clear";
	case DT_ACT_TRUNC:	return "trunc";
	case DT_ACT_NORMALIZE:	return "normalize";
	case DT_ACT_DENORMALIZE: return "denormalize";
	case DT_ACT_SETOPT:	return "setopt";
	case DT_ACT_FTRUNCATE:	return "ftruncate";
	case DT_ACT_FREOPEN:	return "freopen";
	default:		return NULL;	/* nothing to show */
	}
}

/* The fields of the actions that have effects besides printing (the
 * consumer ran the effect). */
static void json_effect(json_out_t *jo, const dt_outact_t *a)
{
	FILE *out = jo->fline;
	const dt_actdesc_t *act = a->desc;
	const dt_value_t *v0 = a->nvals > 0 ? &a->vals[0] : NULL;

	switch (act->kind) {
	case DT_ACT_CLEAR:
	case DT_ACT_DENORMALIZE:
	case DT_ACT_TRUNC:
	case DT_ACT_NORMALIZE:
		json_agg_names(out, a);
		if (v0 != NULL)
			json_key(out, act->kind == DT_ACT_TRUNC ? "count" :
				 "factor");
		if (v0 != NULL)
			json_rec_int(out, v0->rec, v0->p);
		break;
	case DT_ACT_SETOPT:
		json_key_str(out, "option", act->fmt);
		if (v0 != NULL) {
			json_key(out, "value");
			if (v0->rec->kind == DT_RK_INT) {
				fputc('"', out);
				json_rec_int(out, v0->rec, v0->p);
				fputc('"', out);
			} else {
				dt_json_value(jo->base.dtp, out, v0);
			}
		}
		break;
	case DT_ACT_FREOPEN:
		json_key(out, "file");
		dt_json_string(out, a->text ? a->text : "",
			       a->text ? a->textlen : 0);
		break;
	default:
		break;
	}
}

static const char *json_usym_name(uint32_t usym)
{
	switch (usym) {
	case DT_USYM_FUNC:	return "ufunc";
	case DT_USYM_SYM:	return "usym";
	case DT_USYM_MOD:	return "umod";
	default:		return "uaddr";
	}
}

/* The fields of one action object, after its name. */
static int json_action_fields(json_out_t *jo, const dt_outact_t *a)
{
	dtrace_hdl_t *dtp = jo->base.dtp;
	const dt_value_t *v0 = a->nvals > 0 ? &a->vals[0] : NULL;
	FILE *out = jo->fline;

	switch (a->desc->kind) {
	case DT_ACT_TRACE:
	case DT_ACT_STACK:
	case DT_ACT_USTACK:
	case DT_ACT_UADDR:
		if (v0 != NULL)
			json_trace_fields(dtp, out, v0);
		return 0;
	case DT_ACT_PRINT:
		if (v0 != NULL)
			json_print_fields(dtp, out, a);
		return 0;
	case DT_ACT_PRINTF:
		return json_printf(jo, a);
	case DT_ACT_PRINTA:
		return json_printa(jo, a);
	case DT_ACT_EXIT:
		fprintf(out, ",\"status\":%d", a->exitstatus);
		return 0;
	case DT_ACT_TRACEMEM:
	case DT_ACT_PRINTM:
		if (v0 != NULL) {
			json_key(out, "bytes");
			dt_json_hex(out, v0->p, a->memlen);
		}
		return 0;
	case DT_ACT_SYSTEM:
		return json_system(jo, a);
	default:
		json_effect(jo, a);
		return 0;
	}
}

/* One action as one object of "actions". */
static int json_action(dt_out_t *o, const dt_outact_t *a)
{
	json_out_t *jo = (json_out_t *)o;
	const char *name = json_act_name(a->desc->kind);
	int err;

	if (name == NULL || jo->fline == NULL)	/* nothing to show */
		return 0;
	if (a->desc->kind == DT_ACT_UADDR && a->nvals > 0)
		name = json_usym_name(a->vals[0].rec->arg);
	fprintf(jo->fline, "%s{\"action\":\"%s\"", jo->nacts++ > 0 ? "," : "",
		name);
	err = json_action_fields(jo, a);
	fputc('}', jo->fline);
	return err;
}

static void json_record_begin(dt_out_t *o, const dt_outrec_t *r)
{
	json_out_t *jo = (json_out_t *)o;

	jo->nacts = 0;
	jo->line = jo->after = NULL;
	jo->linelen = jo->afterlen = 0;
	jo->fline = open_memstream(&jo->line, &jo->linelen);
	jo->fafter = open_memstream(&jo->after, &jo->afterlen);
	if (jo->fline == NULL || jo->fafter == NULL) {
		fprintf(stderr, "dtrace: cannot format a record: %s\n",
			strerror(errno));
		if (jo->fline != NULL)
			fclose(jo->fline);
		if (jo->fafter != NULL)
			fclose(jo->fafter);
		jo->fline = jo->fafter = NULL;
		return;
	}
	json_head(jo->fline, "probe", r->hdr, r->hdr->clause, r->probe);
	fputs(",\"actions\":[", jo->fline);
}

static void json_record_end(dt_out_t *o, int err)
{
	json_out_t *jo = (json_out_t *)o;
	dtrace_hdl_t *dtp = o->dtp;

	if (jo->fline != NULL) {
		fputs("]}\n", jo->fline);
		fclose(jo->fline);
		fclose(jo->fafter);
		jo->fline = jo->fafter = NULL;
		/* the record, then the snapshots its printa()s took */
		fwrite(jo->line, 1, jo->linelen, dtp->out);
		fwrite(jo->after, 1, jo->afterlen, dtp->out);
	}
	free(jo->line);
	free(jo->after);
	jo->line = jo->after = NULL;
	if (err != 0 && dtp->errmsg[0] != '\0') {
		fflush(dtp->out);
		fprintf(stderr, "dtrace: %s\n", dtp->errmsg);
		dtp->errmsg[0] = '\0';
	}
}

/* --- faults and drops --- */

static bool fault_has_addr(uint32_t fault)
{
	return fault == DT_FAULT_BADADDR || fault == DT_FAULT_BADALIGN ||
	       fault == DT_FAULT_BADSTACK || fault == DT_FAULT_KPRIV ||
	       fault == DT_FAULT_UPRIV;
}

static void json_fault(dt_out_t *o, const dt_outfault_t *ft)
{
	const dt_errrec_t *er = ft->er;
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (f == NULL)
		return;		/* the message still goes to stderr */
	json_head(f, "error", ft->hdr, er->clause, ft->probe);
	json_key_str(f, "fault", dt_fault_str(er->fault));
	if (fault_has_addr(er->fault))
		fprintf(f, ",\"address\":%" PRIu64, er->addr);
	fprintf(f, ",\"action\":%u,\"pc\":%u", er->action, er->pc);
	json_key_str(f, "message", ft->msg);
	fputs("}\n", f);
	fclose(f);
	fwrite(line, 1, len, o->dtp->out);
	free(line);
}

static void json_drop(dt_out_t *o, const char *kind, int cpu, uint64_t count)
{
	FILE *out = o->dtp->out;

	fprintf(out, "{\"type\":\"drop\",\"kind\":\"%s\"", kind);
	if (cpu >= 0)
		fprintf(out, ",\"cpu\":%d", cpu);
	fprintf(out, ",\"count\":%" PRIu64 "}\n", count);
}

/* JSON has no blank line at the end: only objects, one a line. */
static void json_tracing_end(dt_out_t *o)
{
	(void)o;
}

static int json_exit_aggregation(dt_out_t *o, const dt_outagg_t *agg)
{
	return dt_json_aggregation(o->dtp, o->dtp->out, agg, "exit");
}

static void json_destroy(dt_out_t *o)
{
	json_out_t *jo = (json_out_t *)o;

	if (jo->fline != NULL)
		fclose(jo->fline);
	if (jo->fafter != NULL)
		fclose(jo->fafter);
	free(jo->line);
	free(jo->after);
	free(jo);
}

static const dt_output_ops_t json_ops = {
	.name = "json",
	.each_alone = true,
	.record_begin = json_record_begin,
	.action = json_action,
	.record_end = json_record_end,
	.fault = json_fault,
	.drop = json_drop,
	.tracing_end = json_tracing_end,
	.aggregation = json_exit_aggregation,
	.destroy = json_destroy,
};

dt_out_t *dt_json_create(dtrace_hdl_t *dtp)
{
	json_out_t *jo = dt_zalloc(sizeof(*jo));

	jo->base.ops = &json_ops;
	jo->base.dtp = dtp;
	return &jo->base;
}
