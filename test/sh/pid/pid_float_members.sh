#!/bin/bash
# SPDX-License-Identifier: MIT
# Floating-point values of a traced program (floats), typed by its DWARF:
# a struct's double, float and long double members read through a pid
# probe's args[0] (printf's %f %e %g, trace(), print(), a thread-local
# variable), through a cast of arg0 and through copyin(); in JSON; a
# translator's floating-point members, one by one and as a struct.  A
# function whose first parameter is a double (passed in an SSE register,
# not in arg0's) keeps untyped arguments, and its double return value too.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog floats
status=0

# same NAME EXPECTED ACTUAL: the output must be exactly EXPECTED
same() {
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: got:"; printf '%s\n' "$3"
		echo "expected:"; printf '%s\n' "$2"
		echo "stderr:"; cat err
		status=1
	fi
}

# 1. the members through args[0], printed, traced, kept in a variable
out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:weigh:entry {
	printf("%f %.2f %Lf %e %g %d\n", args[0]->d, args[0]->f, args[0]->ld,
	       args[0]->ld, args[0]->d, args[0]->n);
	trace(args[0]->d); trace(args[0]->f); trace(args[0]->ld);
	printf("\n"); print(*args[0]);
	self->d = args[0]->d; self->in = 1; }
pid$target:a.out:weigh:return /self->in/ { printf("kept %.3f\n", self->d); }' \
	2>err | grep -v '^done ')
same "args[0]" "3.250000 -1.50 0.333333 3.333333e-01 3.25 7
+3.2500000e+00-1.5000000e+00+3.3333333333333333E-01
struct sample {
    d = +3.2500000e+00
    f = -1.5000000e+00
    ld = +3.3333333333333333E-01
    n = 0x7
}
kept 3.250" "$out"

# 2. the pointer after a double parameter is in arg0: a cast and copyin()
out=$("$DTRACE" -q -c "$T" -n 'pid$target:a.out:scale:entry {
	printf("%.2f %.1f\n", ((struct sample *)arg0)->d,
	       ((struct sample *)copyin(arg0, sizeof(struct sample)))->f); }' \
	2>err | grep -v '^done ')
same "cast" "3.25 -1.5" "$out"

# 3. dtrace -l -v: weigh's arguments typed, scale's not
out=$("$DTRACE" -l -v -c "$T" -n 'pid$target:a.out:weigh:entry' \
	-n 'pid$target:a.out:scale:entry' -n 'pid$target:a.out:scale:return' \
	2>err | grep 'args\[')
same "-l -v" "$(printf '\t\t%s\n' 'args[0]: struct sample *' 'args[1]: int' \
	'args[0]: unsigned long' 'args[1]: unsigned long' \
	'args[0]: unsigned long' 'args[1]: unsigned long')" "$out"

# 4. JSON: a number that gives the value back
out=$("$DTRACE" -q -x oformat=json -c "$T" -n 'pid$target:a.out:weigh:entry {
	trace(args[0]->f); printf("%.1f", args[0]->d); }' 2>err |
	grep -o '"actions":.*' )
same "json" '"actions":[{"action":"trace","value":-1.5},{"action":"printf","format":"%.1f","output":"3.2","args":[3.25]}]}' "$out"
# 5. a translator's floating-point members
out=$("$DTRACE" -q -c "$T" -n 'struct out { double dd; float ff; int nn; };
translator struct out < struct sample *p > { dd = p->d; ff = p->f; nn = p->n; };
pid$target:a.out:weigh:entry { printf("%.2f %.1f\n",
	xlate<struct out>(args[0]).dd, xlate<struct out>(args[0]).ff);
	print(xlate<struct out>(args[0])); }' 2>err | grep -v '^done ')
same "translator" "3.25 -1.5
struct out {
    dd = +3.2500000e+00
    ff = -1.5000000e+00
    nn = 0x7
}" "$out"
exit $status
