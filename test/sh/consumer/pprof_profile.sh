#!/bin/bash
# SPDX-License-Identifier: MIT
# -x oformat=pprof -o FILE: stack aggregations as a gzipped pprof profile,
# read by Google's pprof (go tool pprof, Debian's golang-go).  A program
# built here with -g has a known call tree: a() calls c() three times,
# b() once.  The profile's stacks and counts are those of dtrace's own
# text of the same aggregation; sum() is a sample type of its own, the
# other keys labels; its mappings name the file and its build-id, its
# lines come from the DWARF; two processes' profiles merge in one pprof
# call.  Refused: no stack key, no file, a file that cannot be written,
# each in one line naming the option, with status 1 and no file left.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd gcc readelf
command -v go >/dev/null || { echo "no go (golang-go): pprof not run"; exit 77; }
export GOCACHE=$PWD/gocache GOPATH=$PWD/gopath PPROF_TMPDIR=$PWD \
	GOFLAGS=-mod=mod GOTOOLCHAIN=local

cat >calls.c <<'EOF'
__attribute__((noinline)) int c(int x)
{
	return x + 1;
}
__attribute__((noinline)) int a(void)
{
	int s = 0;
	for (int i = 1; i <= 3; i++)
		s += c(i);
	return s;
}
__attribute__((noinline)) int b(void)
{
	return c(10);
}
int main(void)
{
	return (a() + b()) == 0;
}
EOF
gcc -g -O0 -fno-omit-frame-pointer -o calls calls.c ||
	{ echo "cannot build calls"; exit 1; }

COUNT='pid$target:a.out:c:entry { @[ustack()] = count(); }'

# DTrace's text of a stack aggregation as "count frame;frame..." lines
# (function names only: the module and offset cut), sorted.
text_stacks() {
	awk '/`/ { f = $1; sub(/.*`/, "", f); sub(/\+0x.*/, "", f)
		   s = s == "" ? f : s ";" f; next }
	     /^ *[0-9]+$/ && s != "" { print $1, s; s = "" }' "$1" | sort
}

# pprof -traces as the same lines: a sample's value and its frames;
# labels (name: value) left out.
pprof_stacks() {
	awk '/^-+\+/ { if (s != "") print n, s; s = ""; in_ = 1; next }
	     !in_ { next }
	     /^ *[A-Za-z0-9_]+:  / { next }
	     NF >= 2 && $1 ~ /^[0-9]+$/ { n = $1; s = $2; next }
	     NF == 1 { s = s ";" $1 }
	     END { if (s != "") print n, s }' "$1" | grep -v '^0 ' | sort
}

# 1. the text of the aggregation, and the same aggregation as a profile
"$DTRACE" -q -n "$COUNT" -c ./calls >text.out 2>err || fail_run "text run"
text_stacks text.out >text.stacks
grep -q '^3 c;a;main' text.stacks && grep -q '^1 c;b;main' text.stacks ||
	{ cat text.out; fail_run "text stacks: not a 3 times, b once"; }
rc=0
"$DTRACE" -q -x oformat=pprof -o p1.pb.gz -n "$COUNT" -c ./calls \
	>out 2>err || rc=$?
[ $rc = 0 ] && [ -s p1.pb.gz ] || fail_run "pprof run"
[ "$(head -c2 p1.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] ||
	fail "p1.pb.gz is not gzipped"
[ ! -s out ] || fail "records went to stdout: $(head -3 out)"

go tool pprof -top p1.pb.gz >top.out 2>top.err || fail_run "pprof -top" \
	"$(cat top.err)"
grep -q '^File: calls$' top.out ||
	{ cat top.out; fail "-top: the profile is not named after calls"; }
grep -Eq '^ +4 +100% +100% +4 +100% +c$' top.out ||
	{ cat top.out; fail "-top: c is not flat 4"; }
grep -Eq '^ +0 +0% +100% +3 +75.00% +a$' top.out ||
	{ cat top.out; fail "-top: a is not cum 3"; }
grep -Eq '^ +0 +0% +100% +1 +25.00% +b$' top.out ||
	{ cat top.out; fail "-top: b is not cum 1"; }
go tool pprof -traces p1.pb.gz >traces.out 2>&1 || fail "pprof -traces"
pprof_stacks traces.out >pprof.stacks
# the frames below main (libc's start) are in both, as dtrace unwound them
diff text.stacks pprof.stacks >/dev/null ||
	{ diff text.stacks pprof.stacks; fail "-traces differ from the text"; }

# 2. mappings: the file and its build-id; lines from the DWARF
id=$(readelf -n calls | awk '/Build ID/ { print $3 }')
go tool pprof -raw p1.pb.gz >raw.out 2>&1
grep -q " $PWD/calls $id \[FN\]\[FL\]\[LN\]" raw.out ||
	{ sed -n '/Mappings/,$p' raw.out; fail "no mapping of calls with $id"; }
go tool pprof -lines -top p1.pb.gz >lines.out 2>&1
# c's entry is its first line, before its body (its "{")
grep -Eq ' c .*calls\.c:2$' lines.out ||
	{ cat lines.out; fail "-lines: c is not at calls.c:2"; }
grep -Eq ' a .*calls\.c:9$' lines.out ||
	{ cat lines.out; fail "-lines: a's call is not at calls.c:9"; }

# 3. sum() a sample type of its own, another key a label, beside count()
rc=0
"$DTRACE" -q -x oformat=pprof -o sum.pb.gz -c ./calls \
	-n 'pid$target:a.out:c:entry { @n[ustack(20)] = count();
		@s[ustack(20), probefunc] = sum(arg0); }' >out 2>err || rc=$?
[ $rc = 0 ] || fail_run "pprof run of sum"
go tool pprof -sample_index=s -top sum.pb.gz >sum.top 2>&1
grep -Eq '^ +16 +100% +100% +16 +100% +c$' sum.top &&
	grep -Eq '^ +0 +0% +100% +6 +37.50% +a$' sum.top &&
	grep -Eq '^ +0 +0% +100% +10 +62.50% +b$' sum.top ||
	{ cat sum.top; fail "sum: c 16 = a 6 + b 10"; }
go tool pprof -sample_index=n -top sum.pb.gz >n.top 2>&1
grep -Eq '^ +4 +100% +100% +4 +100% +c$' n.top ||
	{ cat n.top; fail "count beside sum: c is not 4"; }
go tool pprof -sample_index=s -tags sum.pb.gz >tags.out 2>&1
grep -Eq '^ *key1: Total 16' tags.out &&
	grep -Eq '^ +16(\.0)? \( *100%\): c$' tags.out ||
	{ cat tags.out; fail "the second key is not the label key1=c"; }

# 4. two processes' profiles merge in one pprof call
rc=0
"$DTRACE" -q -x oformat=pprof -o p2.pb.gz -n "$COUNT" -c ./calls \
	>out 2>err || rc=$?
[ $rc = 0 ] || fail_run "second pprof run"
go tool pprof -top p1.pb.gz p2.pb.gz >merged.out 2>&1
grep -Eq '^ +8 +100% +100% +8 +100% +c$' merged.out &&
	grep -Eq '^ +0 +0% +100% +6 +75.00% +a$' merged.out ||
	{ cat merged.out; fail "merged: c is not 8, a 6"; }
go tool pprof -tags p1.pb.gz p2.pb.gz >mtags.out 2>&1
[ "$(grep -Ec '^ +4(\.0)? \(50.00%\): [0-9]+$' mtags.out)" = 2 ] ||
	{ cat mtags.out; fail "merged: not two pids of 4 each"; }

# 5. refusals: one line naming the option (or -o's file), status 1,
# nothing written
refuse() {	# WHAT FILE DTRACE-ARGS...
	local what=$1 file=$2
	shift 2
	rc=0
	"$DTRACE" -q -x oformat=pprof "$@" -c ./calls >out 2>err || rc=$?
	[ $rc = 1 ] || fail_run "$what: not status 1"
	[ "$(wc -l <err)" = 1 ] &&
	grep -Eq "^dtrace: (-x oformat=pprof: |failed to open output file '$file')" err ||
		fail_run "$what: not one line naming the option"
	[ -z "$file" ] || [ -d "$file" ] || [ ! -e "$file" ] || fail "$what: $file written"
	! ls "$file".* >/dev/null 2>&1 || fail "$what: a temporary file left"
}
refuse "no stack key" nostack.pb.gz -o nostack.pb.gz \
	-n 'pid$target:a.out:c:entry { @[probefunc] = count(); }'
refuse "no stack key in count or sum" avg.pb.gz -o avg.pb.gz \
	-n 'pid$target:a.out:c:entry { @[ustack()] = avg(arg0); }'
refuse "no file" "" -n "$COUNT"
refuse "no directory" nodir/p.pb.gz -o nodir/p.pb.gz -n "$COUNT"
mkdir adir
refuse "a directory" adir -o adir -n "$COUNT"
# a failed run leaves the profile already there as it was
cp p1.pb.gz keep.pb.gz
refuse "kept" "" -o keep.pb.gz -n 'pid$target:a.out:c:entry { @ = count(); }'
cmp -s p1.pb.gz keep.pb.gz || fail "a refused run changed keep.pb.gz"
ls ./*.pb.gz.* >/dev/null 2>&1 && fail "temporary files left: $(ls ./*.pb.gz.*)"
exit $status
