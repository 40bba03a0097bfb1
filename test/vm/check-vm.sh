#!/bin/bash
# SPDX-License-Identifier: MIT
# test/vm/check-vm.sh: the kernel-side tests, in a virtual machine
# (make check-vm).
#
# The development machines have no kprobes and no BPF trampolines, so fbt
# and the fallbacks for older kernels are tested in a Debian cloud kernel
# (6.1: kprobes, fentry, no uprobe_multi links) booted with qemu under
# software emulation (TCG; no KVM needed).  The kernel package is fetched
# with apt-get download into DT_VM_CACHE (default /var/cache/dtrace-vm,
# outside the build directory, so that CI can keep it), the initramfs is
# built from busybox-static, the built dtrace, its plugins, the test
# programs, the scripts of test/vm/tests/ and the libraries they link, and
# its /init (test/vm/init.sh) runs each script and prints "N passed, N
# failed", which this script prints and judges.
#
#   test/vm/check-vm.sh [SCRIPT...]  (B=build directory, default build/)
#   DT_VM_TESTS=regex                only the scripts whose names match
#
# SCRIPTs run instead of test/vm/tests/*.sh (bench/fbt_vm.sh passes its
# benchmark); the lines a passing script prints that start "figure: " are
# shown.
#
# Exit status 0 when every test passed, 1 otherwise, 77 (skipped, with a
# line saying why) without qemu-system-x86_64, busybox-static or cpio.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
CACHE=${DT_VM_CACHE:-/var/cache/dtrace-vm}
KPKG=${DT_VM_KERNEL:-linux-image-cloud-amd64}
W=$B/vm

skip() {
	echo "check-vm: skipped: $*"
	exit 77
}

command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	skip "no static busybox (apt-get install busybox-static)"
command -v cpio >/dev/null || skip "cpio is not installed"
[ -x "$B/dtrace" ] || { echo "check-vm: $B/dtrace: run make first"; exit 1; }

# The kernel: the newest package of the cache, else the one the
# meta-package names now, downloaded.
kernel_image() {
	local deb name
	mkdir -p "$CACHE" || return 1
	deb=$(ls -t "$CACHE"/linux-image-*-cloud-amd64_*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		name=$(apt-cache depends "$KPKG" 2>/dev/null |
			awk '/Depends: linux-image-/ { print $2; exit }')
		[ -n "$name" ] || name=$KPKG
		(cd "$CACHE" && apt-get download "$name" >/dev/null 2>&1) ||
			{ apt-get update >/dev/null 2>&1 &&
			  (cd "$CACHE" && apt-get download "$name" >/dev/null); } ||
			return 1
		deb=$(ls -t "$CACHE"/linux-image-*-cloud-amd64_*.deb | head -n 1)
	fi
	local img=${deb%.deb}.vmlinuz
	if [ ! -s "$img" ]; then
		rm -rf "$CACHE/x" && mkdir -p "$CACHE/x"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$CACHE/x" ./boot ||
			return 1
		cp "$CACHE"/x/boot/vmlinuz-* "$img" && rm -rf "$CACHE/x"
	fi
	echo "$img"
}

# copy_elf FILE: FILE and every library it links, at their own paths.
copy_elf() {
	local f lib
	for f in "$@"; do
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
		while read -r lib; do
			[ -e "$W/root$lib" ] && continue
			mkdir -p "$W/root$(dirname "$lib")"
			cp -L "$lib" "$W/root$lib"
		done
	done
}

build_initramfs() {
	local d=$W/root t
	rm -rf "$d" && mkdir -p "$d"/{bin,sbin,dev,proc,sys,tmp,dtrace/tests,dtrace/progs,dtrace/bench}
	cp "$BUSYBOX" "$d/bin/busybox"
	cp "$ROOT/test/vm/init.sh" "$d/init"
	chmod 755 "$d/init"
	cp /bin/bash "$d/bin/bash"
	cp "$B/dtrace" "$d/dtrace/"
	cp -r "$B/plugins" "$d/dtrace/plugins"
	cp "$B"/test/progs/* "$d/dtrace/progs/"
	[ -x "$B/bench/kernel_floor" ] && cp "$B/bench/kernel_floor" "$d/dtrace/bench/"
	mkdir -p "$d/dtrace/testdir/sh/lib" "$d/dtrace/b/test"
	cp "$ROOT"/test/sh/lib/check_lib.sh "$d/dtrace/tests/"
	# the tests of test/sh source their libraries from $TESTDIR/sh/lib
	cp "$ROOT"/test/sh/lib/*.sh "$d/dtrace/testdir/sh/lib/"
	ln -s /dtrace/progs "$d/dtrace/b/test/progs"
	for t in "${SCRIPTS[@]}"; do
		[[ "$(basename "$t")" =~ ${DT_VM_TESTS:-.} ]] && cp "$t" "$d/dtrace/tests/"
	done
	copy_elf /bin/bash "$d/dtrace/dtrace" "$d"/dtrace/plugins/*.so \
		"$d"/dtrace/progs/* "$d"/dtrace/bench/*
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) >"$W/initramfs.gz"
}

# The syscall and proc tests of test/sh run there too, on the older
# kernel's tracepoints (proc:::exit without sched_process_exit's
# group_dead).
SCRIPTS=("$@")
[ $# -gt 0 ] || SCRIPTS=("$ROOT"/test/vm/tests/*.sh
			 "$ROOT"/test/sh/providers/syscall_probes.sh
			 "$ROOT"/test/sh/providers/proc_probes.sh)
mkdir -p "$W"
IMG=$(kernel_image) || { echo "check-vm: cannot fetch the kernel package $KPKG"; exit 1; }
${CC:-cc} -std=gnu11 -O2 -o "$B/bench/kernel_floor" "$ROOT/bench/kernel_floor.c" \
	-lbpf 2>/dev/null || mkdir -p "$B/bench"
build_initramfs || { echo "check-vm: cannot build the initramfs"; exit 1; }
echo "check-vm: $(basename "$IMG" .vmlinuz) under qemu (TCG)"
timeout "${DT_VM_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg -cpu max -m 1536 \
	-smp 2 -nographic -no-reboot -kernel "$IMG" -initrd "$W/initramfs.gz" \
	-append "console=ttyS0 panic=-1 quiet" </dev/null >"$W/console.log" 2>&1
rc=$?
# The firmware's escape sequences precede the first line of the tests.
tr -d '\r' <"$W/console.log" | sed -n 's/.*=== dtrace vm tests/in the VM:/; /in the VM:/,$p' |
	grep -v '^\[ *[0-9.]*\] '
result=$(tr -d '\r' <"$W/console.log" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
if [ -z "$result" ]; then
	echo "check-vm: the virtual machine did not finish (qemu status $rc); its console:"
	tail -n 40 "$W/console.log"
	echo "0 passed, 1 failed"
	exit 1
fi
[ "${result#* passed, }" = "0 failed" ]
