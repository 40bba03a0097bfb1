#!/bin/bash
# SPDX-License-Identifier: MIT
# D libraries with -L: a scratch library directory whose files are read
# before the program, in the order their `#pragma D depends_on library`
# asks (a_use.d needs z_base.d first); their inlines, typedefs and
# translators serve -n and -s programs and a pid probe of a real process;
# a library whose provider is missing is skipped with the one that depends
# on it; a library's clause does not run; a missing library, a cycle and
# a syntax error in a library fail with DTrace's messages (the library's
# clauses and options: dlib_clauses_options.sh); a library may depend on
# one of another directory, and a file name of an earlier -L directory
# hides a later one's; -x nolibs reads none; a program's inlines and
# translators serve the programs given after it; dtrace -V names the
# installed library directory.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog typed
. "$TESTDIR/sh/lib/check_lib.sh"

mkdir lib
cat > lib/a_use.d <<'D'
#pragma D depends_on library z_base.d
typedef lpoint_t *lpoint_p;

translator struct linfo < struct lpoint *P > {
	area = P->x * P->y;
	half = (P->x * P->y) / 2;
};

inline int lib_answer = LIB_BASE + 2;
D
cat > lib/z_base.d <<'D'
struct lpoint {
	int x;
	int y;
	long tag;
};
typedef struct lpoint lpoint_t;

struct linfo {
	long area;
	long half;
};

inline int LIB_BASE = 40;
inline string lib_name = "zbase";
BEGIN { printf("a library's clause is not compiled\n"); }
D
cat > lib/m_skip.d <<'D'
#pragma D depends_on provider nosuchprovider
inline int skipped = 1;
D
cat > lib/n_skip.d <<'D'
#pragma D depends_on library m_skip.d
inline int skipped2 = 2;
D
echo 'not a library' > lib/README

# 1. inlines and typedefs of the libraries, in -n and in -s
out=$("$DTRACE" -L lib -qn 'BEGIN { printf("%d %s %d\n", lib_answer,
	lib_name, sizeof (lpoint_p)); exit(0); }' 2>err)
check "-n" "$out" '42 zbase 8\|'
printf 'BEGIN { printf("%%d\\n", lib_answer); exit(0); }\n' > s.d
out=$("$DTRACE" -q -x libdir=lib -s s.d 2>err)
check "-x libdir, -s" "$out" '42\|'

# 2. a library's translator at a pid probe of a real process
out=$("$DTRACE" -L lib -q -c "$T 2" -n 'pid$target:a.out:area:entry {
	printf("%d %d\n", xlate <struct linfo *> ((lpoint_p)arg0)->area,
	       xlate <struct linfo> ((struct lpoint *)arg0).half); }' 2>err |
	grep -v '^done ')
check "translator" "$out" '2 1\|6 3\|'

# 2b. a dependency in another -L directory; a file name that an earlier
# directory has is not read again (-L overrides in its order)
mkdir d1 d2
echo '#pragma D depends_on library dep.d' > d1/user.d
echo 'inline int from_user = from_dep + 1;' >> d1/user.d
echo 'inline int from_dep = 5;' > d2/dep.d
echo 'inline int which = 1;' > d1/same.d
echo 'inline int which = 2;' > d2/same.d
out=$("$DTRACE" -L d1 -L d2 -qn 'BEGIN { printf("%d %d\n", from_user,
	which); exit(0); }' 2>err)
check "across directories" "$out" '6 1\|'
out=$("$DTRACE" -L d2 -L d1 -qn 'BEGIN { printf("%d\n", which); exit(0); }' \
	2>err)
check "override" "$out" '2\|'

# 3. skipped libraries declare nothing
for v in skipped skipped2; do
	"$DTRACE" -L lib -qn "BEGIN { trace($v); exit(0); }" >out 2>err
	grep -q "failed to resolve $v: Unknown variable name" err ||
		{ echo "FAIL: $v was declared"; cat err; status=1; }
done

# 4. errors of a library directory
mkdir l2 l3 l4
echo '#pragma D depends_on library nothere.d' > l2/a.d
echo '#pragma D depends_on library b.d' > l3/a.d
echo '#pragma D depends_on library a.d' > l3/b.d
printf 'inline int x = 1;\ninline int y = ;\n' > l4/bad.d
echo 'BEGIN { exit(0); }' > e.d
"$DTRACE" -L l2 -s e.d >out 2>err
check "missing" "$(cat err)" \
	'dtrace: failed to compile script e.d: Invalid library dependency in l2/a.d: l2/nothere.d\|'
"$DTRACE" -L l3 -s e.d >out 2>err
check "cycle" "$(cat err)" \
	'dtrace: failed to compile script e.d: Cyclic dependency detected: l3/a.d => l3/b.d\|'
"$DTRACE" -x errtags -L l4 -n 'BEGIN { exit(0); }' >out 2>err
check "syntax" "$(cat err)" \
	'dtrace: invalid probe specifier BEGIN \{ exit\(0\); \}: \[D_SYNTAX\] "l4/bad.d", line 2: syntax error near ";"\|'
out=$("$DTRACE" -x nolibs -L l4 -qn 'BEGIN { printf("ok\n"); exit(0); }' 2>err)
check "nolibs" "$out" 'ok\|'

# 5. a program's inlines and translators serve the programs after it
cat > decl.d <<'D'
struct twice { int v; };
translator struct twice < int X > { v = X * 2; };
inline int base = 20 + pid * 0;
D
out=$("$DTRACE" -q -s decl.d -n 'BEGIN { printf("%d %d\n", base,
	xlate <struct twice> (base).v); exit(0); }' 2>err)
check "later program" "$out" '20 40\|'

# 6. the installed directory
out=$("$DTRACE" -V | sed -n 3p)
check "-V" "$out" 'dtrace: library directory: /.*/dtrace\|'
exit $status
