/* SPDX-License-Identifier: MIT */
/*
 * dt_flamegraph.c: -x oformat=flamegraph, a profile's folded stacks
 * (dt_profile.c) drawn as a self-contained interactive SVG.
 *
 * The stacks are merged into a tree of frames, each with the weight of
 * the stacks through it; a frame is a box as wide as its share of the
 * whole, on top of its caller (the root, "all", at the bottom), its
 * callees in name order from the left.  Everything is in the one file:
 * the style and a small script, no fetch.  The script zooms on a frame
 * that is clicked (its callers stay, full width and faded), searches
 * frames by a regular expression (the button, Ctrl-F or '/'), marking
 * them and saying the share of the whole they cover, and shows each
 * frame's name, weight and share as its tooltip (the <title>).  A link
 * may say where to start: FILE.svg#zoom=NAME zooms on the first frame of
 * that name, #search=REGEX searches (both: joined by '&').  Once the
 * picture is laid out, the script also writes on each frame the width
 * the browser gave it (data-shown), which says what a reader sees.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_hash.h"
#include "dt_output.h"

#define FG_WIDTH	1200	/* the picture's width, pixels */
#define FG_PAD		10	/* margins */
#define FG_FRAME	16	/* a frame's height */
#define FG_TOP		56	/* title and buttons */
#define FG_BOTTOM	24	/* the line of details */
#define FG_MIN_PX	0.1	/* a narrower frame is not drawn */

typedef struct fg_node {
	char *name;
	int64_t weight;
	struct fg_node *kids;
	size_t nkids, cap;
} fg_node_t;

static fg_node_t *fg_child(fg_node_t *n, const char *name, size_t len)
{
	for (size_t i = 0; i < n->nkids; i++)
		if (strncmp(n->kids[i].name, name, len) == 0 &&
		    n->kids[i].name[len] == '\0')
			return &n->kids[i];
	dt_array_room(n->kids, n->nkids, n->cap);
	fg_node_t *k = &n->kids[n->nkids++];
	*k = (fg_node_t){ .name = dt_zalloc(len + 1) };
	memcpy(k->name, name, len);
	return k;
}

/* One folded line, "a;b;c weight", into the tree under root. */
static void fg_add_line(fg_node_t *root, const char *line, size_t len)
{
	const char *sp = NULL;

	for (size_t i = len; i > 0; i--)
		if (line[i - 1] == ' ') {
			sp = &line[i - 1];
			break;
		}
	if (sp == NULL)
		return;
	int64_t w = strtoll(sp + 1, NULL, 10);
	if (w <= 0)
		return;
	fg_node_t *n = root;
	root->weight += w;
	for (const char *f = line; f < sp;) {
		const char *end = memchr(f, ';', (size_t)(sp - f));
		size_t flen = end ? (size_t)(end - f) : (size_t)(sp - f);
		n = fg_child(n, f, flen);
		n->weight += w;
		f += flen + 1;
	}
}

static int fg_cmp(const void *a, const void *b)
{
	return strcmp(((const fg_node_t *)a)->name,
		      ((const fg_node_t *)b)->name);
}

/* Callees in name order, and the tree's depth. */
static int fg_sort(fg_node_t *n)
{
	int depth = 0;

	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), fg_cmp);
	for (size_t i = 0; i < n->nkids; i++) {
		int d = fg_sort(&n->kids[i]);
		depth = d > depth ? d : depth;
	}
	return depth + 1;
}

static void fg_free(fg_node_t *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		fg_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

/* XML text: & < > " escaped. */
static void fg_xml(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out); break;
		}
	}
}

/* A warm colour from the name, the same for the same function. */
static void fg_colour(const char *name, int *r, int *g, int *b)
{
	uint64_t h = dt_hash_str(DT_HASH_INIT, name);

	*r = 205 + (int)(h % 50);
	*g = 80 + (int)((h >> 8) % 150);
	*b = (int)((h >> 16) % 55);
}

typedef struct fg_ctx {
	FILE *out;
	int64_t total;
	int depth;
	double scale;		/* pixels per unit of weight */
} fg_ctx_t;

static void fg_frame(fg_ctx_t *c, const fg_node_t *n, int64_t left, int level)
{
	double x = FG_PAD + (double)left * c->scale;
	double w = (double)n->weight * c->scale;
	int y = FG_TOP + (c->depth - 1 - level) * FG_FRAME;
	int r, g, b;

	if (w < FG_MIN_PX)
		return;
	fg_colour(n->name, &r, &g, &b);
	fprintf(c->out, "<g class=\"f\" data-l=\"%" PRId64 "\" data-w=\"%"
		PRId64 "\" data-d=\"%d\"><title>", left, n->weight, level);
	fg_xml(c->out, n->name);
	fprintf(c->out, " (%" PRId64 ", %.2f%%)</title>", n->weight,
		100.0 * (double)n->weight / (double)c->total);
	fprintf(c->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
		" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.1f\" y=\"%d\">"
		"</text><desc>", x, y, w, FG_FRAME - 1, r, g, b, x + 3,
		y + FG_FRAME - 4);
	fg_xml(c->out, n->name);
	fputs("</desc></g>\n", c->out);
	for (size_t i = 0; i < n->nkids; i++) {
		fg_frame(c, &n->kids[i], left, level + 1);
		left += n->kids[i].weight;
	}
}

/* The style and the script: zoom, search, labels that fit their frames. */
static const char fg_head[] =
"<style>\n"
"text { font: 12px Verdana, sans-serif; fill: #000; pointer-events: none; }\n"
"g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
"g.f.faded rect { opacity: 0.45; }\n"
"g.f.hit rect { fill: #e040e0; }\n"
".ui { font: 12px Verdana, sans-serif; fill: #333; cursor: pointer; }\n"
"#title { font-size: 17px; text-anchor: middle; }\n"
"</style>\n"
"<script type=\"text/ecmascript\"><![CDATA[\n"
"'use strict';\n"
"var W, PAD, frames, zoomed = null;\n"
"function $(id) { return document.getElementById(id); }\n"
"function num(g, k) { return Number(g.getAttribute('data-' + k)); }\n"
"function label(g) {\n"
"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"  var name = g.querySelector('desc').textContent;\n"
"  var w = Number(r.getAttribute('width')), n = Math.floor((w - 6) / 7);\n"
"  t.setAttribute('x', Number(r.getAttribute('x')) + 3);\n"
"  t.textContent = n < 3 ? '' : n >= name.length ? name :\n"
"    name.substring(0, n - 2) + '..';\n"
"}\n"
"function place(g, l, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', PAD + l * (W - 2 * PAD));\n"
"  r.setAttribute('width', w * (W - 2 * PAD));\n"
"  label(g);\n"
"}\n"
"function zoom(g) {\n"
"  var l = num(g, 'l'), w = num(g, 'w'), d = num(g, 'd');\n"
"  zoomed = g;\n"
"  frames.forEach(function (f) {\n"
"    var fl = num(f, 'l'), fw = num(f, 'w'), fd = num(f, 'd');\n"
"    f.classList.remove('faded');\n"
"    if (fd < d && fl <= l && fl + fw >= l + w) {\n"
"      f.style.display = ''; f.classList.add('faded'); place(f, 0, 1);\n"
"    } else if (fd >= d && fl >= l && fl + fw <= l + w) {\n"
"      f.style.display = ''; place(f, (fl - l) / w, fw / w);\n"
"    } else {\n"
"      f.style.display = 'none';\n"
"    }\n"
"  });\n"
"  $('reset').style.display = '';\n"
"}\n"
"function reset() {\n"
"  var total = num(frames[0], 'w');\n"
"  zoomed = null;\n"
"  frames.forEach(function (f) {\n"
"    f.style.display = ''; f.classList.remove('faded');\n"
"    place(f, num(f, 'l') / total, num(f, 'w') / total);\n"
"  });\n"
"  $('reset').style.display = 'none';\n"
"}\n"
"function search(re) {\n"
"  var total = num(frames[0], 'w'), ranges = [], covered = 0, end = -1;\n"
"  frames.forEach(function (f) {\n"
"    var hit = re !== null && re.test(f.querySelector('desc').textContent);\n"
"    f.classList.toggle('hit', hit);\n"
"    if (hit) ranges.push([num(f, 'l'), num(f, 'l') + num(f, 'w')]);\n"
"  });\n"
"  ranges.sort(function (a, b) { return a[0] - b[0]; });\n"
"  ranges.forEach(function (r) {\n"
"    if (r[0] >= end) { covered += r[1] - r[0]; end = r[1]; }\n"
"    else if (r[1] > end) { covered += r[1] - end; end = r[1]; }\n"
"  });\n"
"  $('matched').textContent = re === null ? '' :\n"
"    'Matched: ' + (100 * covered / total).toFixed(2) + '%';\n"
"}\n"
"function ask() {\n"
"  var s = prompt('Search frames (a regular expression)', '');\n"
"  if (s === null) return;\n"
"  try { search(s === '' ? null : new RegExp(s)); }\n"
"  catch (e) { $('matched').textContent = 'Bad expression'; }\n"
"}\n"
"function details(g) {\n"
"  $('details').textContent = g ? g.querySelector('title').textContent : '';\n"
"}\n"
"function named(name) {\n"
"  return frames.filter(function (f) {\n"
"    return f.querySelector('desc').textContent === name; })[0];\n"
"}\n"
"function fromLink() {\n"
"  location.hash.substring(1).split('&').forEach(function (kv) {\n"
"    var i = kv.indexOf('='), k = kv.substring(0, i);\n"
"    var v = decodeURIComponent(kv.substring(i + 1));\n"
"    if (k === 'zoom' && named(v)) zoom(named(v));\n"
"    if (k === 'search') search(new RegExp(v));\n"
"  });\n"
"}\n"
"function init() {\n"
"  var svg = document.documentElement;\n"
"  W = Number(svg.getAttribute('width')); PAD = " "10" ";\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  frames.forEach(function (f) {\n"
"    f.addEventListener('click', function () { zoom(f); });\n"
"    f.addEventListener('mouseover', function () { details(f); });\n"
"    f.addEventListener('mouseout', function () { details(null); });\n"
"    label(f);\n"
"  });\n"
"  $('reset').addEventListener('click', reset);\n"
"  $('search').addEventListener('click', ask);\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey && e.key === 'f') || e.key === '/') {\n"
"      e.preventDefault(); ask();\n"
"    }\n"
"  });\n"
"  fromLink();\n"
"  frames.forEach(function (f) {\n"
"    f.setAttribute('data-shown',\n"
"      f.querySelector('rect').getBoundingClientRect().width.toFixed(1));\n"
"  });\n"
"}\n"
"window.addEventListener('load', init);\n"
"]]></script>\n";

static void fg_svg(FILE *out, const fg_node_t *root, int depth)
{
	int height = FG_TOP + depth * FG_FRAME + FG_BOTTOM;
	fg_ctx_t c = {
		.out = out, .total = root->weight, .depth = depth,
		.scale = (double)(FG_WIDTH - 2 * FG_PAD) / (double)root->weight,
	};

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
		"%d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n", FG_WIDTH,
		height, FG_WIDTH, height);
	fputs(fg_head, out);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">Flame Graph</text>\n"
		"<text id=\"reset\" class=\"ui\" x=\"%d\" y=\"24\" "
		"style=\"display:none\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"ui\" x=\"%d\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" class=\"ui\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\"></text>\n"
		"<text id=\"details\" class=\"ui\" x=\"%d\" y=\"%d\"></text>\n",
		FG_WIDTH / 2, FG_PAD, FG_WIDTH - FG_PAD, FG_WIDTH - FG_PAD,
		height - 8, FG_PAD, height - 8);
	fg_frame(&c, root, 0, 0);
	fputs("</svg>\n", out);
}

int dt_flamegraph_write(dtrace_hdl_t *dtp, const char *folded, size_t len,
			char **svg, size_t *svglen)
{
	fg_node_t root = { .name = dt_strdup("all") };
	FILE *out;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(folded + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (folded + i)) : len - i;
		fg_add_line(&root, folded + i, n);
		i += n + 1;
	}
	if (root.weight == 0)
		root.weight = 1;	/* nothing fired: an empty picture */
	int depth = fg_sort(&root);
	*svg = NULL;
	if ((out = open_memstream(svg, svglen)) == NULL) {
		fg_free(&root);
		dt_set_error(dtp, "out of memory");
		return -1;
	}
	fg_svg(out, &root, depth);
	fg_free(&root);
	if (fclose(out) != 0) {
		free(*svg);
		dt_set_error(dtp, "out of memory");
		return -1;
	}
	return 0;
}
