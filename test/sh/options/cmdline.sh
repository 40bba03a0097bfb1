#!/bin/bash
# SPDX-License-Identifier: MIT
# The dtrace command's options and exit statuses, as a user sees them.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

# expect NAME WANT-STATUS GOT-STATUS [file-with-output pattern]
check() {
	if [ "$2" != "$3" ]; then
		echo "$1: exit status $3, expected $2"
		status=1
	fi
}
has() {
	if ! grep -q -- "$3" "$2"; then
		echo "$1: '$3' not found in:"; sed 's/^/    /' "$2" | head -20
		status=1
	fi
}

"$DTRACE" >out 2>err; check usage 2 $?
has usage err "Usage: dtrace"

"$DTRACE" -K >out 2>err; check bad-option 2 $?
has bad-option err "illegal option -- K"

"$DTRACE" -V >out 2>err; check version 0 $?
has version out "^dtrace: Sun D"

"$DTRACE" -x nosuchopt -n BEGIN >out 2>err; check bad-x 1 $?
has bad-x err "^dtrace: failed to set option -x nosuchopt: Invalid option name"

"$DTRACE" -x strsize=abc -n BEGIN >out 2>err; check bad-x-value 1 $?
has bad-x-value err "Invalid value for specified option"

# -l: DTrace's columns, every probe of the dtrace provider
"$DTRACE" -l -n 'dtrace:::' >out 2>err; check list 0 $?
has list out "^   ID   PROVIDER            MODULE                          FUNCTION NAME$"
has list out "^    1     dtrace                                                     BEGIN$"
has list out "^    3     dtrace                                                     ERROR$"
# -l with a description that matches nothing: the header, then DTrace's
# message; the other descriptions are listed, and it is no error (DTrace's
# list_stmt() reports it with error(), which leaves the status 0)
"$DTRACE" -l -n 'nosuch:::' >out 2>err; check list-none 0 $?
has list-none out "^   ID   PROVIDER            MODULE                          FUNCTION NAME$"
has list-none err "^dtrace: failed to match nosuch:::: No probe matches description$"
# (more in descriptions_list_count.sh)

# -i: a probe by its id; -e: compile only
"$DTRACE" -q -i '1 { printf("one\n"); exit(0); }' >out 2>err; check probe-id 0 $?
has probe-id out "^one$"
"$DTRACE" -e -n 'BEGIN { x = 1; }' >out 2>err; check compile-only 0 $?
has compile-only err "description 'BEGIN ' matched 1 probe"

# -o: output to a file; -P: a provider
"$DTRACE" -q -o trace.txt -P dtrace'{ printf("%s\n", probename); }' \
	-n 'BEGIN { exit(0); }' >out 2>err; check output-file 0 $?
has output-file trace.txt "^BEGIN$"
has output-file trace.txt "^END$"
# -o appends, as DTrace's does
"$DTRACE" -q -o trace.txt -n 'BEGIN { printf("again\n"); exit(0); }' >out 2>err
check output-append 0 $?
has output-append trace.txt "^BEGIN$"
has output-append trace.txt "^again$"

# exit(n) is dtrace's status
"$DTRACE" -q -n 'BEGIN { exit(3); }' >out 2>err; check exit-value 3 $?

# a script as an interpreter file, with macro arguments
printf '#!%s -qs\nBEGIN { printf("%%d %%s\\n", $1, $$2); exit(0); }\n' \
	"$DTRACE" >script.d
chmod +x script.d
./script.d 42 hello >out 2>err; check interpreter 0 $?
has interpreter out "^42 hello$"

# compile errors: status 1 and the line
printf 'BEGIN\n{\n\tx = ;\n}\n' >bad.d
"$DTRACE" -s bad.d >out 2>err; check compile-error 1 $?
has compile-error err '^dtrace: failed to compile script bad.d: line 3: syntax error near ";"$'
"$DTRACE" -n 'BEGIN { x = ; }' >out 2>err; check spec-error 1 $?
has spec-error err '^dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near ";"$'

# no such probe: an error, unless -Z
"$DTRACE" -n 'nosuch:::probe { }' >out 2>err; check no-match 1 $?
has no-match err "does not match any probes"
"$DTRACE" -Z -q -n 'nosuch:::probe { }' -n 'BEGIN { exit(0); }' >out 2>err
check no-match-Z 0 $?

exit $status
