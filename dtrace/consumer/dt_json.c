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
 * precision above 2^53, Python's json does not).  Strings are JSON strings
 * of the bytes up to the first NUL: '"', '\' and control characters
 * (below 0x20, and 0x7f) are escaped (\n, \t, ... or \u00XX); a byte that
 * is not part of valid UTF-8 (overlong forms and surrogates included)
 * becomes U+FFFD, written "\ufffd".  Raw memory (tracemem, non-string
 * data) is a string of lowercase hex digits, two per byte.  A stack is an
 * array of its frames, innermost first: a kernel PC as a number, a user
 * frame as {"address", "module", "symbol", "offset"} (module, symbol and
 * offset from the symbol as far as they are known).  A ufunc(), usym(),
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
 * aggregation snapshot taken mid-record never leaves half an object.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "dt_consume_impl.h"

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
			      const dt_recdesc_t *rec, const uint8_t *p);

/* print(): the value as trace() gives it, the type's name, and the
 * strings of a struct's char * members, which the text form prints. */
static void json_print_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_actdesc_t *act, const uint8_t *data)
{
	const dt_recdesc_t *r0 = &act->recs[0];
	struct json_strings js = { out, 0 };

	json_trace_fields(dtp, out, r0, data + r0->offset);
	if (r0->type != NULL && r0->type->name != NULL)
		json_key_str(out, "type", r0->type->name);
	dt_print_strings(act, data, json_member_string, &js);
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

/* What a user address is: "address", and "module", "symbol" and
 * "offset" (from the symbol) as far as they are known. */
static void json_upc_fields(dtrace_hdl_t *dtp, FILE *out, pid_t pid,
			    uint64_t pc)
{
	dt_usymbol_t u;

	fprintf(out, "\"address\":%" PRIu64, pc);
	if (dtp == NULL || !dt_lookup_upc(dtp, pid, pc, &u))
		return;
	json_key_str(out, "module", u.module);
	if (u.symbol != NULL && !dtp->opt.noresolve) {
		json_key_str(out, "symbol", u.symbol);
		fprintf(out, ",\"offset\":%" PRIu64, u.offset);
	}
}

/* A stack as an array, innermost first: kernel PCs as numbers, user
 * frames as objects (json_upc_fields()); a user stack record starts
 * with the pid, which is not a frame. */
static void json_stack(dtrace_hdl_t *dtp, FILE *out, const dt_recdesc_t *rec,
		       const uint8_t *p)
{
	const char *sep = "";

	fputc('[', out);
	if (rec->kind == DT_RK_KSTACK) {
		for (size_t i = 0; i < rec->size / 8; i++) {
			uint64_t pc;

			memcpy(&pc, p + i * 8, 8);
			if (pc == 0)
				break;
			fprintf(out, "%s%" PRIu64, sep, pc);
			sep = ",";
		}
	} else {
		uint64_t pcs[1024];
		pid_t pid;
		int n = dtp ? dt_ustack_pcs(dtp, rec, p, pcs, 1024, &pid) : 0;

		for (int i = 0; i < n; i++) {
			fprintf(out, "%s{", sep);
			json_upc_fields(dtp, out, pid, pcs[i]);
			fputc('}', out);
			sep = ",";
		}
	}
	fputc(']', out);
}

static uint64_t ustack_pid(const dt_recdesc_t *rec, const uint8_t *p)
{
	uint64_t pid = 0;

	if (rec->size >= 8)
		memcpy(&pid, p, 8);
	return pid;
}

/* A ufunc/usym/umod/uaddr value: "pid", the address's fields, and
 * "value", the text DTrace prints for it. */
static void json_uaddr_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_recdesc_t *rec, const uint8_t *p)
{
	char text[1024];
	uint64_t pc;
	pid_t pid;

	dt_uaddr_rec(p, &pid, &pc);
	fprintf(out, "\"pid\":%d,", (int)pid);
	json_upc_fields(dtp, out, pid, pc);
	if (dtp == NULL)
		snprintf(text, sizeof(text), "0x%" PRIx64, pc);
	else
		dt_format_usym(dtp, rec, p, text, sizeof(text));
	json_key_str(out, "value", text);
}

void dt_json_value(dtrace_hdl_t *dtp, FILE *out, const dt_recdesc_t *rec,
		   const uint8_t *p)
{
	switch (rec->kind) {
	case DT_RK_INT:
		json_rec_int(out, rec, p);
		return;
	case DT_RK_STRING:
		dt_json_cstring(out, p, rec->size);
		return;
	case DT_RK_USTACK:
	case DT_RK_KSTACK:
	case DT_RK_USAMPLE:
		json_stack(dtp, out, rec, p);
		return;
	case DT_RK_UADDR:
		fputc('{', out);
		json_uaddr_fields(dtp, out, rec, p);
		fputc('}', out);
		return;
	default:
		dt_json_hex(out, p, rec->size);
		return;
	}
}

/* trace(): "value", or "bytes", or "stack" (see the top of the file). */
static void json_trace_fields(dtrace_hdl_t *dtp, FILE *out,
			      const dt_recdesc_t *rec, const uint8_t *p)
{
	const char *nul;

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
		fprintf(out, "%" PRIu64, ustack_pid(rec, p));
		json_key(out, "stack");
		json_stack(dtp, out, rec, p);
		return;
	case DT_RK_KSTACK:
		json_key(out, "stack");
		json_stack(dtp, out, rec, p);
		return;
	case DT_RK_UADDR:
		fputc(',', out);
		json_uaddr_fields(dtp, out, rec, p);
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
			  const dt_aggdesc_t *d, const uint8_t *key)
{
	fputs("\"keys\":[", out);
	for (int k = 0; k < d->nkeys; k++) {
		const dt_recdesc_t *r = &d->keys[k];

		if (k > 0)
			fputc(',', out);
		if (r->offset + (size_t)r->size > d->keysize && d->keysize)
			fputs("null", out);	/* a descriptor out of bounds */
		else
			dt_json_value(dtp, out, r, key + r->offset);
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
			    const dt_aggent_t *e, uint64_t normal)
{
	bool first = true;

	fputs(",\"percpu\":[", out);
	for (int cpu = 0; cpu < e->npercpu; cpu++) {
		if (e->percpu[cpu] == NULL)
			continue;
		fprintf(out, "%s{\"cpu\":%d", first ? "" : ",", cpu);
		json_agg_value(out, d, e->percpu[cpu], normal);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

int dt_json_aggregation(dtrace_hdl_t *dtp, FILE *out, dt_aggstate_t *as,
			const char *trigger)
{
	const dt_aggdesc_t *d = as->desc;
	size_t n = 0, *order = dt_agg_order(dtp, as, &n);
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (f == NULL) {
		free(order);
		dt_set_error(dtp, "cannot format aggregation @%s: %s",
			     d->name, strerror(errno));
		return -1;
	}
	fputs("{\"type\":\"aggregation\"", f);
	json_key_str(f, "trigger", trigger);
	json_key_str(f, "name", d->name);
	json_key_str(f, "function", agg_func_name(d->func));
	if (as->normal > 1)
		fprintf(f, ",\"normal\":%" PRIu64, as->normal);
	fputs(",\"data\":[", f);
	for (size_t i = 0; i < n; i++) {
		const dt_aggent_t *e = &as->ents[order[i]];

		fputs(i > 0 ? ",{" : "{", f);
		json_agg_keys(dtp, f, d, e->key);
		json_agg_value(f, d, e->val, as->normal);
		if (dtp->opt.aggpercpu)
			json_agg_percpu(f, d, e, as->normal);
		fputc('}', f);
	}
	fputs("]}\n", f);
	fclose(f);
	fwrite(line, 1, len, out);
	free(line);
	free(order);
	return 0;
}

/* --- records --- */

/* What one record's formatting needs: the line being built and the
 * aggregation lines that follow it. */
typedef struct json_rec {
	dtrace_hdl_t *dtp;
	FILE *line;
	FILE *after;
	int nacts;		/* action objects written so far */
} json_rec_t;

static void json_probe(FILE *out, const dtrace_hdl_t *dtp, uint32_t prid)
{
	const dtrace_probe_t *prp = NULL;

	prp = dt_probe_by_id((dtrace_hdl_t *)dtp, prid);
	fputs(",\"probe\":{\"provider\":", out);
	json_str(out, prp ? prp->prv : NULL);
	json_key_str(out, "module", prp ? prp->mod : NULL);
	json_key_str(out, "function", prp ? prp->fun : NULL);
	json_key_str(out, "name", prp ? prp->prb : NULL);
	fputc('}', out);
}

static void json_head(FILE *out, const dtrace_hdl_t *dtp, const char *type,
		      const dt_rechdr_t *hdr, uint32_t clause)
{
	fprintf(out, "{\"type\":\"%s\",\"cpu\":%u,\"id\":%u,\"clause\":%u",
		type, hdr->cpu, hdr->prid, clause);
	json_probe(out, dtp, hdr->prid);
}

static void json_agg_names(FILE *out, const dtrace_hdl_t *dtp,
			   const dt_actdesc_t *act)
{
	json_key(out, "aggregations");
	fputc('[', out);
	for (int i = 0; i < act->naggs; i++) {
		struct dt_consumer *c = dtp->cons;
		const char *name = "";

		if (c && act->aggs[i] >= 0 && act->aggs[i] < c->naggs &&
		    c->aggs[act->aggs[i]].desc != NULL)
			name = c->aggs[act->aggs[i]].desc->name;
		if (i > 0)
			fputc(',', out);
		dt_json_string(out, name, strlen(name));
	}
	fputc(']', out);
}

/* printf-like text of an action into a string (NULL after an error). */
static char *json_format(dtrace_hdl_t *dtp, const dt_actdesc_t *act,
			 const uint8_t *data, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	int err;

	if (f == NULL)
		return NULL;
	err = dt_printf_format(dtp, f, act->fmt ? act->fmt : "", act->recs,
			       act->nrecs, data);
	fclose(f);
	if (err != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int json_printf(json_rec_t *jr, const dt_actdesc_t *act,
		       const uint8_t *data)
{
	FILE *out = jr->line;
	size_t len = 0;
	char *text = json_format(jr->dtp, act, data, &len);

	if (text == NULL)
		return -1;
	json_key_str(out, "format", act->fmt);
	json_key(out, "output");
	dt_json_string(out, text, len);
	free(text);
	json_key(out, "args");
	fputc('[', out);
	for (int i = 0; i < act->nrecs; i++) {
		if (i > 0)
			fputc(',', out);
		dt_json_value(jr->dtp, out, &act->recs[i],
			      data + act->recs[i].offset);
	}
	fputc(']', out);
	return 0;
}

/* system(): the command's standard output is captured into the line, so
 * that it cannot break the stream of objects. */
static int json_system(json_rec_t *jr, const dt_actdesc_t *act,
		       const uint8_t *data)
{
	size_t len = 0, outlen = 0, n;
	char *cmd = json_format(jr->dtp, act, data, &len), *text = NULL;
	char buf[4096];
	FILE *p, *f;
	int status = -1;

	if (cmd == NULL)
		return -1;
	json_key(jr->line, "command");
	dt_json_string(jr->line, cmd, len);
	f = open_memstream(&text, &outlen);
	fflush(jr->dtp->out);
	p = f ? popen(cmd, "r") : NULL;
	if (p == NULL) {
		dt_warn(jr->dtp, "system(\"%s\") failed: %s", cmd,
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
	json_key(jr->line, "output");
	dt_json_string(jr->line, text ? text : "", text ? outlen : 0);
	fprintf(jr->line, ",\"status\":%d", status);
	free(text);
	free(cmd);
	return 0;
}

/* printa(): the names (and the formatted text, with a format) in the
 * record; each snapshot on its own line after the record's. */
static int json_printa(json_rec_t *jr, const dt_actdesc_t *act)
{
	dtrace_hdl_t *dtp = jr->dtp;

	json_agg_names(jr->line, dtp, act);
	if (act->fmt != NULL) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int err;

		if (f == NULL)
			return -1;
		err = dt_agg_printf(dtp, f, act->fmt, act->aggs, act->naggs);
		fclose(f);
		json_key_str(jr->line, "format", act->fmt);
		json_key(jr->line, "output");
		dt_json_string(jr->line, text, len);
		free(text);
		if (err != 0)
			return -1;
	}
	for (int i = 0; i < act->naggs; i++) {
		dt_aggstate_t *as = dt_agg_get(dtp, act->aggs[i]);

		if (as == NULL)
			return -1;
		dt_json_aggregation(dtp, jr->after, as, "printa");
		if (as->nents > 0)
			as->printed = true;	/* as the text printa does */
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

/* The fields of the actions that have effects besides printing; the
 * effect itself is dt_consume_effect()'s. */
static int json_effect(json_rec_t *jr, const dt_actdesc_t *act,
		       const uint8_t *data)
{
	FILE *out = jr->line;
	const dt_recdesc_t *r0 = act->nrecs > 0 ? &act->recs[0] : NULL;
	size_t len = 0;
	char *text;

	switch (act->kind) {
	case DT_ACT_CLEAR:
	case DT_ACT_DENORMALIZE:
	case DT_ACT_TRUNC:
	case DT_ACT_NORMALIZE:
		json_agg_names(out, jr->dtp, act);
		if (r0 != NULL)
			json_key(out, act->kind == DT_ACT_TRUNC ? "count" :
				 "factor");
		if (r0 != NULL)
			json_rec_int(out, r0, data + r0->offset);
		break;
	case DT_ACT_SETOPT:
		json_key_str(out, "option", act->fmt);
		if (r0 != NULL) {
			json_key(out, "value");
			if (r0->kind == DT_RK_INT) {
				fputc('"', out);
				json_rec_int(out, r0, data + r0->offset);
				fputc('"', out);
			} else {
				dt_json_value(jr->dtp, out, r0,
					      data + r0->offset);
			}
		}
		break;
	case DT_ACT_FREOPEN:
		text = json_format(jr->dtp, act, data, &len);
		json_key(out, "file");
		dt_json_string(out, text ? text : "", text ? len : 0);
		free(text);
		break;
	default:
		break;
	}
	return dt_consume_effect(jr->dtp, act, data);
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

/* One action as one object of "actions". */
static int json_action(json_rec_t *jr, const dt_actdesc_t *act,
		       const uint8_t *data)
{
	const char *name = json_act_name(act->kind);
	const dt_recdesc_t *r0 = act->nrecs > 0 ? &act->recs[0] : NULL;
	FILE *out = jr->line;
	int err = 0;

	if (name == NULL)	/* nothing to show: its effect alone */
		return dt_consume_effect(jr->dtp, act, data);
	if (act->kind == DT_ACT_UADDR && r0 != NULL)
		name = json_usym_name(r0->arg);
	fprintf(out, "%s{\"action\":\"%s\"", jr->nacts++ > 0 ? "," : "",
		name);
	switch (act->kind) {
	case DT_ACT_TRACE:
		if (r0 != NULL)
			json_trace_fields(jr->dtp, out, r0, data + r0->offset);
		break;
	case DT_ACT_PRINT:
		if (r0 != NULL)
			json_print_fields(jr->dtp, out, act, data);
		break;
	case DT_ACT_PRINTF:
		err = json_printf(jr, act, data);
		break;
	case DT_ACT_PRINTA:
		err = json_printa(jr, act);
		break;
	case DT_ACT_EXIT:
		err = dt_consume_effect(jr->dtp, act, data);
		fprintf(out, ",\"status\":%d", jr->dtp->exitstatus);
		break;
	case DT_ACT_TRACEMEM:
	case DT_ACT_PRINTM:
		if (r0 != NULL) {
			json_key(out, "bytes");
			dt_json_hex(out, data + r0->offset,
				    dt_consume_mem_len(act, data));
		}
		break;
	case DT_ACT_STACK:
	case DT_ACT_USTACK:
	case DT_ACT_UADDR:
		if (r0 != NULL)
			json_trace_fields(jr->dtp, out, r0, data + r0->offset);
		break;
	case DT_ACT_SYSTEM:
		err = json_system(jr, act, data);
		break;
	default:
		err = json_effect(jr, act, data);
		break;
	}
	fputc('}', out);
	return err;
}

int dt_json_record(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
		   const dt_compiled_clause_t *cl, const uint8_t *data,
		   size_t dsize)
{
	char *line = NULL, *after = NULL;
	size_t linelen = 0, afterlen = 0;
	json_rec_t jr = { .dtp = dtp };
	int err = 0;

	jr.line = open_memstream(&line, &linelen);
	jr.after = open_memstream(&after, &afterlen);
	if (jr.line == NULL || jr.after == NULL) {
		fprintf(stderr, "dtrace: cannot format a record: %s\n",
			strerror(errno));
		if (jr.line != NULL)
			fclose(jr.line);
		if (jr.after != NULL)
			fclose(jr.after);
		free(line);
		free(after);
		return -1;
	}
	json_head(jr.line, dtp, "probe", hdr, hdr->clause);
	fputs(",\"actions\":[", jr.line);
	for (int i = 0; i < cl->nacts && err == 0; i++) {
		if (dt_consume_action_ok(cl, i, data, dsize, &err))
			err = json_action(&jr, &cl->acts[i], data);
	}
	fputs("]}\n", jr.line);
	fclose(jr.line);
	fclose(jr.after);
	/* the record, then the snapshots its printa()s took */
	fwrite(line, 1, linelen, dtp->out);
	fwrite(after, 1, afterlen, dtp->out);
	free(line);
	free(after);
	if (err != 0 && dtp->errmsg[0] != '\0') {
		fflush(dtp->out);
		fprintf(stderr, "dtrace: %s\n", dtp->errmsg);
		dtp->errmsg[0] = '\0';
	}
	return err;
}

/* --- faults and drops --- */

static bool fault_has_addr(uint32_t fault)
{
	return fault == DT_FAULT_BADADDR || fault == DT_FAULT_BADALIGN ||
	       fault == DT_FAULT_BADSTACK || fault == DT_FAULT_KPRIV ||
	       fault == DT_FAULT_UPRIV;
}

void dt_json_error(dtrace_hdl_t *dtp, const dt_rechdr_t *hdr,
		   const dt_errrec_t *er, const char *msg)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (f == NULL)
		return;		/* the message still goes to stderr */
	json_head(f, dtp, "error", hdr, er->clause);
	json_key_str(f, "fault", dt_fault_str(er->fault));
	if (fault_has_addr(er->fault))
		fprintf(f, ",\"address\":%" PRIu64, er->addr);
	fprintf(f, ",\"action\":%u,\"pc\":%u", er->action, er->pc);
	json_key_str(f, "message", msg);
	fputs("}\n", f);
	fclose(f);
	fwrite(line, 1, len, dtp->out);
	free(line);
}

void dt_json_drop(dtrace_hdl_t *dtp, const char *kind, int cpu,
		  uint64_t count)
{
	fprintf(dtp->out, "{\"type\":\"drop\",\"kind\":\"%s\"", kind);
	if (cpu >= 0)
		fprintf(dtp->out, ",\"cpu\":%d", cpu);
	fprintf(dtp->out, ",\"count\":%" PRIu64 "}\n", count);
}
