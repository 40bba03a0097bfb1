#!/bin/bash
# SPDX-License-Identifier: MIT
# Give every source file of the tree its licence tag,
# "SPDX-License-Identifier: MIT", in the comment syntax of its language.
#
#   scripts/spdx.sh [DIR]           add the tag where it is missing
#   scripts/spdx.sh --check [DIR]   list the files without it; exit 1 if any
#
# DIR is the top of the tree (default: this script's tree).  The files are
# those git knows (tracked, or new and not ignored), else every file below
# DIR outside .git and build directories.  Running it twice changes nothing.
#
# Where the tag goes:
#   C, C++, headers, D, linker scripts   /* SPDX-License-Identifier: MIT */
#   shell, make, python, systemd units,
#   pkg-config templates                 # SPDX-License-Identifier: MIT
#   man pages                            .\" SPDX-License-Identifier: MIT
# on the first line, or on the second when the first must stay first: a
# "#!" interpreter line, or a D test's "@dtrace-opts" line (test/run.sh
# reads options from line 1).  Other files (documentation, expected test
# output, debian/ control files, LICENSE) carry no tag.
set -u

TAG="SPDX-License-Identifier: MIT"

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
top=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$top" || exit 2

list_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||'
	fi
}

# Set tag to the comment that carries the tag in file $1, or to nothing
# for a file that takes none.  (No subshell: it runs once per file.)
tag_for() {
	local f=$1 first=
	tag=
	case $f in
	*.c|*.h|*.cc|*.cpp|*.d|*.map)
		tag="/* $TAG */" ;;
	*.sh|*.py|*.mk|Makefile|*/Makefile|*.service|*.pc.in|.ci/*|debian/rules)
		tag="# $TAG" ;;
	man/*.[1-9])
		tag=".\\\" $TAG" ;;
	*)
		IFS= read -r first <"$f" 2>/dev/null
		case $first in
		'#!'*sh*|'#!'*python*|'#!'*make*) tag="# $TAG" ;;
		esac ;;
	esac
}

# Insert LINE into FILE at the top, or after a first line that must stay
# first.  The file keeps its mode.
add_tag() {
	local f=$1 line=$2 first= tmp
	IFS= read -r first <"$f" 2>/dev/null
	tmp=$(mktemp "$f.spdx.XXXXXX") || return 1
	case $first in
	'#!'*|*@dtrace-opts:*)
		{ printf '%s\n%s\n' "$first" "$line"; tail -n +2 "$f"; } >"$tmp" ;;
	*)
		{ printf '%s\n' "$line"; cat "$f"; } >"$tmp" ;;
	esac
	chmod --reference="$f" "$tmp" && mv "$tmp" "$f"
}

# The files that take a tag, then those of them without one in any of the
# comment forms above (whatever licence it names), found by one grep.
declare -A tags=()
while IFS= read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue	# a link shares its target's tag
	tag_for "$f"
	[ -n "$tag" ] && tags[$f]=$tag
done < <(list_files)
[ ${#tags[@]} = 0 ] && exit 0
mapfile -t missing < <(grep -LE '^(/\* |# |\.\\" )SPDX-License-Identifier: ' \
	-- "${!tags[@]}" | LC_ALL=C sort)

if [ $check = 1 ]; then
	[ ${#missing[@]} = 0 ] && exit 0
	printf '%s\n' "${missing[@]}"
	echo "spdx.sh: ${#missing[@]} files lack \"$TAG\" (run scripts/spdx.sh)" >&2
	exit 1
fi
for f in "${missing[@]}"; do
	add_tag "$f" "${tags[$f]}" || exit 1
done
exit 0
