#!/usr/bin/env bash
# independent-fixes.sh SERIES -- prints the patches of a series file's
# leading section of independent fixes: those listed after a comment line
# starting "# Independent fixes", up to the next comment line; nothing if the
# series does not begin with that section. Read by
# scripts/check-series-prefixes.py, test/repo/check-patches.sh and
# test/repo/series-stats.py.
set -euo pipefail
awk '/^[ \t]*#/ { if (n) exit; if ($0 ~ /^# Independent fixes/) in_fixes = 1; next }
     /^[ \t]*$/ { next }
     !in_fixes { exit }
     { print; n++ }' "${1:?usage: independent-fixes.sh SERIES}"
