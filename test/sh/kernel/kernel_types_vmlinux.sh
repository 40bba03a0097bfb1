#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel's types by their module's name, as DTrace writes them
# (struct vmlinux`task_struct), from its BTF: sizes and offsets as BTF
# gives them (bpftool reads the same BTF), a cast of curthread, and a type
# the kernel lacks refused in words.  sk_buff and bpf_attr have named
# members of anonymous struct types (the kernel's struct_group()), which
# were taken for unnamed ones and flattened: their members came twice and
# the whole type read as incomplete ("unknown size").
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd bpftool
[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; exit 77; }
btf() { bpftool btf dump file /sys/kernel/btf/vmlinux; }
# size KIND NAME: the size BTF gives the type
size() { btf | sed -n "s/^\[[0-9]*\] $1 '$2' size=\([0-9]*\) .*/\1/p" | head -n 1; }
skb_len_bits=$(btf | awk "/^\[[0-9]+\] STRUCT 'sk_buff' /{f = 1}
	f && /^\t'len' /{ sub(/.*bits_offset=/, \"\"); print; exit }")
want="$(size STRUCT sk_buff) $(size UNION bpf_attr) $((skb_len_bits / 8)) 1"

"$DTRACE" -q -n 'BEGIN {
	printf("%d %d %d %d\n", sizeof(struct vmlinux`sk_buff),
	    sizeof(union vmlinux`bpf_attr), offsetof(struct vmlinux`sk_buff, len),
	    ((struct vmlinux`task_struct *)curthread)->pid == pid);
	exit(0);
}' >out 2>err || fail "dtrace failed: $(cat err)"
[ "$(cat out)" = "$want" ] || fail "got '$(cat out)', want '$want' (from bpftool)"

"$DTRACE" -n 'BEGIN { trace(sizeof(struct vmlinux`no_such_type)); }' >out 2>err &&
	fail "a type the kernel lacks was accepted"
grep -qx "dtrace: invalid probe specifier BEGIN { trace(sizeof(struct vmlinux\`no_such_type)); }: failed to resolve type struct vmlinux\`no_such_type: no such type in the kernel's BTF" err ||
	fail "unexpected message: $(cat err)"
exit $status
