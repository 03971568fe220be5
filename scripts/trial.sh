#!/usr/bin/env bash
# The fault trial (trial_test.go): kills, a locked bus, floods, a crash loop,
# hostile bodies, a corrupt bus, concurrent sends, against the built swarm.
# Prints the table of what was tried and what held.
#   scripts/trial.sh          the full sizes (several minutes)
#   scripts/trial.sh short    the sizes CI runs
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-full}
table=$(mktemp)
trap 'rm -f "$table"' EXIT
SWARM_TRIAL=$size SWARM_TRIAL_TABLE=$table go test -count=1 -timeout 60m -run '^TestTrial$' . >/dev/null
cat "$table"
