#!/bin/bash
# SPDX-License-Identifier: MIT
# Every source file of the tree carries "SPDX-License-Identifier: MIT"
# (scripts/spdx.sh --check lists those that do not; scripts/spdx.sh adds
# the tag).
. "$TESTDIR/sh/lib/test_lib.sh"
"$TESTDIR/../scripts/spdx.sh" --check
