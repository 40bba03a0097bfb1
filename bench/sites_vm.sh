#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/sites_vm.sh: the cost per firing of probe sites on a kernel without
# the optimized uprobe (issue 33: "no regression on the VM's kernel"),
# measured in the test virtual machine (test/vm/check-vm.sh: a Debian 6.1
# kernel under qemu's software emulation).  Runs bench/vm/usdt_site_firing.sh
# there, which prints the ns per firing above the untraced loop of a USDT
# site of <dtrace/usdt.h> with its probe on the nop the note names
# (classic), forced onto the 5-byte nop, and where dtrace places it by
# itself (the classic nop there); and of a pid entry probe on a function
# that begins with endbr64, on it and past it; with the ratios to the
# classic placement.  Emulation makes every figure larger than on
# hardware; the ratios are what compare.  Part of make bench, as
# bench/fbt_vm.sh is: the machine boots in a minute or two, its runs take
# a few more.
#
#   sudo bench/sites_vm.sh              (B=build-dir, default build/)
#
# Exit status 0; 2 when the virtual machine cannot run (no qemu...).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/test/vm/check-vm.sh" "$ROOT/bench/vm/usdt_site_firing.sh"
rc=$?
[ $rc = 0 ] || exit 2
