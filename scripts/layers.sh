#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/layers.sh: the folders of the engine (dtrace/), which are its
# layers, and the one table that says which folder each engine file lives
# in.
#
#   scripts/layers.sh table    "stem folder" for each file stem (dt_x for
#                              dt_x.c and dt_x.h)
#   scripts/layers.sh order    the folders, bottom-up, one a line
#   scripts/layers.sh check    every dt_*.c/h under dtrace/ is named in the
#                              table, and once the tree is in folders, sits
#                              in its folder
#   scripts/layers.sh move     puts each file in its folder with git mv (a
#                              file already there is left), writes each
#                              folder's README.md and dtrace/README.md
#                              from the table, and
#                              rewrites "dtrace/dt_x.c" paths in the tree's
#                              text to "dtrace/FOLDER/dt_x.c"
#
# A folder may call the folders below it, never one above: `make modcycle`
# (scripts/modcycle.sh) checks it, from what each file includes and what
# each object calls.  Circles of files stay inside one folder.  A file
# added to the engine is named here, deliberately, in the folder whose
# layer it belongs to: check and move fail on a file the table does not
# name.  The "#" lines above a folder's first line are its README.md.
#
# Sources keep including headers by name (#include "dt_x.h"): the Makefile
# puts every folder on the include path.
set -eu

cd "$(dirname "$0")/.."

layers() {
	cat <<'TABLE'
# The session handle and the vocabulary every layer speaks.
# dt_impl.h holds every piece of a session's state; beside it:
# allocation and messages (dt_subr), the (tag, name) map, clause sets,
# D types, compile error tags, the compile control block's arena and
# error exit (dt_pcb), which the handle embeds, and the guard around
# every call into a plugin, which names it when it crashes (dt_plugcall).
# The utility layer: the one hash function and hash table (dt_hash.h:
# <dtrace/hash.h>) and the growable array (dt_array.h: <dtrace/array.h>),
# headers that plugins use too; what is read of a process in /proc (its
# stat, environment, root and mount namespace: dt_procfs).  These use
# nothing of the engine; dt_procfs is also compiled into libdtcommon.a.
# May call: no other folder.  dt_impl.h includes compiler/dt_ast.h (the
# compile control block holds the parse tree): the one include across
# the order, until the handle is split.
base      dt_impl dt_subr dt_strmap dt_clauseset dt_error dt_type dt_pcb
base      dt_plugcall dt_hash dt_array dt_procfs

# Files, symbols and processes.
# ELF files, their symbols and <sys/sdt.h> notes, /proc/PID/maps, D types
# from DWARF and from the kernel's BTF, separate debug files, and the
# processes of -c and -p; the one way to open a file another process
# names (dt_untrusted: never blocking, regular files only); the
# kernel's text symbols from /proc/kallsyms (dt_ksyms).  dt_elf.c,
# dt_elf_stapsdt.c, dt_procmaps.c and dt_untrusted.c are also compiled
# into libdtcommon.a for dtprobed, and use nothing of the engine.
# May call: base.
symbols   dt_elf dt_elf_stapsdt dt_procmaps dt_dwarf dt_btf dt_debuginfo dt_proc
symbols   dt_untrusted dt_ksyms

# BPF code and objects.
# The assembler, the disassembler (-S), the optimizer of finished code
# (dt_opt; dt_opt_inline: dataflow over straight-line code and functions
# run inline at a program's entry), the session's maps, program loading
# and links (dt_bpf_detach: the links closed at the session's end, the
# slow part in a process of its own), the kernel's features (dt_nop5:
# what the kernel makes of a uprobe on a 5-byte nop, and whether a
# forked child survives it), and
# the layout of the BPF-side state (dt_runtime.h: the maps every session
# has, the machine state).
# May call: base, symbols.
bpf       dt_as dt_dis dt_opt dt_opt_inline dt_bpf dt_bpf_detach dt_runtime dt_nop5

# The probe table.
# Providers' probes by PRID and by name, and the probes the programs make
# at run time for the processes of a template probe: one id space, two
# files that call each other.
# May call: base, symbols, bpf.
probes    dt_probe dt_instance

# The compiler/consumer contract.
# The program description (clauses, aggregations, formats of printf-like
# actions) and the layout of records (dt_rec.h), which the code generator
# writes and the consumer reads; the clauses a probe that appears while
# tracing is enabled with.
# May call: base, symbols, bpf, probes.
contract  dt_progdesc dt_format dt_rec
contract  dt_recval

# D to BPF.
# Lexer, parser and parse tree, type checker, identifiers, code generator
# and its register pool, translators, D libraries (-L), the C
# preprocessor (-C).  The driver that runs them over a program text is
# cmd/dt_compile.c.
# May call: base, symbols, bpf, probes, contract (the program description
# only as its writer: `make modcycle`).
compiler  dt_lex dt_parse dt_parse_decl dt_parse_impl dt_ast dt_ast_dump
compiler  dt_check dt_check_impl dt_check_call dt_check_decl dt_check_agg
compiler  dt_check_xlate
compiler  dt_ident dt_cg dt_cg_impl dt_cg_act dt_cg_agg dt_cg_expr dt_cg_net
compiler  dt_cg_sou dt_cg_spec dt_cg_str dt_cg_subr dt_cg_dpath dt_cg_var
compiler  dt_cg_xlate dt_regs dt_lib dt_lib_psinfo dt_cpp

# The programs that run the clauses.
# The program builder, one file per job, called one way (dt_prog_impl.h
# draws it): the host entry points and the session (dt_program), which
# only record what the providers place, underlying probes and overlays
# (dt_prog_sites); the one step that makes the kernel match the record,
# at start and while tracing (dt_prog_reconcile); the session's maps
# (dt_prog_maps), links, refused links and retiring (dt_prog_attach),
# loading and the programs made while tracing (dt_prog_load), which
# program serves which site and one program put together (dt_prog_build),
# programs chained by tail calls (dt_prog_chain), the prefilter
# (dt_prog_prefilter), the code of one program: prologue, trampolines,
# overlay lookup, clause calls (dt_prog_emit).  Beside it: kernel events
# (kprobes, fentry/fexit, raw tracepoints); the return firings the kernel
# omits past its depth, counted (dt_uretdepth); the traced processes the
# kernel kills for a uprobe it cannot handle, reported (dt_sigwatch, whose
# descriptors the session's event loop sleeps on).
# May call: every folder below it.
runtime   dt_program dt_prog_impl dt_prog_sites dt_prog_reconcile dt_prog_maps
runtime   dt_prog_attach dt_prog_load dt_prog_build dt_prog_chain
runtime   dt_prog_prefilter dt_prog_emit dt_kevent dt_uretdepth dt_sigwatch

# Output: decoded records printed as text or JSON.
# The one interface through which the consumer's decoded values are
# printed (dt_output.h), its text implementation (dt_text, DTrace's
# layout; dt_text_agg, aggregations and histograms) and its JSON one
# (dt_json); aggregations as OpenMetrics families (dt_openmetrics, for
# -x metrics); the profile outputs, stack aggregations as folded stacks,
# an SVG flame graph or a pprof profile (dt_profile, dt_flamegraph,
# dt_pprof); the printf engine, print()'s typed layout, and the output
# stream (-o).  It never calls the consumer: what it prints comes decoded.
# May call: base, symbols, bpf, probes, contract.
output    dt_output dt_text dt_text_agg dt_json dt_openmetrics dt_profile
output    dt_flamegraph dt_pprof dt_printf dt_print

# Records, read and decoded once.
# Records out of the output ring buffer: buffer policies, actions' effects,
# records decoded into values (dt_decode: stacks unwound and symbolized),
# aggregations (snapshot and merge in dt_agg, sorting and the printa walk
# in dt_agg_print, clear, trunc and normalize in dt_agg_clear), user
# stacks unwound; printed through output/.  The aggregations served to
# Prometheus while tracing (dt_metrics: an HTTP server in threads of its
# own, the snapshots taken by the session's loop).
# May call: every folder below it; of the compiler's work it knows only
# the program description (`make modcycle`).
consumer  dt_consume dt_consume_impl dt_consume_buf dt_decode dt_agg
consumer  dt_agg_impl dt_agg_print dt_agg_clear dt_unwind dt_unwind_lu dt_unwind_mem dt_metrics

# Processes as they exec.
# The exec gate (each exec held until the watching providers saw the
# files it maps), its watchdog process, the loader model (dt_ldso: the
# files ld.so maps, computed from the files; dt_ldso_sect: whether one
# has a section), where the loader's debugger hook is (dt_rtld), and the
# exec watch (dt_exec: its programs built with the assembler and loaded,
# its maps created, through bpf/ like the others').  The watch and the
# gate give the session's event loop (cmd/) their descriptors, and it
# calls them.
# May call: every folder below it; not the consumer, which a library
# change reaches through the session's loop.
gate      dt_gate dt_gatewd dt_ldso dt_ldso_sect dt_rtld dt_exec

# The door of the provider plugins.
# Plugins found, loaded and checked, the host table they call
# (dt_provider), its ELF and process services (dt_hostsvc), and which
# plugin files may be loaded at all (dt_trust: their owners).
# May call: every folder below it.
host      dt_provider dt_hostsvc dt_trust

# The command.
# Options and the session (dt_main), the session's event loop
# (dt_session: one poll() on the output ring buffer, the exec watch's and
# the exec gate's, the providers' and the signal watch's descriptors,
# then each source called in turn), -x and #pragma D option
# (dt_options), the compile driver (dt_compile: cpp, parse, pragmas, one
# clause after the other through the code generator), and the USDT build
# tooling, dtrace -h (dt_header) and -G (dt_link).
# May call: every folder below it.
cmd       dt_main dt_session dt_options dt_compile dt_header dt_link dt_usdt_gen
TABLE
}

# "stem folder" lines.
table() {
	layers | awk '/^#/ || NF == 0 { next }
		{ for (i = 2; i <= NF; i++) print $i, $1 }'
}

order() {
	layers | awk '/^#/ || NF == 0 { next } !seen[$1]++ { print $1 }'
}

# The comment above folder $1's first line in the table: its title, then
# (a paragraph each) what lives there and what it may call.
comment() {
	layers | awk -v f="$1" '
		/^#/ { l = substr($0, 3)
		       if (l ~ /^May call:/ || n == 1) l = "\n" l
		       c = c l "\n"; n++; next }
		NF == 0 { c = ""; n = 0; next }
		$1 == f { printf "%s", c; exit }
		{ c = ""; n = 0 }'
}

# The README.md of folder $1.
readme() {
	printf '<!-- Written by scripts/layers.sh from its table: edit it there. -->\n'
	printf '# dtrace/%s/\n\n' "$1"
	comment "$1"
	printf '\nFiles: %s.\n\nThe folders, bottom-up: %s (HACKING.md).\n' \
		"$(table | awk -v f="$1" '$2 == f { print $1 }' |
			tr '\n' ' ' | sed 's/ $//; s/ /, /g')" \
		"$(order | tr '\n' ' ' | sed 's/ $//; s/ / < /g')"
}

# The README.md of dtrace/: each folder's title, top-down.
# shellcheck disable=SC2016 # Markdown's backquotes, not the shell's
readme_top() {
	printf '<!-- Written by scripts/layers.sh from its table: edit it there. -->\n'
	printf '# dtrace/: the engine, one folder per layer\n\n'
	printf 'Top-down; a folder may call the folders below it, never one above\n'
	printf '(`make modcycle`).  The map, and why this order: HACKING.md.\n\n'
	for f in $(order | tac); do
		printf -- '- `%s/`: %s\n' "$f" "$(comment "$f" | head -1)"
	done
}

# Engine files on disk, as paths (dtrace/dt_x.c or dtrace/FOLDER/dt_x.c).
engine_files() {
	find dtrace -maxdepth 2 -name 'dt_*.[ch]' -type f | sort
}

# Fails naming every engine file whose stem the table does not name.
check_named() {
	table >"$tmp/table"
	engine_files | awk 'NR == FNR { f[$1] = $2; next }
		{ s = $0; sub(/.*\//, "", s); sub(/\.[ch]$/, "", s)
		  if (!(s in f)) print }' "$tmp/table" - >"$tmp/unnamed"
	if [ -s "$tmp/unnamed" ]; then
		echo "layers: not in the table of scripts/layers.sh (name each" \
			"in the folder of its layer):" >&2
		sed 's/^/    /' "$tmp/unnamed" >&2
		return 1
	fi
	engine_files | sed 's|.*/||; s|\.[ch]$||' | sort -u >"$tmp/stems"
	awk '{ print $1 }' "$tmp/table" | sort -u | comm -23 - "$tmp/stems" |
	while read -r s; do
		echo "layers: $s is in the table but no file has that name" >&2
	done
	table | awk '{ print $1 }' | sort | uniq -d >"$tmp/twice"
	if [ -s "$tmp/twice" ]; then
		echo "layers: named twice in the table: $(tr '\n' ' ' <"$tmp/twice")" >&2
		return 1
	fi
}

# "from to" for each engine file not where the table puts it.
misplaced() {
	table >"$tmp/table"
	engine_files | awk 'NR == FNR { f[$1] = $2; next }
		{ s = $0; sub(/.*\//, "", s); base = s; sub(/\.[ch]$/, "", s)
		  to = "dtrace/" f[s] "/" base
		  if ($0 != to) print $0, to }' "$tmp/table" -
}

# Rewrites "dtrace/dt_x.c" (and .h) into "dtrace/FOLDER/dt_x.c" in every
# tracked text file that names one, but this script.
rewrite_paths() {
	table | awk '{ printf "s#dtrace/%s\\.\\([ch]\\)\\b#dtrace/%s/%s.\\1#g\n",
		$1, $2, $1 }' >"$tmp/paths.sed"
	git grep -lIE 'dtrace/dt_[a-z0-9_]+\.[ch]\b' -- . ':!scripts/layers.sh' |
	while read -r f; do
		sed -i -f "$tmp/paths.sed" "$f"
	done
}

move() {
	check_named
	misplaced >"$tmp/moves"
	while read -r from to; do
		mkdir -p "$(dirname "$to")"
		git mv "$from" "$to"
	done <"$tmp/moves"
	for f in $(order); do
		readme "$f" >"dtrace/$f/README.md"
		git add "dtrace/$f/README.md"
	done
	readme_top >dtrace/README.md
	git add dtrace/README.md
	rewrite_paths
	echo "layers: moved $(wc -l <"$tmp/moves" | tr -d ' ') files;" \
		"$(engine_files | wc -l | tr -d ' ') engine files in" \
		"$(order | wc -l | tr -d ' ') folders"
}

# Before the move every file is flat in dtrace/; after it, each must be in
# its folder (a new file left flat is caught here).
check() {
	check_named
	if [ -z "$(find dtrace -mindepth 2 -maxdepth 2 -name 'dt_*.[ch]' | head -1)" ]; then
		echo "layers: dtrace/ is flat (scripts/layers.sh move puts it in folders)"
		return 0
	fi
	misplaced >"$tmp/moves"
	if [ -s "$tmp/moves" ]; then
		echo "layers: not in the folder scripts/layers.sh names" \
			"(scripts/layers.sh move):" >&2
		sed 's/ / -> /; s/^/    /' "$tmp/moves" >&2
		return 1
	fi
	for f in $(order); do
		readme "$f" | cmp -s - "dtrace/$f/README.md" || {
			echo "layers: dtrace/$f/README.md differs from the table" \
				"(scripts/layers.sh move writes it)" >&2
			return 1
		}
	done
	readme_top | cmp -s - dtrace/README.md || {
		echo "layers: dtrace/README.md differs from the table" \
			"(scripts/layers.sh move writes it)" >&2
		return 1
	}
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case ${1:-} in
table) table ;;
order) order ;;
check) check ;;
move) move ;;
*) echo "usage: scripts/layers.sh table|order|check|move" >&2; exit 2 ;;
esac
