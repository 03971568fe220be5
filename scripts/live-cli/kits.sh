#!/usr/bin/env bash
# Live check of swarm's agent kits with the real CLIs: Claude Code, Codex
# and Gemini CLI started by kind alone (kind = "claude", …), each listing
# swarm's MCP server as connected with its 8 tools in its own /mcp view,
# and the hooks each one runs offline reaching swarm as turn messages.
#
# Needs tmux and the CLIs on PATH, as deliver.sh does (see its header).
#
#   scripts/live-cli/kits.sh            # prints a report, exit 1 on a failure
#
# Offline, every turn of these CLIs ends in an API error: the brief swarm
# types in at start (kind implies brief = true) is such a turn. Whether a
# hook fires for that turn is the CLI's choice; the report says which did.
set -uo pipefail
cd "$(dirname "$0")/../.."
script=kits.sh
. scripts/live-cli/common.sh
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
name = "bob"
cmd = "cat"
EOF
# pane N: selects the Nth pane (0-based; the first is selected at start).
cur=0
pane() { local k=$(( ($1 - cur + 4) % 4 )); for _ in $(seq 1 $k); do keys Tab; done; cur=$1; sleep 0.3; }
# hooks AGENT: the hooks whose turn messages from AGENT are on the bus.
hooks() { ./swarm log --json | python3 -c "
import json,sys
seen=sorted({m['data']['hook'] for m in map(json.loads, sys.stdin) if m.get('kind')=='turn' and m['from']=='$1'})
print(' '.join(seen))"; }

up 4
say "1. the hooks each CLI runs offline reach swarm (turn messages on the bus)"
# The brief's turn fails offline after the CLI's own retries (minutes for
# Claude Code); its end is what the stop hooks report. Nothing is pressed
# meanwhile: an interrupted turn runs no stop hook.
until_ok 480 "[[ \"\$(hooks claude)\" == *stop* && \"\$(hooks gemini)\" == *stop* ]]"
sleep 5
for a in claude codex gemini; do
  h=$(hooks $a)
  say "        $a: ${h:-none}"
done
check "claude ran its prompt and stop hooks" "[[ \"\$(hooks claude)\" == *prompt*stop* ]]"
check "gemini ran its prompt and stop hooks" "[[ \"\$(hooks gemini)\" == *prompt*stop* ]]"
./swarm status > status.txt

say "2. each CLI shows swarm's MCP server connected with its tools"
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
say "screens and the bus are in $work"
[ $fails -eq 0 ] && say "all passed" || say "$fails failed"
exit $((fails > 0))
