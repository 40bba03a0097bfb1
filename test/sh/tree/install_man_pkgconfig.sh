#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# (a make install from a copy of the build and three pages rendered: 25 s
# on a loaded machine, over the 30 s default once)
# `make install DESTDIR=` puts every piece in place (commands, plugins,
# headers, the dtprobed unit with the installed path, man pages, the
# pkg-config file); the man pages render without a warning from groff
# (man --warnings) or mandoc -Tlint; the installed dtrace answers --help
# (status 0) and -V with the plugin directory that dtrace-provider.pc
# names; and the example of dtrace-provider(7), copied from the rendered
# page, builds with `pkg-config --cflags dtrace-provider` against the
# installed headers alone and its probe fires.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
for t in make pkg-config cc man groff mandoc; do
	command -v $t >/dev/null || { echo "no $t"; exit 77; }
done
ROOT=$(cd "$TESTDIR/.." && pwd)

# Install from a copy of the build directory: nothing is rebuilt when the
# flags are the same, and $B is never touched when they are not.  The
# tests' programs and the virtual machine's files (most of its size, which
# install does not need) stay behind.
mkdir b || exit 1
for f in "$B"/* "$B"/.[!.]*; do
	case ${f##*/} in test | vm | bench | '.[!.]*') continue ;; esac
	cp -a "$f" b/ || exit 1
done
D=$PWD/root
san=
[ -n "${DT_SANITIZED:-}" ] && san=SANITIZE=1
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s -C "$ROOT" B="$PWD/b" $san DESTDIR="$D" install >make.log 2>&1 ||
	{ cat make.log; exit 1; }

P=$D/usr/local
for f in sbin/dtrace sbin/dtprobed lib/dtrace/plugins/dtrace.so \
	 lib/dtrace/plugins/pid.so lib/dtrace/plugins/usdt.so \
	 include/dtrace/provider.h include/dtrace/bpf.h include/dtrace/usdt.h \
	 lib/systemd/system/dtprobed.service lib/pkgconfig/dtrace-provider.pc \
	 share/man/man8/dtrace.8 share/man/man8/dtprobed.8 \
	 share/man/man7/dtrace-provider.7; do
	[ -f "$P/$f" ] || fail "not installed: $f"
done
grep -qx 'ExecStart=/usr/local/sbin/dtprobed -F' \
	"$P/lib/systemd/system/dtprobed.service" || fail "unit's ExecStart"

# Man pages: rendered by man(1) and checked by mandoc, no warning at all.
for m in "$P"/share/man/man*/*; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" >"${m##*/}.txt" 2>err ||
		fail "man -l ${m##*/}"
	[ -s err ] && { fail "man warns on ${m##*/}"; cat err; }
	mandoc -Tlint -W warning "$m" >err 2>&1 ||
		{ fail "mandoc -Tlint ${m##*/}"; cat err; }
	grep -q '@[A-Z]*@' "$m" && fail "${m##*/}: placeholder left: $(grep -o '@[A-Z]*@' "$m")"
	[ "$(wc -l <"${m##*/}.txt")" -gt 40 ] || fail "${m##*/} renders short"
done
grep -q "$P" dtrace.8.txt && fail "dtrace.8 names the staging directory"
grep -q '/usr/local/lib/dtrace/plugins' dtrace.8.txt || fail "dtrace.8 FILES"

# --help and -V of the installed command.
"$P/sbin/dtrace" --help >help 2>err; rc=$?
[ $rc = 0 ] || fail "--help exit status $rc"
head -1 help | grep -q '^Usage: dtrace ' || fail "--help: $(head -1 help)"
grep -q -- '-h  generate a header file' help || fail "--help lists -h"
[ -s err ] && fail "--help wrote to stderr: $(cat err)"

export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
# (pkgconf prefixes variables with the sysroot too: ask without it.)
plugindir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=plugindir dtrace-provider) ||
	fail "pkg-config does not know dtrace-provider"
[ "$plugindir" = /usr/local/lib/dtrace/plugins ] || fail "plugindir $plugindir"
"$P/sbin/dtrace" -V >v || fail "-V"
exp=$(printf 'dtrace: Sun D 2.0\ndtrace: plugin directory: %s\ndtrace: library directory: %s' \
	"$plugindir" "${plugindir%/plugins}")
[ "$(cat v)" = "$exp" ] || { fail "-V output"; cat v; }

# The example of dtrace-provider(7), as a reader copies it from the page.
groff -man -Tascii -P -cbou "$P/share/man/man7/dtrace-provider.7" 2>/dev/null |
	sed -n '/^ *\/\* oneshot.c:/,/^ *Build it and trace/p' | sed '$d' >ex.txt
ind=$(head -1 ex.txt | sed 's/[^ ].*//' | wc -c)
cut -c"$ind"- ex.txt >oneshot.c
grep -q 'DTRACE_PROVIDER(' oneshot.c || { fail "no example in dtrace-provider(7)"; exit 1; }
cflags=$(pkg-config --cflags dtrace-provider)
[ "$cflags" = "-I$P/include " ] || [ "$cflags" = "-I$P/include" ] ||
	fail "cflags '$cflags'"
cc -shared -fPIC -O2 -Wall -Werror $cflags -MD -MF oneshot.dep \
	-o oneshot.so oneshot.c || fail "the example does not build"
grep -q "$P/include/dtrace/provider.h" oneshot.dep || fail "example did not use the installed header"
grep -q "$ROOT/include" oneshot.dep && fail "example read the tree's headers"
install -m 644 oneshot.so "$D$plugindir/" || fail "install the example"
out=$(DTRACE_PLUGIN_PATH=$D$plugindir "$P/sbin/dtrace" -q -n '
oneshot:::fire { printf("%d %d\n", args[0] > 0, args[1] == pid); exit(0); }' 2>err)
[ "$out" = "1 1" ] || { fail "example's probe: '$out'"; cat err; }

# Every file or directory of the installation the pages name (the
# examples of dtrace-provider(7) among them) is installed, and so is each
# plugin of the tree, which dtrace(8) and dtrace-provider(7) name.
for m in "$P"/share/man/man[78]/*.[78]; do
	for f in $(grep -o "/usr/local/[^ ]*" "$m" | sed 's/[),;.]*$//' | sort -u); do
		[ -e "$D$f" ] || fail "${m##*/} names $f, which is not installed"
	done
done
for d in "$ROOT"/plugins/*/; do
	p=$(basename "$d")
	[ -f "$P/lib/dtrace/plugins/$p.so" ] || fail "plugin $p not installed"
	for m in dtrace.8 dtrace-provider.7; do
		groff -man -Tascii -P -cbou "$P"/share/man/man*/$m 2>/dev/null |
			grep -qw "$p" || fail "$m does not name the provider $p"
	done
done
words=(none one two three four five six seven eight nine ten eleven twelve)
n=$(ls -d "$ROOT"/plugins/*/ | wc -l)
groff -man -Tascii -P -cbou "$P/share/man/man7/dtrace-provider.7" 2>/dev/null |
	grep -q "The ${words[n]:-$n} built-in ones" ||
	fail "dtrace-provider(7) does not count the $n built-in providers"

exit $status
