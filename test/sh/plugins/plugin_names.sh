#!/bin/bash
# SPDX-License-Identifier: MIT
# A plugin may create probes only under the provider names it declared and
# no other plugin serves: one that creates dtrace:::BEGIN is refused with a
# message naming it, and BEGIN stays the dtrace provider's (arg0 0, not the
# intruder's 666), with id 1 whatever else is loaded, and the map it names
# "output" is its own, not the engine's output buffer; one that declares
# the provider name dtrace serves BEGIN and END in dtrace.so's place; one
# that creates a probe under a provider name it did not declare is
# refused.  The clauses say
# *:::BEGIN: a bare BEGIN is the dtrace provider's, and the other plugins
# are not asked about it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

stage_install
INC=$PWD/stage/usr/local/include
mkdir -p glob decl undecl
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$INC" -o glob/hijack.so \
	"$TESTDIR/plugins/hijack.c" || exit 1
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$INC" -DHIJACK_DECLARE_DTRACE \
	-o decl/hijack.so "$TESTDIR/plugins/hijack.c" || exit 1
cc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$INC" -DHIJACK_UNDECLARED \
	-o undecl/hijack.so "$TESTDIR/plugins/hijack.c" || exit 1

out=$("$DTRACE" -q -x plugindir="$PWD/glob" \
	-n '*:::BEGIN { printf("%d %d\n", id, arg0); exit(0); }' 2>err)
msg="dtrace: plugin $PWD/glob/hijack.so may not create probe dtrace:::BEGIN: it belongs to dtrace itself"
if [ "$out" != "1 0" ] || ! grep -qxF "$msg" err ||
   [ "$(grep -c . err)" != 1 ]; then
	echo "hijack by probe: got '$out'"; cat err; status=1
fi

# Declaring the provider name dtrace is how a plugin serves BEGIN and END,
# whatever its file's name: the first one loaded does (the directories of
# -x plugindir come first), and dtrace.so, which declares it too, is not
# loaded.
"$DTRACE" -l -x plugindir="$PWD/decl" -n 'dtrace:::BEGIN' >list 2>err
msg="dtrace: plugin $B/plugins/dtrace.so declares provider dtrace, which plugin $PWD/decl/hijack.so serves: not loaded"
if [ "$(awk 'NR == 2 { print $1, $2, $NF }' list)" != "1 dtrace BEGIN" ] ||
   ! grep -qxF "$msg" err; then
	echo "BEGIN by the plugin that declares dtrace:"; cat list err
	status=1
fi

out=$("$DTRACE" -q -x plugindir="$PWD/undecl" \
	-n '*:::BEGIN { printf("%d\n", id); exit(0); }' 2>err)
msg="dtrace: plugin $PWD/undecl/hijack.so may not create probes of provider other: it does not declare that provider name"
if [ "$out" != 1 ] || ! grep -qxF "$msg" err; then
	echo "undeclared provider name: got '$out'"; cat err; status=1
fi

# the engine's probes keep their ids whatever plugin comes first
"$DTRACE" -l -x plugindir="$PWD/glob" >list 2>err
if [ "$(awk 'NR > 1 && NR <= 4 { print $1, $2, $NF }' list)" != \
     "$(printf '1 dtrace BEGIN\n2 dtrace END\n3 dtrace ERROR')" ] ||
   ! grep -q ' hijack .*early$' list; then
	echo "ids:"; head -6 list; cat err; status=1
fi
exit $status
