#!/usr/bin/env bash
# Records every configuration at 80x24 and 120x40 into OUTDIR (default
# testdata/cli), one after the other. The CLIs must be on PATH (see
# record.py). A session that hangs is ended after 15 minutes.
set -u
out=${1:-testdata/cli}
here=$(dirname "$0")
for cfg in claude claude-inline codex codex-inline gemini opencode; do
  for size in 80x24 120x40; do
    echo "== $cfg $size"
    timeout 900 python3 "$here/record.py" "$cfg" "$size" "$out" || echo "   failed: $?"
  done
done
