#!/bin/bash
# SPDX-License-Identifier: MIT
# prov$target traces a USDT library that its process loads later with
# dlopen() (a JVM's hotspot$target is this case: the launcher dlopens
# libjvm): the description, which matched nothing at start (-Z), is kept
# for that process, and the library's probes are placed when the loader
# maps it.  Before, nothing fired and dtrace exited 0.  The program fires
# once dtrace says (-x debug) that it linked the library's probe, which
# takes a few milliseconds on a quiet machine and longer on a loaded one
# (README, "Processes and libraries that appear while tracing").
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
INC=$TESTDIR/../include
cat >shop.d <<'EOF_D'
provider shop { probe order__start(int); };
EOF_D
cat >lib.c <<'EOF_C'
#include "shop.h"
void order(int i) { SHOP_ORDER_START(i); }
EOF_C
cat >host.c <<'EOF_C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	usleep(200000);
	void *h = dlopen("./libshop.so", RTLD_NOW);
	if (h == NULL) {
		printf("%s\n", dlerror());
		return 1;
	}
	void (*order)(int) = (void (*)(int))dlsym(h, "order");
	/* the probe placed: the test makes ./go, within a minute */
	for (int i = 0; i < 6000 && access("go", F_OK) != 0; i++)
		usleep(10000);
	for (int i = 0; i < 10; i++)
		order(i);
	printf("done\n");
	return 0;
}
EOF_C
"$DTRACE" -h -s shop.d -o shop.h &&
	cc -O2 -fPIC -I"$INC" -I. -c -o lib.o lib.c &&
	"$DTRACE" -G -s shop.d -o shop_prov.o lib.o &&
	cc -shared -o libshop.so lib.o shop_prov.o &&
	cc -O2 -o host host.c -ldl || exit 1

DTPROBED_SOCKET=$PWD/none "$DTRACE" -Z -q -x debug \
	-n 'shop$target:::order-start { printf("%d %s\n", arg0, probeprov); }' \
	-c ./host >out 2>err &
dt=$!
wait_after err 'probe shop[0-9]*:libshop.so:order:order-start: the site' \
	'uprobes linked while tracing' 1200
touch go
wait $dt
rc=$?
want=$(for i in 0 1 2 3 4 5 6 7 8 9; do echo "$i shop@"; done)
got=$(grep -v -e '^$' -e '^done$' out | sed 's/ shop[0-9]*$/ shop@/')
if [ $rc != 0 ] || [ "$got" != "$want" ] || ! grep -qx done out; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	exit 1
fi
