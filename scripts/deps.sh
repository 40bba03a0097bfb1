#!/bin/sh
# SPDX-License-Identifier: MIT
# Check for, or install, what dtrace needs to build and test.
#
#   scripts/deps.sh --check     list what is missing on stderr, exit 1 if any
#   scripts/deps.sh --install   install what is missing (Debian/Ubuntu, root)
#
# Each dependency is named by a file that proves it is there and the Debian
# package that provides it, so the check costs a few stat() calls and needs
# no package manager (the Makefile runs it before every fresh build).
set -e

triplet=$( (cc -print-multiarch || gcc -print-multiarch) 2>/dev/null) || true
[ -n "$triplet" ] || triplet=$(uname -m)-linux-gnu

# file:package
DEPS="
/usr/include/bpf/libbpf.h:libbpf-dev
/usr/include/libelf.h:libelf-dev
/usr/include/elfutils/libdw.h:libdw-dev
/usr/include/$triplet/libunwind.h:libunwind-dev
/usr/include/Zydis/Zydis.h:libzydis-dev
/usr/include/zlib.h:zlib1g-dev
/usr/include/microhttpd.h:libmicrohttpd-dev
/usr/include/protobuf-c/protobuf-c.h:libprotobuf-c-dev
/usr/bin/protoc-c:protobuf-c-compiler
/usr/include/linux/bpf.h:linux-libc-dev
/usr/include/$triplet/sys/sdt.h:systemtap-sdt-dev
/usr/bin/pkg-config:pkg-config
/usr/bin/cc:gcc
/usr/bin/c++:g++
/usr/bin/make:make
/usr/bin/timeout:coreutils
"

missing=""
for d in $DEPS; do
	file=${d%%:*}
	pkg=${d##*:}
	[ -e "$file" ] || missing="$missing $pkg"
done

# Run apt-get quietly, but show its output when it fails.
apt_quiet() {
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then rm -f "$log"; return 0; fi
	tail -n 20 "$log" >&2
	rm -f "$log"
	return 1
}

case "$1" in
--check)
	[ -z "$missing" ] && exit 0
	echo "dtrace: missing build dependencies:$missing" >&2
	exit 1 ;;
--install)
	[ -z "$missing" ] && exit 0
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "dtrace: missing build dependencies; this is not a Debian system," >&2
		echo "dtrace: please install the equivalents of these Debian packages:$missing" >&2
		exit 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "dtrace: missing build dependencies:$missing" >&2
		echo "dtrace: installing them needs root: run 'sudo make deps'" >&2
		exit 1
	fi
	echo "dtrace: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# The package lists are refreshed only when the install fails without
	# them (a fresh container often has none).
	apt_quiet apt-get install -y --no-install-recommends $missing ||
		{ apt_quiet apt-get update &&
		  apt_quiet apt-get install -y --no-install-recommends $missing; } || {
		echo "dtrace: could not install:$missing" >&2
		exit 1
	}
	;;
*)
	echo "usage: $0 --check | --install" >&2
	exit 2 ;;
esac
