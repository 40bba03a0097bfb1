#!/bin/bash
# SPDX-License-Identifier: MIT
# -x evaltime: where a -c process stops for its probes.  exec: the probes
# of the libraries the loader maps after the exec (libc) are placed before
# any of their code runs, constructors included (before, every probe in
# libc was lost, even with -Z).  preinit, the default: the libraries are
# mapped and not initialized, so their constructors are traced too (before,
# the process stopped at its entry point, after them).  postinit: the
# entry point, the constructors have run, as in DTrace.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null || { echo "no cc"; exit 77; }
cat >ctor.c <<'EOF_C'
#include <unistd.h>
__attribute__((constructor)) static void early(void)
{
	for (int i = 0; i < 3; i++)
		usleep(1);
}
EOF_C
cat >main.c <<'EOF_C'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 5; i++)
		usleep(1);
	printf("done\n");
	return 0;
}
EOF_C
cc -shared -fPIC -o libctor.so ctor.c &&
	cc -o prog main.c -Wl,--no-as-needed -L. -lctor ||
	exit 1
for want in exec:8 preinit:8 postinit:5; do
	LD_LIBRARY_PATH=$PWD "$DTRACE" -Z -x evaltime=${want%:*} -q \
		-n 'pid$target::usleep:entry { @ = count(); }' \
		-c ./prog >out 2>err
	rc=$?
	got=$(grep -v '^$' out | tr -s ' \n' ' ')
	if [ $rc != 0 ] || [ "$got" != "done ${want#*:} " ]; then
		echo "evaltime=${want%:*}: exit $rc, output '$got'" \
		     "(expected 'done ${want#*:} '); stderr:"
		cat err; status=1
	fi
done
exit $status
