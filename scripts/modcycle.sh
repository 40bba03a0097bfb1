#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/modcycle.sh [BUILD_DIR]: the module graph of dtrace/, derived from
# what each file includes and what each object calls; fails when the graph
# has a cycle, printing it, or when a file depends on a file of a folder
# above its own (the folders and their order: scripts/layers.sh), printing
# the edge.
#
# A module is a source file and its header (dt_foo.c, dt_foo.h), except for
# the groups below, whose files form one unit behind one interface:
#
#   parser     the parser (dt_parse*.c, dt_parse_impl.h): its files call
#              one another (expressions read type names, declarations
#              constant expressions)
#   checker    the type checker (dt_check*.c, dt_check.h): the typed AST,
#              the identifiers it declares and its findings on a clause
#   codegen    the code generator (dt_cg*.c, dt_regs.c, dt_cg_impl.h): reads
#              what the checker gives it and writes the program description
#   consumer   dt_consume*.c, dt_agg*.c, dt_decode.c
#   output     dt_output.c, dt_text*.c, dt_printf.c, dt_print.c, dt_json.c,
#              dt_profile.c, dt_flamegraph.c, dt_pprof.c (the
#              implementations of one interface, which dt_output.c chooses
#              among):
#              never calls the consumer
#   progdesc   the program description (dt_progdesc.[ch], dt_format.c,
#              dt_rec.h): what the compiler writes and the consumer and the
#              checker read
#   probes     the probe table (dt_probe.c) and the probes the programs make
#              at run time (dt_instance.c), one id space
#
# Edges:
#   calls      an object's undefined symbol defined by another object of
#              dtrace/ (nm over the objects of the engine's sources,
#              BUILD_DIR/obj/dtrace/FOLDER/dt_x.o, built first)
#   includes   #include "dt_x.h" of a header that belongs to a module with
#              sources; headers without a source file (dt_impl.h, dt_ast.h,
#              dt_runtime.h ...) are the shared vocabulary and no module
#
# Besides the absence of cycles, it checks the compiler/consumer contract:
# the compiler (checker and code generator) and the consumer meet only in
# the program description (neither reaches the other and the description
# reaches neither), the checker never reaches the code generator, and the
# probe table never calls back into compilation; the compiler alone
# writes the program description.  The checker depends on
# nothing but the AST and types (dt_ast.h, dt_type, dt_btf), identifiers
# (dt_ident), the compile's arena and errors (dt_pcb, dt_subr) and the
# program description.
#
# The folder order: the same edges, file to file (the includes of every
# file, headers without sources too), each from the folder of its file to
# the folder of the file it reaches, per the table of scripts/layers.sh
# (so the order holds before the files are moved into their folders as
# after); no edge may go up.  A circle of files therefore stays inside one
# folder.  The includes of dt_impl.h, the session handle every file
# includes, are not edges: it includes compiler/dt_ast.h.
set -eu

B=${1:-${B:-build}}
src=dtrace
objdir=$B/obj/$src
vocabulary=dt_impl

mod() {
	case $1 in
	dt_parse|dt_parse_*) echo parser ;;
	dt_check|dt_check_*) echo checker ;;
	dt_cg|dt_cg_*|dt_regs) echo codegen ;;
	dt_consume|dt_consume_*|dt_agg|dt_agg_*|dt_decode) echo consumer ;;
	dt_output|dt_text|dt_text_agg|dt_printf|dt_print|dt_json|dt_profile|\
	dt_flamegraph|dt_pprof) echo output ;;
	dt_progdesc|dt_format|dt_rec|dt_recval) echo progdesc ;;
	dt_probe|dt_instance) echo probes ;;
	*) echo "$1" ;;
	esac
}

[ -d "$objdir" ] || { echo "modcycle: no $objdir (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The engine's files, wherever they are (dtrace/ or dtrace/FOLDER/).
find "$src" -maxdepth 2 -name 'dt_*.[ch]' -type f | sort >"$tmp/files"
grep '\.c$' "$tmp/files" >"$tmp/sources"
# Module of each stem with a source file.
while read -r c; do
	s=$(basename "$c" .c)
	echo "$s $(mod "$s")"
done <"$tmp/sources" >"$tmp/stems"
# Headers belong to the module of their stem when it has sources, or to a
# group named in mod().
grep '\.h$' "$tmp/files" | while read -r h; do
	s=$(basename "$h" .h)
	m=$(mod "$s")
	if grep -q "/$s\.c\$" "$tmp/sources" || [ "$m" != "$s" ]; then
		echo "$s.h $m"
	fi
done >"$tmp/headers"

# File edges, "from to what": calls (symbol -> defining file, then each
# use; one nm for all: the lines are "path/dt_x.o:address type symbol",
# or "path/dt_x.o: U symbol"), then includes of every file.
objs=$(sed "s|^|$B/obj/|; s|\.c\$|.o|" "$tmp/sources")
for o in $objs; do
	[ -f "$o" ] || { echo "modcycle: no $o (build first)" >&2; exit 2; }
done
# shellcheck disable=SC2086 # one word per object
nm -A $objs | awk '
	{ f = $1; sub(/:.*/, "", f); sub(/.*\//, "", f); sub(/\.o$/, "", f) }
	NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", $3, f }
	NF == 3 && $2 == "U" { print "U", $3, f }' >"$tmp/filesyms"
awk '$1 == "D" { def[$2] = $3 }
     $1 == "U" && ($2 in def) && def[$2] != $3 { print $3, def[$2], $2 }' \
	"$tmp/filesyms" "$tmp/filesyms" >"$tmp/fedges"
while read -r f; do
	s=$(basename "$f"); s=${s%.*}
	sed -n "s/^#include \"\(dt_[a-z0-9_]*\)\.h\".*/$s \1 #include/p" "$f"
done <"$tmp/files" | awk '$1 != $2' >>"$tmp/fedges"

# Module edges: calls between modules, and includes of a header that
# belongs to a module (from a source, or from a module's header).
awk '{ print $1, $2 }' "$tmp/stems" >"$tmp/mods"
awk 'NR == FNR { mod[$1] = $2; next }
	{ print $1, $2, mod[$3] }' "$tmp/mods" "$tmp/filesyms" >"$tmp/syms"
awk 'NR == FNR { mod[$1] = $2; next }
	$3 != "#include" && mod[$1] != mod[$2] { print mod[$1], mod[$2] }' \
	"$tmp/mods" "$tmp/fedges" >"$tmp/edges"
awk 'FILENAME == ARGV[1] { hmod[$1] = $2; next }
	FILENAME == ARGV[2] { smod[$1] = $2; next }
	$3 == "#include" {
		if ($1 in smod) m = smod[$1]
		else if (($1 ".h") in hmod) m = hmod[$1 ".h"]
		else next
		h = $2 ".h"
		if ((h in hmod) && hmod[h] != m) print m, hmod[h]
	}' "$tmp/headers" "$tmp/mods" "$tmp/fedges" >>"$tmp/edges"

sort -u -o "$tmp/edges" "$tmp/edges"
cp "$tmp/edges" "$tmp/graph"
# Each module also stands alone, so tsort sees modules without edges.
awk '{ print $2, $2 }' "$tmp/stems" | sort -u >>"$tmp/graph"

if ! tsort "$tmp/graph" >"$tmp/order" 2>"$tmp/loops"; then
	echo "modcycle: the module graph of $src/ has a cycle:" >&2
	awk '/input contains a loop/ { if (l != "") print "   ", l; l = ""; next }
	     { sub(/^tsort: /, ""); l = l (l == "" ? "" : " -> ") $0 }
	     END { if (l != "") print "   ", l }' "$tmp/loops" >&2
	echo "modcycle: edges (module -> module it depends on):" >&2
	sort -u "$tmp/edges" | sed 's/^/    /' >&2
	exit 1
fi
# The contract beyond the absence of cycles: these modules never reach the
# ones they are paired with, directly or through others.
forbid="consumer:codegen consumer:checker checker:codegen output:consumer \
	progdesc:codegen progdesc:checker progdesc:consumer \
	probes:codegen probes:checker probes:dt_compile"
bad=$(echo "$forbid" | tr ' ' '\n' | awk -F: '
	NR == FNR { succ[$1] = succ[$1] " " $2; next }
	NF == 2 {
		delete seen; n = 0; stack[++n] = $1; found = 0
		while (n > 0 && !found) {
			v = stack[n--]
			k = split(succ[v], next_, " ")
			for (i = 1; i <= k; i++) {
				w = next_[i]
				if (w == $2) found = 1
				if (!(w in seen)) { seen[w] = 1; stack[++n] = w }
			}
		}
		if (found) print "    " $1 " reaches " $2
	}' FS=' ' "$tmp/edges" FS=: -)
# What the checker may depend on at all (directly).
checker_deps="dt_type dt_btf dt_ident dt_pcb dt_subr progdesc"
bad=$(printf '%s\n%s' "$bad" "$(awk -v ok="$checker_deps" '
	BEGIN { n = split(ok, a, " ")
		for (i = 1; i <= n; i++) allow[a[i]] = 1 }
	$1 == "checker" && !($2 in allow) {
		print "    checker depends on " $2 " (allowed: " ok ")" }' \
	"$tmp/edges")" | sed '/^$/d')
# The compiler alone writes the program description: no module but the
# code generator and the compile driver (which adds the clauses the code
# generator made, and not a D library's) calls its writers.
writers="dt_pd_clause_add dt_pd_agg_add dt_pd_fini"
bad=$(printf '%s\n%s' "$bad" "$(awk -v w="$writers" '
	BEGIN { n = split(w, a, " "); for (i = 1; i <= n; i++) wr[a[i]] = 1 }
	$1 == "U" && ($2 in wr) && $3 != "codegen" && $3 != "dt_compile" {
		print "    " $3 " writes the program description (" $2 ")" }' \
	"$tmp/syms")" | sed '/^$/d')
if [ -n "$bad" ]; then
	echo "modcycle: the compiler/consumer contract is broken:" >&2
	echo "$bad" >&2
	exit 1
fi

# The folder order: no file depends on a file of a folder above its own.
# Files the table does not name fail layers.sh check, before anything.
layers=$(dirname "$0")/layers.sh
"$layers" check >/dev/null
"$layers" order >"$tmp/folders"
"$layers" table >"$tmp/table"
awk -v voc="$vocabulary" '
	FILENAME == ARGV[1] { rank[$1] = FNR; next }
	FILENAME == ARGV[2] { fo[$1] = $2; next }
	$1 == voc && $3 == "#include" { next }
	!($1 in fo) || !($2 in fo) || fo[$1] == fo[$2] { next }
	{ how = $3 == "#include" ? "#include \"" $2 ".h\"" : "calls " $3
	  print (rank[fo[$1]] < rank[fo[$2]] ? "up" : "down"), fo[$1], fo[$2],
		"    " fo[$1] "/" $1 " -> " fo[$2] "/" $2 ": " how }' \
	"$tmp/folders" "$tmp/table" "$tmp/fedges" | sort -u >"$tmp/across"
if grep -q '^up ' "$tmp/across"; then
	echo "modcycle: a folder depends on one above it" \
		"($(tr '\n' ' ' <"$tmp/folders" | sed 's/ $//; s/ / < /g')):" >&2
	sed -n 's/^up [^ ]* [^ ]* //p' "$tmp/across" >&2
	exit 1
fi

for m in checker codegen; do
	echo "modcycle: $m -> $(awk -v m=$m '$1 == m { print $2 }' \
		"$tmp/edges" | tr '\n' ' ' | sed 's/ $//')"
done
echo "modcycle: $(wc -l <"$tmp/edges" | tr -d ' ') edges," \
	"$(awk '{ print $2 }' "$tmp/stems" | sort -u | wc -l | tr -d ' ')" \
	"modules, no cycle"
echo "modcycle: folders $(tr '\n' ' ' <"$tmp/folders" | sed 's/ $//; s/ / < /g'):" \
	"$(awk '{ print $2, $3 }' "$tmp/across" | sort -u | wc -l | tr -d ' ')" \
	"folder pairs with edges, none upward"
