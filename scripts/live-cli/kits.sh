#!/usr/bin/env bash
# Live check of swarm's agent kits with the real CLIs: Claude Code, Codex,
# Gemini CLI and opencode started by kind alone (kind = "claude", …).
#
#   1. swarm doctor: each CLI, run once with its kit, says it loaded swarm's
#      MCP server (claude -p /mcp, codex/gemini/opencode mcp list);
#   2. the hooks each CLI runs offline reach swarm as turn messages;
#   3. Claude Code, Codex and Gemini list swarm's server with its 8 tools
#      in their own /mcp view;
#   4. nothing of the user's ~/.gemini (or Codex's auth.json) was written.
#
# Needs tmux and the CLIs on PATH, as deliver.sh does (see its header).
#
#   scripts/live-cli/kits.sh             # as yourself; a report, exit 1 on a failure
#   sudo scripts/live-cli/kits.sh --as tester   # as a normal user (runuser): the
#                                        # CLIs check file owners (Gemini did)
#
# Offline, every turn of these CLIs ends in an API error: the brief swarm
# types in at start (kind implies brief = true) is such a turn. Whether a
# hook fires for that turn is the CLI's choice; the report says which did.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--as" ]; then
  user=${2:?--as needs a user}
  bin=$(mktemp /tmp/swarm-kits-bin.XXXXXX) && go build -o "$bin" . && chmod 755 "$bin" || exit 2
  runuser -u "$user" -- env -i HOME="$(getent passwd "$user" | cut -d: -f6)" PATH="$PATH" TERM=xterm-256color \
    LANG=C.UTF-8 SWARM_BUILT="$bin" bash "$0"
  code=$?
  rm -f "$bin"
  exit $code
fi
script=kits.sh
. scripts/live-cli/common.sh
command -v opencode >/dev/null || { echo "$script: opencode is not on PATH" >&2; exit 2; }
cat > swarm.toml <<EOF
[[agent]]
name = "claude"
kind = "claude"
$claude_env

[[agent]]
name = "codex"
kind = "codex"
$codex_env

[[agent]]
name = "gemini"
kind = "gemini"
$gemini_env

[[agent]]
name = "opencode"
kind = "opencode"
$opencode_env

[[agent]]
name = "bob"
cmd = "cat"
EOF
agents=5
# pane N: selects the Nth pane (0-based; the first is selected at start).
cur=0
pane() { local k=$(( ($1 - cur + agents) % agents )); for _ in $(seq 1 $k); do keys Tab; done; cur=$1; sleep 0.3; }
# hooks AGENT: the hooks whose turn messages from AGENT are on the bus.
hooks() { ./swarm log --json | python3 -c "
import json,sys
seen=sorted({m['data']['hook'] for m in map(json.loads, sys.stdin) if m.get('kind')=='turn' and m['from']=='$1'})
print(' '.join(seen))"; }
# mine: what of the user's CLI settings swarm must not write (Codex writes
# its config.toml itself, at any start).
mine() { sha256sum home/gemini/.gemini/* home/codex/.codex/auth.json; ls home/gemini/.gemini; }

say "as $(id -un) (uid $(id -u)): $(claude --version | head -1); codex $(codex --version | head -1); gemini $(gemini --version | head -1); opencode $(opencode --version | head -1)"
mine > mine.before

say "1. swarm doctor: what each CLI says it loaded"
./swarm doctor > doctor.txt 2>&1
doctor=$?
grep -E '^[a-z]|(-p /mcp|mcp list):' doctor.txt | sed 's/^/        /'
check "doctor: no problems" "[ $doctor -eq 0 ]"
check "claude -p /mcp: swarm connected with 8 tools" "grep -q 'ok    claude -p /mcp: swarm: connected, 8 tools' doctor.txt"
check "codex mcp list: swarm enabled" "grep -q 'ok    codex mcp list: swarm .* enabled' doctor.txt"
check "gemini mcp list: swarm Connected" "grep -q 'ok    gemini mcp list: ✓ swarm: .* - Connected' doctor.txt"
check "opencode mcp list: swarm connected" "grep -q 'ok    opencode mcp list: .*swarm connected' doctor.txt"

up $agents
say "2. the hooks each CLI runs offline reach swarm (turn messages on the bus)"
# The brief's turn fails offline after the CLI's own retries (minutes for
# Claude Code); its end is what the stop hooks report. Nothing is pressed
# meanwhile: an interrupted turn runs no stop hook.
until_ok 480 "[[ \"\$(hooks claude)\" == *stop* && \"\$(hooks gemini)\" == *stop* ]]"
sleep 5
for a in claude codex gemini opencode; do
  h=$(hooks $a)
  say "        $a: ${h:-none}"
done
check "claude ran its prompt and stop hooks" "[[ \"\$(hooks claude)\" == *prompt*stop* ]]"
check "gemini ran its prompt and stop hooks" "[[ \"\$(hooks gemini)\" == *prompt*stop* ]]"
./swarm status > status.txt

say "3. each CLI shows swarm's MCP server connected with its tools"
n=0
for a in claude codex gemini; do
  pane $n; keys Enter; sleep 0.5
  keys -l "/mcp"; sleep 0.8; keys Enter; sleep 4
  screen > "mcp-$a.txt"
  case $a in
  claude) check "claude: /mcp lists swarm with 8 tools" "grep -q 'swarm .*8 tools' mcp-claude.txt" ;;
  codex) check "codex: /mcp lists swarm connected (8 tools)" "grep -q 'swarm: connected (8 tools)' mcp-codex.txt" ;;
  gemini) check "gemini: /mcp lists swarm ready with 8 tools" "grep -aq 'swarm - Ready (8 tools)' mcp-gemini.txt" ;;
  esac
  keys Escape; sleep 0.5; keys C-]
  n=$((n + 1))
done

./swarm log > log.txt
keys q; sleep 1; keys y; sleep 3
mine > mine.after
say "4. nothing of the user's ~/.gemini (or Codex's auth.json) written"
check "their files are as they were" "cmp -s mine.before mine.after"
say "screens and the bus are in $work"
[ $fails -eq 0 ] && say "all passed" || say "$fails failed"
exit $((fails > 0))
