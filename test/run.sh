#!/bin/bash
# SPDX-License-Identifier: MIT
# test/run.sh: run every test of the tree against one build, print one line
# per test (PASS/FAIL/SKIP name) and end with "N passed, N failed" (then
# ", N skipped" when some were) as the very last line.  Exit status 1 when
# any test failed.
#
# Kinds of tests (see HACKING.md):
#   $B/test/unit/*            C programs: exit 0 passes, 77 skips
#   test/d/**/tst.NAME.d      run as `dtrace -s tst.NAME.d` from the test's
#                             directory; stdout must equal tst.NAME.d.out and
#                             the exit status tst.NAME.d.status (default 0).
#                             Options come from a first-line comment
#                             /* @dtrace-opts: -q -x strsize=32 */ where $B
#                             stands for the build directory.
#   test/d/**/err.D_TAG.NAME.d  run with -x errtags: must exit 1 with
#                             "[D_TAG]" on stderr
#   test/sh/AREA/*.sh         run by bash in a fresh scratch directory with
#                             DTRACE, B, DTRACE_PLUGIN_PATH, TESTDIR (the
#                             test/ directory) and TMPDIR exported: exit 0
#                             passes, 77 skips.  Each sources
#                             test/sh/lib/test_lib.sh first; the areas are
#                             in test/sh/README.md.  A test left loose in
#                             test/sh/ itself fails, named, whatever
#                             DT_TESTS says: it belongs in an area.
#                             A line "# @alone" runs
#                             it after the others, with no other test
#                             running: its dtrace session probes every
#                             process (myapp*:::tick), and would raise
#                             the semaphores of the programs other tests
#                             build and run.
#
# Environment:
#   B             build directory (default: build/ of this tree)
#   DT_SANITIZED  1 when $B is a sanitizer build: sets ASan/UBSan options
#   DT_JOBS       tests run at once (default 2)
#   DT_TIMEOUT    seconds a test may take (default 30)
#   DT_TESTS      a regular expression: run only the tests whose path under
#                 test/ (or the build's test/) matches; a shell test is also
#                 taken when sh/NAME.sh, its path before the areas, matches
#
# dtrace runs pinned to CPU 0 (taskset) so that the CPU column of BEGIN and
# END lines is stable.  Works from any directory.  Each test runs under
# `timeout`; a test that
# hangs fails with "timed out" and never stops the run.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELF=$ROOT/test/run.sh
TESTDIR=$ROOT/test

# A relative B is taken from the current directory when it exists there,
# else from the top of the tree (the Makefile passes B=build).
B=${B:-build}
if [ "${B#/}" = "$B" ]; then
	if [ -d "$B" ]; then B=$(cd "$B" && pwd); else B=$ROOT/$B; fi
fi
DTRACE=$B/dtrace
DTRACE_PLUGIN_PATH=$B/plugins
DT_TIMEOUT=${DT_TIMEOUT:-30}
# The system's python3 first: one found before it on PATH may be a version
# manager's shim, which costs seconds a start on a loaded machine.
[ -x /usr/bin/python3 ] && PATH=/usr/bin:$PATH
DT_JOBS=${DT_JOBS:-2}
export B DTRACE DTRACE_PLUGIN_PATH TESTDIR DT_TIMEOUT

if [ "${DT_SANITIZED:-0}" = 1 ]; then
	# Leaks are bugs ("nothing is lost silently"): LeakSanitizer is on.
	# The sanitizers' exit codes are moved away from 1, which dtrace uses
	# for compile errors, so an err.* test cannot pass by crashing.  Any
	# options the caller set come last and win.
	export ASAN_OPTIONS="detect_leaks=1:exitcode=99:abort_on_error=0:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export LSAN_OPTIONS="exitcode=99${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=98${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
fi

MAX_DETAIL=40	# lines of diff or stderr shown for a failure

# --- running one test --------------------------------------------------------
# Each runs in a child (`run.sh --one KIND FILE`), prints its whole report
# with one write so that parallel reports do not interleave, and appends its
# verdict to $DT_RESULTS.

# The test's name as printed: its path below test/, or below $B for units.
test_name() {
	case $1 in
	"$TESTDIR"/*) echo "${1#"$TESTDIR"/}" ;;
	"$B"/*) echo "${1#"$B"/}" ;;
	*) echo "$1" ;;
	esac
}

# report VERDICT NAME [DETAIL-FILE...]: print the verdict line and, for a
# failure, the first lines of each detail file; record the verdict.
report() {
	local verdict=$1 name=$2 out
	shift 2
	out="$verdict $name"$'\n'
	if [ "$verdict" = FAIL ]; then
		local f
		for f in "$@"; do
			[ -s "$f" ] || continue
			out+=$(head -n "$MAX_DETAIL" "$f" | sed 's/^/    /')$'\n'
			if [ "$(wc -l <"$f")" -gt "$MAX_DETAIL" ]; then
				out+="    [... $(wc -l <"$f") lines in all]"$'\n'
			fi
		done
	fi
	printf '%s' "$out"
	echo "$verdict" >>"$DT_RESULTS"
}

# The options of a D test: its first line's @dtrace-opts comment, with $B
# replaced by the build directory.
dtrace_opts() {
	local first
	IFS= read -r first <"$1" || true
	case $first in
	*@dtrace-opts:*) ;;
	*) return 0 ;;
	esac
	first=${first#*@dtrace-opts:}
	first=${first%%\*/*}
	first=${first//\$\{B\}/$B}
	first=${first//\$B/$B}
	echo "$first"
}

# Run dtrace under the time limit; notes a timeout in the stderr file.
# dtrace runs on CPU 0 only: BEGIN and END fire in its own thread, so the
# CPU column of the default output is stable.
PIN=
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"
run_dtrace() {
	local errfile=$1 status
	shift
	timeout -k 5 "$DT_TIMEOUT" $PIN "$DTRACE" "$@" 2>"$errfile"
	status=$?
	if [ $status = 124 ] || [ $status = 137 ]; then
		echo "timed out after ${DT_TIMEOUT}s" >>"$errfile"
	fi
	return $status
}

run_unit() {
	local bin=$1 name tmp status limit
	name=$(test_name "$bin")
	tmp=$(mktemp -d)
	limit=$(sh_timeout "$TESTDIR/unit/$(basename "$bin").c")
	(cd "$tmp" && timeout -k 5 "$limit" "$bin") >"$tmp/.out" 2>&1
	status=$?
	case $status in
	0) report PASS "$name" ;;
	77) report SKIP "$name" ;;
	*) echo "exit status $status" >>"$tmp/.out"
	   report FAIL "$name" "$tmp/.out" ;;
	esac
	rm -rf "$tmp"
}

run_tst() {
	local file=$1 name dir base tmp expect_status=0 status opts
	name=$(test_name "$file")
	dir=$(dirname "$file")
	base=$(basename "$file")
	tmp=$(mktemp -d)
	[ -f "$file.status" ] && expect_status=$(tr -d ' \n' <"$file.status")
	opts=$(dtrace_opts "$file")
	# shellcheck disable=SC2086 # the options are words
	(cd "$dir" && run_dtrace "$tmp/err" $opts -s "$base") >"$tmp/out"
	status=$?
	if [ ! -f "$file.out" ]; then
		echo "missing expected output $name.out" >"$tmp/why"
		report FAIL "$name" "$tmp/why" "$tmp/err"
	elif [ "$status" != "$expect_status" ]; then
		echo "exit status $status, expected $expect_status" >"$tmp/why"
		diff -u "$file.out" "$tmp/out" >"$tmp/diff"
		report FAIL "$name" "$tmp/why" "$tmp/diff" "$tmp/err"
	elif ! diff -u --label expected --label actual \
		"$file.out" "$tmp/out" >"$tmp/diff"; then
		report FAIL "$name" "$tmp/diff" "$tmp/err"
	else
		report PASS "$name"
	fi
	rm -rf "$tmp"
}

run_err() {
	local file=$1 name dir base tag tmp status opts
	name=$(test_name "$file")
	dir=$(dirname "$file")
	base=$(basename "$file")
	tag=${base#err.}
	tag=${tag%%.*}
	tmp=$(mktemp -d)
	opts=$(dtrace_opts "$file")
	# shellcheck disable=SC2086
	(cd "$dir" && run_dtrace "$tmp/err" -x errtags $opts -s "$base") \
		>"$tmp/out"
	status=$?
	if [ $status != 1 ]; then
		echo "exit status $status, expected 1 with [$tag]" >"$tmp/why"
		report FAIL "$name" "$tmp/why" "$tmp/err"
	elif ! grep -qF "[$tag]" "$tmp/err"; then
		echo "stderr lacks [$tag]:" >"$tmp/why"
		report FAIL "$name" "$tmp/why" "$tmp/err"
	else
		report PASS "$name"
	fi
	rm -rf "$tmp"
}

# A test that builds much (a package, programs with -flto) asks for a
# longer limit than $DT_TIMEOUT with a line "# @timeout: SECONDS" (a unit
# test's source: " * @timeout: SECONDS" in a comment).
sh_timeout() {
	local t
	t=$(sed -n 's/^\( \*\|#\) @timeout: *\([0-9][0-9]*\)$/\2/p' "$1" 2>/dev/null |
		head -n 1)
	[ -n "$t" ] && [ "$t" -gt "$DT_TIMEOUT" ] && echo "$t" || echo "$DT_TIMEOUT"
}

run_sh() {
	local file=$1 name tmp status limit
	name=$(test_name "$file")
	limit=$(sh_timeout "$file")
	tmp=$(mktemp -d)
	mkdir "$tmp/scratch"
	(cd "$tmp/scratch" && TMPDIR=$tmp/scratch \
		timeout -k 5 "$limit" bash "$file") >"$tmp/.out" 2>&1
	status=$?
	case $status in
	0) report PASS "$name" ;;
	77) report SKIP "$name" ;;
	*) [ $status = 124 ] && echo "timed out after ${limit}s" >>"$tmp/.out"
	   echo "exit status $status" >>"$tmp/.out"
	   report FAIL "$name" "$tmp/.out" ;;
	esac
	rm -rf "$tmp"
}

# A shell test directly in test/sh/: named, and failed, so that it is
# moved into its area rather than silently not run.
run_loose() {
	local name why
	name=$(test_name "$1")
	why=$(mktemp)
	echo "left loose in test/sh/: move it into an area folder" \
		"(test/sh/README.md) with git mv" >"$why"
	report FAIL "$name" "$why"
	rm -f "$why"
}

if [ "${1:-}" = --one ]; then
	case $2 in
	loose) run_loose "$3" ;;
	unit) run_unit "$3" ;;
	tst) run_tst "$3" ;;
	err) run_err "$3" ;;
	sh) run_sh "$3" ;;
	esac
	exit 0
fi

# --- the whole run -------------------------------------------------------------

# Every test as "KIND FILE", one a line, in a stable order.
list_tests() {
	local f
	for f in "$B"/test/unit/*; do
		[ -f "$f" ] && [ -x "$f" ] && echo "unit $f"
	done
	if [ -d "$TESTDIR/d" ]; then
		find "$TESTDIR/d" -type f -name 'tst.*.d' | LC_ALL=C sort |
			sed 's/^/tst /'
		find "$TESTDIR/d" -type f -name 'err.D_*.d' | LC_ALL=C sort |
			sed 's/^/err /'
	fi
	for f in "$TESTDIR"/sh/*/*.sh; do
		[ -f "$f" ] && [ "${f%/lib/*}" = "$f" ] && echo "sh $f"
	done
	for f in "$TESTDIR"/sh/*.sh; do
		[ -f "$f" ] && echo "loose $f"
	done
}

DT_RESULTS=$(mktemp)
export DT_RESULTS
trap 'rm -f "$DT_RESULTS"' EXIT

if [ ! -x "$DTRACE" ]; then
	echo "note: $DTRACE does not exist: D tests will fail (run make first)"
fi

# Whether the test "KIND FILE" asks to run alone (# @alone).
wants_alone() {
	[ "${1%% *}" = sh ] && grep -q '^# @alone$' "${1#* }"
}

# Run the tests of standard input, "KIND FILE" a line, JOBS at once.
run_tests() {
	tr '\n' '\0' |
		xargs -0 -r -P "$1" -I{} bash -c '"$0" --one ${1%% *} "${1#* }"' \
			"$SELF" {}
}

# The tests whose path under test/ matches DT_TESTS: matched on the whole
# path, a tree living in a directory named like a test would select them all.
select_tests() {
	local kind file rel
	while read -r kind file; do
		rel=${file#"$TESTDIR"/}
		rel=${rel#"$B"/test/}
		if [ "$kind" = loose ] || [[ $rel =~ $DT_TESTS ]] ||
			{ [ "$kind" = sh ] && [[ sh/${file##*/} =~ $DT_TESTS ]]; }; then
			echo "$kind $file"
		fi
	done
	return 0
}

SELECTED=$(list_tests |
	{ if [ -n "${DT_TESTS:-}" ]; then select_tests; else cat; fi; })
ALONE=""
TOGETHER=""
while IFS= read -r t; do
	[ -n "$t" ] || continue
	if wants_alone "$t"; then ALONE+="$t"$'\n'; else TOGETHER+="$t"$'\n'; fi
done <<<"$SELECTED"
printf '%s' "$TOGETHER" | run_tests "$DT_JOBS"
printf '%s' "$ALONE" | run_tests 1
# the throwaway users of tests the time limit killed before they could
# remove them (test/sh/lib/user_lib.sh), and their pinned maps
# (test/usdt/daemon_lib.sh: named by the test's pid, which is gone)
(. "$TESTDIR/sh/lib/user_lib.sh" && remove_orphaned_users)
for pin in /sys/fs/bpf/dtprobed-test-*; do
	[ -d "$pin" ] && ! kill -0 "${pin##*-}" 2>/dev/null && rm -rf "$pin"
done

passed=$(grep -c '^PASS$' "$DT_RESULTS")
failed=$(grep -c '^FAIL$' "$DT_RESULTS")
skipped=$(grep -c '^SKIP$' "$DT_RESULTS")
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
