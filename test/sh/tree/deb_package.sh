#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 600
# The Debian package, built from a copy of the tree as a packager would
# (dpkg-buildpackage -b), installs dtrace, dtprobed and its systemd unit
# (enabled by the maintainer scripts, ExecStart on the installed path), the
# plugins, headers, example plugins, man pages and dtrace-provider.pc; its dependencies are
# satisfiable here (apt-get -s); unpacked into a scratch root, its dtrace
# runs with its own plugins and reports the packaged plugin directory, and
# systemctl --root enables the unit there.  With Debian's systemtap-sdt-dev
# on a scratch dpkg root, in either order, /usr/bin/dtrace and dtrace(1)
# are ours and systemtap's are diverted to dtrace.systemtap names, back in
# place once ours is purged (skips when that package cannot be had).
#
# The package compiles its own tree (build-deb/), whatever build is under
# test: the sanitizer pass skips it.
. "$TESTDIR/sh/lib/test_lib.sh"
[ -n "${DT_SANITIZED:-}" ] && { echo "the package does not use the build under test"; exit 77; }
for t in dpkg-buildpackage dh dpkg-deb tar; do
	command -v $t >/dev/null || { echo "no $t (dpkg-dev, debhelper)"; exit 77; }
done
ROOT=$(cd "$TESTDIR/.." && pwd)

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
	 /usr/share/man/man7/dtrace-provider.7.gz /usr/share/doc/dtrace/copyright \
	 /usr/share/dtrace/examples/tracepoint/Makefile \
	 /usr/share/dtrace/examples/uprobe/ucall.c \
	 /usr/share/dtrace/examples/cxx/hello_cxx.cc; do
	grep -qx "$f" files || fail "not in the package: $f"
done
grep -q '/usr/local' files && fail "the package installs under /usr/local"

dpkg-deb -e "$deb" control || exit 1
grep -q "deb-systemd-helper enable 'dtprobed.service'" control/postinst ||
	fail "postinst does not enable dtprobed.service"
grep -q "deb-systemd-invoke .* 'dtprobed.service'" control/postinst ||
	fail "postinst does not start dtprobed.service"
grep -q 'systemd is not running here, so dtprobed was not started' control/postinst ||
	fail "postinst does not say when systemd cannot start dtprobed"
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

# Side by side with Debian's systemtap-sdt-dev, which ships /usr/bin/dtrace
# (its -h/-G) and dtrace(1): ours diverts them to dtrace.systemtap names,
# whichever package comes first, and puts them back when it goes.  Each
# order runs dpkg on a scratch root (the scripts run outside it, with
# DPKG_ROOT set), a systemctl that does nothing first on PATH.
stap_deb=$(ls /var/cache/apt/archives/systemtap-sdt-dev_*.deb 2>/dev/null | tail -n 1)
if [ -z "$stap_deb" ] && command -v apt-get >/dev/null &&
   apt-get download systemtap-sdt-dev >download.log 2>&1; then
	stap_deb=$(ls "$PWD"/systemtap-sdt-dev_*.deb 2>/dev/null | tail -n 1)
fi
if [ -z "$stap_deb" ]; then
	echo "no systemtap-sdt-dev package (apt-get download): coexistence not checked"
	[ $status = 0 ] && exit 77
	exit $status
fi
dpkg-deb -x "$stap_deb" stap || exit 1
mkdir stub && printf '#!/bin/sh\nexit 0\n' >stub/systemctl && chmod +x stub/systemctl

run_dpkg() {
	local root=$1; shift
	PATH=$PWD/stub:$PATH dpkg --root="$root" --force-script-chrootless \
		--force-depends "$@" >>dpkg.log 2>&1
}
scratch_dpkg() { run_dpkg "$@" || { fail "dpkg $*"; tail -n 5 dpkg.log; }; }
new_root() {
	mkdir -p "$1/var/lib/dpkg/info" "$1/var/lib/dpkg/updates" "$1/var/log"
	touch "$1/var/lib/dpkg/status"
}
diversions() { dpkg-divert --root="$1" --list | sort; }
expected_diversions='diversion of /usr/bin/dtrace to /usr/bin/dtrace.systemtap by dtrace
diversion of /usr/share/man/man1/dtrace.1.gz to /usr/share/man/man1/dtrace.systemtap.1.gz by dtrace'

# Both installed: dtrace and man dtrace are ours, systemtap's files kept.
check_both() {
	local root=$1 order=$2
	[ "$(readlink "$root/usr/bin/dtrace")" = ../sbin/dtrace ] ||
		fail "$order: /usr/bin/dtrace is not ours: $(ls -l "$root/usr/bin/dtrace")"
	"$root/usr/bin/dtrace" -V >/dev/null 2>&1 || fail "$order: /usr/bin/dtrace -V"
	[ "$(readlink "$root/usr/share/man/man1/dtrace.1.gz")" = ../man8/dtrace.8.gz ] ||
		fail "$order: dtrace.1.gz: $(ls -l "$root/usr/share/man/man1/dtrace.1.gz")"
	zcat "$root/usr/share/man/man1/dtrace.1.gz" 2>/dev/null | grep -q '^\.TH DTRACE 8' ||
		fail "$order: dtrace(1) does not lead to dtrace(8)"
	cmp -s stap/usr/bin/dtrace "$root/usr/bin/dtrace.systemtap" ||
		fail "$order: systemtap's dtrace not kept as /usr/bin/dtrace.systemtap"
	cmp -s stap/usr/share/man/man1/dtrace.1.gz "$root/usr/share/man/man1/dtrace.systemtap.1.gz" ||
		fail "$order: systemtap's dtrace(1) not kept as dtrace.systemtap.1.gz"
	[ "$(diversions "$root")" = "$expected_diversions" ] ||
		fail "$order: diversions: $(diversions "$root")"
}
# Ours gone: systemtap's files are back under their names.
check_restored() {
	local root=$1 order=$2
	cmp -s stap/usr/bin/dtrace "$root/usr/bin/dtrace" ||
		fail "$order: /usr/bin/dtrace is not systemtap's"
	cmp -s stap/usr/share/man/man1/dtrace.1.gz "$root/usr/share/man/man1/dtrace.1.gz" ||
		fail "$order: dtrace.1.gz is not systemtap's"
	[ -e "$root/usr/bin/dtrace.systemtap" ] &&
		fail "$order: /usr/bin/dtrace.systemtap left"
	[ -z "$(diversions "$root")" ] ||
		fail "$order: diversions left: $(diversions "$root")"
}

S=$PWD/stap-first
new_root "$S"
scratch_dpkg "$S" --install "$stap_deb"
scratch_dpkg "$S" --install "$deb"
scratch_dpkg "$S" --install "$deb"	# upgrade: the diversions are already there
check_both "$S" "systemtap-sdt-dev first"
scratch_dpkg "$S" --purge dtrace
check_restored "$S" "systemtap-sdt-dev first, dtrace purged"

# An install that fails while unpacking (a file of another package's)
# takes its diversions back (postrm abort-install).
mkdir -p clash/DEBIAN clash/usr/lib/dtrace/plugins
echo clash >clash/usr/lib/dtrace/plugins/dtrace.so
printf 'Package: clash\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: clash\n' \
	>clash/DEBIAN/control
dpkg-deb -b clash clash.deb >/dev/null || exit 1
scratch_dpkg "$S" --install clash.deb
run_dpkg "$S" --install "$deb" && fail "dtrace installed over a file of another package's"
grep -q "trying to overwrite '/usr/lib/dtrace/plugins/dtrace.so'" dpkg.log ||
	{ fail "the install did not fail on the clash"; tail -n 5 dpkg.log; }
check_restored "$S" "install aborted"

D=$PWD/dtrace-first
new_root "$D"
scratch_dpkg "$D" --install "$deb"
scratch_dpkg "$D" --install "$stap_deb"
check_both "$D" "dtrace first"
scratch_dpkg "$D" --purge dtrace
check_restored "$D" "dtrace first, dtrace purged"

exit $status
