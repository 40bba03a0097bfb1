#!/bin/bash
# SPDX-License-Identifier: MIT
# copyin(): user memory copied to scratch, read through casts to struct
# pointers, printed with tracemem() and stringof(); copyinto(); a bad
# address faults with DTrace's message and tracing goes on.  The memory
# read is dlopen()'s path argument, a string the test chooses.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd cc

printf 'int lib_square(int x) { return x * x; }\n' >libsq.c
cc -shared -fPIC -O1 -o libsq.so libsq.c || exit 1

timeout 20 "$DTRACE" -q -c "$T -l ./libsq.so 2" -n '
struct pair { char a; char b; };

pid$target:libc.so.6:dlopen:entry
{
	tracemem(copyin(arg0, 10), 10);
	printf("%s\n", stringof(copyin(arg0, 10)));
	this->p = (struct pair *)copyin(arg0 + 2, 2);
	printf("%c%c %d\n", this->p->a, this->p->b, *(char *)copyin(arg0, 1));
	this->buf = copyin(arg0, 6);
	copyinto(arg0 + 4, 2, this->buf);
	printf("%s\n", stringof(this->buf));
}

pid$target:libc.so.6:dlopen:entry
{
	printf("the record of a clause that faults is dropped\n");
	trace(*(uint64_t *)copyin(0, 8));
}

pid$target:a.out:add:entry
/arg0 == 1/
{
	printf("still tracing\n");
}

pid$target:a.out:add:entry
/arg0 == 1/
{
	copyinto(arg0, 4, (void *)8);
}

pid$target:a.out:add:return
/arg1 == 3/
{
	printf("after the fault\n");
}' >out 2>err
rc=$?
expected='             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 2e 2f 6c 69 62 73 71 2e 73 6f                    ./libsq.so
./libsq.so
li 46
bslibs
still tracing
after the fault'
experr="dtrace: error in dt_clause_N for probe ID N (pidN:libc.so.6:dlopen:entry): invalid address (0x0) at BPF pc N
dtrace: error in dt_clause_N for probe ID N (pidN:a.out:add:entry): invalid address (0x8) at BPF pc N"
actual=$(grep -v -e '^done ' -e '^$' out)
if [ $rc != 0 ] || [ "$actual" != "$expected" ] ||
   [ "$(grep -v '^pid ' err | sed -E 's/(ID|pid|pc) [0-9]+/\1 N/g; s/dt_clause_[0-9]+/dt_clause_N/g; s/pid[0-9]+:/pidN:/')" != "$experr" ]; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	exit 1
fi
exit 0
