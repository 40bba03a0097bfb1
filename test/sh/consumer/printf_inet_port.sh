#!/bin/bash
# SPDX-License-Identifier: MIT
# printf's %P prints a port's service name (else its number) and %I the
# host name of an address (else the address), as the system's databases
# have them (getent says what to expect); both take width and flags as
# %s does; %P takes a 16-bit integer only.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
. "$TESTDIR/sh/lib/check_lib.sh"

# what the system's databases say (getent), else the number or address
service() {
	local n
	n=$(getent services "$1" | awk '{ print $1; exit }')
	echo "${n:-$1}"
}
svc=$(service 80) svc2=$(service 65000) svc3=$(printf '%-6s' "$(service 65001)")
host=$(getent hosts 127.0.0.1 | awk '{ print $2; exit }')
host=${host:-127.0.0.1}

out=$("$DTRACE" -qn 'BEGIN { printf("[%P] [%P] [%-6P]\n", (uint16_t)80,
	(uint16_t)65000, (uint16_t)65001);
	printf("[%I] [%I]\n", "127.0.0.1", "not an address"); exit(0); }' \
	2>err)
check "%P %I" "$out" "\\[$svc\\] \\[$svc2\\] \\[$svc3\\]\\|\\[$host\\] \\[not an address\\]\\|"

"$DTRACE" -qn 'BEGIN { printf("%P\n", 80); exit(0); }' >out 2>err
grep -q 'prototype: uint16_t' err ||
	{ echo "FAIL: %P of an int accepted"; cat err; status=1; }
exit $status
