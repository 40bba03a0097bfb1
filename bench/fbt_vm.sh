#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/fbt_vm.sh: cost per firing of an fbt probe (issue 11), measured in
# the test virtual machine (test/vm/check-vm.sh: a Debian 6.1 kernel under
# qemu's software emulation), since the development kernels can trace no
# kernel function.  Runs bench/vm/fbt_firing.sh there, which prints the
# ns per firing of getppid()'s kernel function above the untraced loop
# under a bare fentry program and a bare kprobe (bench/kernel_floor.c),
# and under dtrace's fbt in both modes, with the ratios to the bare
# program of the same mechanism.  Emulation makes every figure larger
# than on hardware; the ratios are what compare.
#
#   sudo bench/fbt_vm.sh                (B=build-dir, default build/)
#
# Exit status 0; 2 when the virtual machine cannot run (no qemu...).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/test/vm/check-vm.sh" "$ROOT/bench/vm/fbt_firing.sh"
rc=$?
[ $rc = 0 ] || exit 2
