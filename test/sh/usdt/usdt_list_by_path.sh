#!/bin/bash
# SPDX-License-Identifier: MIT
# USDT probes of a file named by its path, without a process:
# dtrace -l -n 'PROVIDER:/path/to/file::' lists the file's probes (provider
# without a pid, module the file's name), through a symbolic link too; the
# same description traces the program run afterwards; while a process runs
# the file, the file's probes are listed still, not that process's own too
# (its pid names them); a path that names no file with probes matches
# nothing.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
[ -x "$B/test/progs/sdt_args" ] || exit 77
# A copy no other test runs, so that no process maps it: only the file's
# own probes are listed.
mkdir copy && cp "$B/test/progs/sdt_args" copy/sdt_args || exit 1
S=$PWD/copy/sdt_args

# 1. every probe of the file, in note order, no -c or -p
"$DTRACE" -l -n "sdt_test:$S::" >out 2>err
rc=$?
header=$(printf '%5s %10s %17s %33s %s' ID PROVIDER MODULE FUNCTION NAME)
id=$(sed -n 2p out | awk '{ print $1 }')
want=$header
for p in consts regs globals array stack fields string many guarded; do
	want+=$'\n'$(printf '%5d %10s %17s %33s %s' "$id" sdt_test sdt_args \
		"fire_$p" "$p")
	id=$((id + 1))
done
if [ $rc != 0 ] || [ "$(cat out)" != "$want" ]; then
	echo "-l by path: exit $rc"; diff <(echo "$want") out; cat err; status=1
fi

# 2. any provider, one name, through a symbolic link to the file
ln -s copy/sdt_args link
"$DTRACE" -l -n ":$PWD/link::consts" >out 2>err
if [ "$(wc -l <out)" != 2 ] ||
   ! sed -n 2p out | grep -Eqx ' *[0-9]+ +sdt_test +sdt_args +fire_consts consts'; then
	echo "-l through a link:"; cat out err; status=1
fi

# 3. tracing by path: the program started afterwards fires as its own
out=$("$DTRACE" -c "$S" -n "sdt_test:$S:fire_consts:consts /pid == \$target/ { @[probeprov == strjoin(\"sdt_test\", lltostr(\$target))] = count(); }" 2>err)
if ! grep -Eq '^ +1 +1$' <<<"$out"; then
	echo "tracing by path:"; echo "$out"; cat err; status=1
fi

# 4. while a process runs the file: still the file's probes, not that
# process's own too, which its pid names
SDT_ARGS_READY=$PWD/ready "$S" 0 100 >/dev/null & run=$!
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.05; done
"$DTRACE" -l -n "sdt_test:$S::" >out 2>err
if [ "$(cut -c7- out)" != "$(cut -c7- <<<"$want")" ]; then
	echo "-l by path, the file run:"; diff <(cut -c7- <<<"$want") \
		<(cut -c7- out); cat err; status=1
fi
"$DTRACE" -l -n "sdt_test$run:$S::consts" >out 2>err
if [ "$(wc -l <out)" != 2 ] ||
   ! sed -n 2p out | grep -Eqx " *[0-9]+ +sdt_test$run +sdt_args +fire_consts consts"; then
	echo "-l by path of the process:"; cat out err; status=1
fi
kill $run; wait $run 2>/dev/null

# 5. a missing file, and an ELF file without USDT notes
for f in /nonexistent/prog "$B/test/progs/pidtarget"; do
	if ! "$DTRACE" -l -n "sdt_test:$f::" >out 2>err ||
	   ! grep -qx "dtrace: failed to match sdt_test:$f::: No probe matches description" err; then
		echo "no probes in $f:"; cat out err; status=1
	fi
done
exit $status
