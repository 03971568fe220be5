#!/usr/bin/env bash
# Live check of swarm with the real agent CLIs: delivery into Claude Code,
# Codex and Gemini CLI (confirmed only when submitted), a person's
# half-typed line holding messages back, relay lines printed in each CLI's
# shell mode reaching a listener exactly once, and a broadcast that leaves
# vim, top and less alone.
#
# Needs tmux and the CLIs on PATH, installed and run offline as
# ../shared/agents/OFFLINE.md of the steering repo says (npm install
# @anthropic-ai/claude-code @openai/codex @google/gemini-cli). No AI
# service is reached: each CLI gets a scratch HOME with a dummy key.
#
#   scripts/live-cli/deliver.sh            # prints a report, exit 1 on a failure
#
# It runs `swarm up` (the terminal UI) in a tmux session at 240x64 and
# drives it with keys, as a person would: select a pane (tab), attach
# (enter), type, detach (ctrl+]).
set -uo pipefail
cd "$(dirname "$0")/../.."
script=deliver.sh
. scripts/live-cli/common.sh
for a in claude codex gemini; do echo "@relay:bob hello from $a's shell" > "$a.txt"; done
printf 'my notes\n' > notes.txt
seq 1 2000 > big.txt
cat > swarm.toml <<EOF
[[agent]]
name = "claude"
kind = "claude"
quiet = "1s"
brief = false
$claude_env

[[agent]]
name = "codex"
kind = "codex"
quiet = "1s"
brief = false
$codex_env

[[agent]]
name = "gemini"
kind = "gemini"
quiet = "1s"
brief = false
$gemini_env

[[agent]]
name = "bob"
cmd = "while IFS= read -r l; do printf '%s\\\\n' \"\$l\" >> bob.log; done"
quiet = 0

[[agent]]
name = "vim"
cmd = "vim -u NONE notes.txt"

[[agent]]
name = "top"
cmd = "top"

[[agent]]
name = "less"
cmd = "less big.txt"
EOF

# state MSGID AGENT: the delivery state of a message to an agent.
state() { ./swarm inbox "$2" --json | python3 -c "
import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m['id']=='$1':
        print(next((d['state'] for d in m.get('deliveries',[]) if d['recipient']=='$2'),'none'))
        sys.exit()
print('none')" ; }
# calm N: stops the turn the Nth pane's CLI started for a message (it
# tries an AI service it cannot reach): Escape, as a person would. Claude
# Code puts an interrupted prompt back into its input box: Ctrl-C clears
# it (which swarm, rightly, would otherwise take for a line being typed).
calm() {
  pane "$1"; keys Enter; sleep 0.5; keys Escape; sleep 1; keys Escape; sleep 1
  [ "$1" = 0 ] && { keys C-c; sleep 0.5; }
  keys C-]
}
# pane N: selects the Nth pane (0-based; the first is selected at start).
# tab moves to the next pane, from the last to the first.
cur=0
pane() { local k=$(( ($1 - cur + 7) % 7 )); for _ in $(seq 1 $k); do keys Tab; done; cur=$1; sleep 0.3; }

up 7
sleep 15 # the CLIs draw their prompt a while after they start

say "1. a message into each CLI is submitted and confirmed"
n=0
for a in claude codex gemini; do
  id=$(./swarm send "$a" "hello $a, this is a message from the live script")
  until_ok 60 "[ \"\$(state $id $a)\" != queued ] && [ \"\$(state $id $a)\" != injected ]"
  check "$a: $(state "$id" "$a")" "[ \"\$(state $id $a)\" = confirmed ]"
  calm $n
  n=$((n + 1))
done
screen > screen-1.txt

say "2. a person's half-typed line holds messages back until it is cleared"
n=0
for a in claude codex gemini; do
  pane $n; keys Enter; sleep 0.5; keys -l "half typed by a person"; sleep 0.5; keys C-]
  id=$(./swarm send "$a" "msg2 for $a")
  sleep 8
  check "$a: waits while the line is there ($(state "$id" "$a"))" "[ \"\$(state $id $a)\" = queued ]"
  pane $n; keys Enter; sleep 0.5; keys C-u; sleep 0.5; keys C-]
  until_ok 60 "[ \"\$(state $id $a)\" = confirmed ]"
  check "$a: goes once the line is cleared ($(state "$id" "$a"))" "[ \"\$(state $id $a)\" = confirmed ]"
  calm $n
  n=$((n + 1))
done
screen > screen-2.txt

say "3. relay lines printed in each CLI's shell mode reach bob once"
n=0
for a in claude codex gemini; do
  pane $n; keys Enter; sleep 0.5
  if [ "$a" = gemini ]; then keys -l '!'; sleep 0.5; keys -l "cat $a.txt"; else keys -l "!cat $a.txt"; fi
  sleep 0.6; keys Enter; sleep 4
  keys Escape; sleep 1; keys Escape; sleep 1; keys C-]
  n=$((n + 1))
done
until_ok 60 "[ \$(cat bob.log 2>/dev/null | grep -c shell) -ge 3 ]"
for a in claude codex gemini; do
  check "bob got $a's line once" "[ \$(grep -c \"hello from $a's shell\" bob.log) -eq 1 ]"
done
screen > screen-3.txt

say "4. a broadcast leaves vim, top and less alone"
md5=$(md5sum < notes.txt)
ls > ../files-before.$$
id=$(./swarm send '*' 'broadcast hi')
until_ok 30 "[ \"\$(state $id bob)\" = confirmed ]"
check "bob got it" "[ \"\$(state $id bob)\" = confirmed ]"
for a in vim top less; do
  check "$a has no delivery" "[ \"\$(state $id $a)\" = none ]"
done
sleep 3
check "notes.txt unchanged" "[ \"\$(md5sum < notes.txt)\" = \"$md5\" ]"
ls > ../files-after.$$
check "no new files (less did not save one)" "diff -q ../files-before.$$ ../files-after.$$ >/dev/null"
screen > screen-4.txt

./swarm inbox --json > inbox.json 2>/dev/null
keys q; sleep 1; keys y; sleep 3
say "screens and the bus are in $work"
[ $fails -eq 0 ] && say "all passed" || say "$fails failed"
exit $((fails > 0))
