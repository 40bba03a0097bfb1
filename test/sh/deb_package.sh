#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 600
# The Debian package, built from a copy of the tree as a packager would
# (dpkg-buildpackage -b), installs dtrace, dtprobed and its systemd unit
# (enabled by the maintainer scripts, ExecStart on the installed path), the
# plugins, headers, man pages and dtrace-provider.pc; its dependencies are
# satisfiable here (apt-get -s); unpacked into a scratch root, its dtrace
# runs with its own plugins and reports the packaged plugin directory, and
# systemctl --root enables the unit there.
#
# The package compiles its own tree (build-deb/), whatever build is under
# test: the sanitizer pass skips it.
set -u
[ -n "${DT_SANITIZED:-}" ] && { echo "the package does not use the build under test"; exit 77; }
for t in dpkg-buildpackage dh dpkg-deb tar; do
	command -v $t >/dev/null || { echo "no $t (dpkg-dev, debhelper)"; exit 77; }
done
ROOT=$(cd "$TESTDIR/.." && pwd)
status=0
fail() { echo "FAIL: $*"; status=1; }

# The tree as a source package holds it: no build directories, no .git.
mkdir src
tar -C "$ROOT" --exclude=./.git --exclude='./build*' --exclude=./debian/dtrace \
	--exclude=./debian/.debhelper -cf - . | tar -C src -xf - || exit 1
(cd src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	DEB_BUILD_OPTIONS="noddebs parallel=2" \
	dpkg-buildpackage -b -us -uc) >build.log 2>&1 ||
	{ tail -n 30 build.log; exit 1; }
version=$(cd src && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$PWD/dtrace_${version}_${arch}.deb
[ -f "$deb" ] || { ls; fail "no $deb"; exit 1; }

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >files
for f in /usr/sbin/dtrace /usr/sbin/dtprobed /lib/systemd/system/dtprobed.service \
	 /usr/lib/dtrace/plugins/dtrace.so /usr/lib/dtrace/plugins/pid.so \
	 /usr/lib/dtrace/plugins/usdt.so /usr/lib/dtrace/plugins/profile.so \
	 /usr/include/dtrace/provider.h /usr/include/dtrace/bpf.h \
	 /usr/include/dtrace/usdt.h /usr/lib/pkgconfig/dtrace-provider.pc \
	 /usr/share/man/man8/dtrace.8.gz /usr/share/man/man8/dtprobed.8.gz \
	 /usr/share/man/man7/dtrace-provider.7.gz /usr/share/doc/dtrace/copyright; do
	grep -qx "$f" files || fail "not in the package: $f"
done
grep -q '/usr/local' files && fail "the package installs under /usr/local"

dpkg-deb -e "$deb" control || exit 1
grep -q "deb-systemd-helper enable 'dtprobed.service'" control/postinst ||
	fail "postinst does not enable dtprobed.service"
grep -q "deb-systemd-invoke .* 'dtprobed.service'" control/postinst ||
	fail "postinst does not start dtprobed.service"
grep -q '^Depends:.*libbpf1' control/control || fail "Depends: $(grep ^Depends control/control)"

# Installable here: every dependency resolves (nothing is changed).
if command -v apt-get >/dev/null; then
	apt-get install -s "$deb" >apt.log 2>&1 ||
		{ fail "apt-get -s install"; tail -n 5 apt.log; }
fi

R=$PWD/root
dpkg -x "$deb" "$R" || exit 1
grep -qx 'ExecStart=/usr/sbin/dtprobed -F' "$R/lib/systemd/system/dtprobed.service" ||
	fail "unit ExecStart: $(grep ExecStart "$R/lib/systemd/system/dtprobed.service")"
grep -qx 'plugindir=/usr/lib/dtrace/plugins' "$R/usr/lib/pkgconfig/dtrace-provider.pc" ||
	fail "dtrace-provider.pc plugindir"
[ "$("$R/usr/sbin/dtrace" -V | sed -n 2p)" = "dtrace: plugin directory: /usr/lib/dtrace/plugins" ] ||
	fail "-V: $("$R/usr/sbin/dtrace" -V)"
[ "$("$R/usr/sbin/dtrace" -V | sed -n 3p)" = "dtrace: library directory: /usr/lib/dtrace" ] ||
	fail "-V: $("$R/usr/sbin/dtrace" -V)"
out=$(DTRACE_PLUGIN_PATH=$R/usr/lib/dtrace/plugins "$R/usr/sbin/dtrace" -q \
	-n 'BEGIN { printf("packaged %d\n", 6 * 7); exit(0); }' 2>err)
[ "$out" = "packaged 42" ] || { fail "packaged dtrace: '$out'"; cat err; }
zcat "$R/usr/share/man/man8/dtrace.8.gz" | grep -q '^\.TH DTRACE 8' || fail "dtrace.8"

if command -v systemctl >/dev/null; then
	systemctl --root="$R" enable dtprobed.service >sd.log 2>&1 ||
		{ fail "systemctl --root enable"; cat sd.log; }
	[ -L "$R/etc/systemd/system/multi-user.target.wants/dtprobed.service" ] ||
		fail "the unit is not wanted by multi-user.target once enabled"
fi

exit $status
