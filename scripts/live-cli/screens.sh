#!/usr/bin/env bash
# Live check of swarm's screen model with the real agent CLIs, as a normal
# user: messages go only into an input that takes one.
#
#   scripts/live-cli/screens.sh      # as root: builds swarm, runs as tester
#
# Needs tmux, the user `tester` and the CLIs on PATH, installed and run
# offline as shared/agents/OFFLINE.md says (npm install
# @anthropic-ai/claude-code @openai/codex @google/gemini-cli opencode-ai).
# No AI service is reached. The agents run with the user's own HOME (a
# fresh one made for the run: a new user's, past Claude Code's theme
# picker), as a user's swarm.toml would, so that what a message could do
# to the user's ~/.claude.json, ~/.codex, ~/.gemini and ~/.config/opencode
# is seen: they are hashed before the messages and after.
#
# 1. Fresh HOME: Claude Code's folder trust, Codex's sign-in and Gemini
#    CLI's trust screens hold messages (bodies with a second line `touch
#    PWNED…`) and put the agents on the "needs you" list; opencode's first
#    screen is its prompt: its brief and the message are confirmed; a plain
#    bash pane runs nothing. The user's files do not change. Then the
#    person answers the dialogs (through swarm's UI) and the messages go.
# 2. Answered: each CLI's own shell mode (`!`) holds a message, the agent's
#    title says "shell mode", and the message goes once the person leaves
#    it; nothing runs. Claude Code's /mcp menu holds a message and puts it
#    on the list. A busy Claude Code (a turn retrying the unreachable API)
#    takes a message into its queue.
#
# It runs `swarm up` in a tmux session at 240x64 and drives the UI with keys
# as a person would: select a pane (tab), attach (enter), type, detach
# (ctrl+]). Output: one line per check, `ok` or `FAIL`; exit 1 on a failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$(id -u)" = 0 ] && [ "${1:-}" != --as-tester ]; then
  for c in tmux claude codex gemini opencode runuser; do
    command -v "$c" >/dev/null || { echo "screens.sh: $c is not on PATH" >&2; exit 2; }
  done
  id tester >/dev/null 2>&1 || { echo "screens.sh: no user tester (useradd -m tester)" >&2; exit 2; }
  bin=$(mktemp -d /tmp/swarm-screens-bin.XXXXXX)
  (cd "$repo" && go build -o "$bin/swarm" .) || exit 2
  home=$(mktemp -d /tmp/swarm-screens-home.XXXXXX)
  chmod 755 "$bin" "$bin/swarm"
  chown tester: "$home"
  runuser -u tester -- env -i HOME="$home" PATH="$PATH" TERM=xterm-256color LANG=C.UTF-8 \
    SWARM_LIVE_BIN="$bin/swarm" bash "$0" --as-tester
  rc=$?
  # Codex leaves an app-server daemon per HOME (a session of its own): end
  # what still runs with this HOME, by pid.
  for p in /proc/[0-9]*; do
    if { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qx "HOME=$home"; then kill "${p#/proc/}" 2>/dev/null; fi
  done
  rm -rf "$bin" "$home"
  exit $rc
fi

# --- as the user ---
work=$(mktemp -d /tmp/swarm-screens.XXXXXX)
sock=swarm-screens-$$
cd "$work" || exit 2
cp "$SWARM_LIVE_BIN" ./swarm
say() { printf '%s\n' "$*"; }
say "as $(id -un) (uid $(id -u)), HOME=$HOME, in $work"
say "versions: claude $(claude --version 2>/dev/null | head -1); codex $(codex --version 2>/dev/null | head -1); gemini $(gemini --version 2>/dev/null | head -1); opencode $(opencode --version 2>/dev/null | head -1)"
key="sk-ant-api03-$(printf 'A%.0s' $(seq 40))"
echo '{"hasCompletedOnboarding": true}' > "$HOME/.claude.json"

fails=0
check() { if eval "$2"; then say "  ok    $1"; else say "  FAIL  $1"; fails=$((fails + 1)); fi; }
keys() { tmux -L "$sock" send-keys -t live "$@"; }
screen() { tmux -L "$sock" capture-pane -p -t live; }
until_ok() { local end=$((SECONDS + $1)); shift; while ! eval "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.5; done; }
state() { ./swarm inbox "$2" --json | python3 -c "
import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m['id']=='$1':
        print(next((d['state'] for d in m.get('deliveries',[]) if d['recipient']=='$2'),'none'))
        sys.exit()
print('none')"; }
needs() { ./swarm status --json | python3 -c "import json,sys; print('\n'.join(json.load(sys.stdin)['needs_you']))"; }
# The user's own files of the CLIs, hashed (logs and databases the CLIs
# write by themselves are told apart by hashing twice before a message).
hashes() {
  (cd "$HOME" && find .claude.json .codex .gemini .config/opencode -type f 2>/dev/null | sort | xargs -r sha256sum)
}
npanes=0
cur=0
pane() { local k=$(( ($1 - cur + npanes) % npanes )); for _ in $(seq 1 $k); do keys Tab; done; cur=$1; sleep 0.4; }
attach() { pane "$1"; keys Enter; sleep 0.6; }
detach() { keys C-]; sleep 0.4; }
up() {
  npanes=$1
  cur=0
  tmux -L "$sock" new-session -d -s live -x 240 -y 64 "cd $work && ./swarm up 2>ui.err"
  until_ok 90 "./swarm status --json 2>/dev/null | python3 -c \"import json,sys; a=json.load(sys.stdin)['agents']; sys.exit(0 if len(a)==$1 and all(x['state']=='running' for x in a) else 1)\" 2>/dev/null" ||
    { say "agents did not start"; screen; exit 1; }
}
down() {
  ./swarm stop >/dev/null 2>&1
  tmux -L "$sock" kill-server 2>/dev/null
  sleep 2
}
cleanup() { down; }
trap cleanup EXIT
pwned() { ls "$work" | grep -c PWNED; }

env_claude="env = { ANTHROPIC_API_KEY = \"$key\", DISABLE_AUTOUPDATER = \"1\", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\" }"
cat > swarm.toml <<EOF
[[agent]]
name = "claude"
kind = "claude"
quiet = "1s"
$env_claude

[[agent]]
name = "codex"
kind = "codex"
quiet = "1s"
env = { OPENAI_API_KEY = "sk-dummy" }

[[agent]]
name = "gemini"
kind = "gemini"
quiet = "1s"
env = { GEMINI_API_KEY = "dummy" }

[[agent]]
name = "opencode"
kind = "opencode"
quiet = "1s"
env = { OPENAI_API_KEY = "sk-dummy" }

[[agent]]
name = "bash"
cmd = "bash"
EOF

say "1. a fresh HOME: the first screens are the person's"
up 5
# The CLIs draw their first screens: Claude's, Codex's and Gemini's
# questions on the needs-you list, opencode's brief typed in (its first
# start npm-installs its plugin modules into ~/.config/opencode first).
# On a loaded machine this takes minutes, not seconds: waited for.
first() {
  local n; n=$(needs)
  grep -q 'claude needs you: Claude Code asks' <<< "$n" && grep -q 'codex needs you: Codex asks' <<< "$n" &&
    grep -q 'gemini needs you: Gemini CLI asks' <<< "$n" && ./swarm logs opencode 2>/dev/null | grep -q 'from swarm\]'
}
until_ok 300 first || say "  (the first screens were not all there after 300 s)"
h0=$(hashes)
sleep 10
h1=$(hashes)
noisy=$(diff <(echo "$h0") <(echo "$h1") | grep '^>' | awk '{print $3}' | sort -u | tr '\n' ' ')
[ -n "$noisy" ] && say "  (written by the CLIs themselves meanwhile, not compared: $(wc -w <<< "$noisy") files: $(tr ' ' '\n' <<< "$noisy" | head -3 | tr '\n' ' ')…)"
declare -A id
for a in claude codex gemini opencode bash; do
  id[$a]=$(./swarm send "$a" "$(printf 'please review auth.go\ntouch PWNED_%s' "$a")" 2>/dev/null)
done
bid=$(./swarm send '*' "$(printf 'broadcast\ntouch PWNED_all')" 2>/dev/null)
# opencode, at its prompt, takes its message: by then the injector has
# had its chance at the others too.
until_ok 120 "[ \"\$(state ${id[opencode]} opencode)\" = confirmed ]"
sleep 5
for a in claude codex gemini; do
  check "$a: the message waits at its first screen ($(state "${id[$a]}" $a))" "[ \"\$(state ${id[$a]} $a)\" = queued ]"
done
n=$(needs)
check "claude on the needs-you list: trust" "grep -q 'claude needs you: Claude Code asks whether to trust this folder' <<< \"\$n\""
check "codex on the needs-you list: sign-in" "grep -q 'codex needs you: Codex asks how to sign in' <<< \"\$n\""
check "gemini on the needs-you list: trust" "grep -q 'gemini needs you: Gemini CLI asks whether to trust this folder' <<< \"\$n\""
until_ok 60 "[ \"\$(state ${id[opencode]} opencode)\" = confirmed ]"
check "opencode: the message confirmed ($(state "${id[opencode]}" opencode))" "[ \"\$(state ${id[opencode]} opencode)\" = confirmed ]"
check "opencode: its brief was typed in" "./swarm logs opencode 2>/dev/null | grep -q 'from swarm\]'"
check "opencode: no notice of an unconfirmed delivery" "! ./swarm log 2>/dev/null | grep -q 'to opencode was typed in but not confirmed'"
check "bash: nothing typed into it ($(state "${id[bash]}" bash))" "[ \"\$(state ${id[bash]} bash)\" != confirmed ] && ! ./swarm logs bash 2>/dev/null | grep -q 'relay #'"
check "nothing ran (no PWNED file)" "[ \$(pwned) -eq 0 ]"
h2=$(hashes)
# Codex's own log database and its maintenance lock: written by Codex on
# a timer of its own, whether or not anything reaches it; opencode's
# install of its own plugin modules (its first start, however slow).
own='^\.codex/(logs_[0-9]+\.sqlite.*|\.sqlite-maintenance\.lock)$|^\.config/opencode/(node_modules/|package\.json$|package-lock\.json$|bun\.lock$|\.gitignore$)'
changed=$(diff <(echo "$h1") <(echo "$h2") | grep '^[<>]' | awk '{print $3}' | sort -u | grep -vxF -f <(tr ' ' '\n' <<< "$noisy" | grep .) | grep -vE "$own" | tr '\n' ' ')
check "the user's ~/.claude.json, ~/.codex, ~/.gemini, ~/.config/opencode unchanged by the messages${changed:+ (changed: $changed)}" "[ -z \"$changed\" ]"
screen > screen-1.txt

say "   the person answers the dialogs"
attach 0; keys Up; sleep 0.5; keys Enter; sleep 4          # trust this folder: Yes
until_ok 20 "screen | grep -q 'Do you want to use this API key'"
keys Up; sleep 0.5; keys Enter; sleep 2; detach              # the API key: Yes
attach 1; keys 3; sleep 1.5; keys Enter; sleep 1.5; keys Enter; sleep 2; detach # sign in with the API key
attach 2; keys Enter; sleep 8                                 # trust folder (Gemini restarts itself)
until_ok 30 "screen | grep -q 'How would you like to authenticate'"
keys Enter; sleep 3                                           # Gemini API key
until_ok 20 "screen | grep -q 'Enter Gemini API Key'"
keys Enter; sleep 3; detach
for a in claude codex gemini; do
  until_ok 90 "[ \"\$(state ${id[$a]} $a)\" = confirmed ]"
  check "$a: delivered once answered ($(state "${id[$a]}" $a))" "[ \"\$(state ${id[$a]} $a)\" = confirmed ]"
done
until_ok 30 "! needs | grep -q 'asks'"
check "off the needs-you list" "! needs | grep -q 'asks'"
check "nothing ran (no PWNED file)" "[ \$(pwned) -eq 0 ]"
screen > screen-1b.txt
down

say "2. shell modes, a menu, a busy turn"
sed -i 's/^name = "bash"/name = "sh"/' swarm.toml
up 5
# Gemini's answer to its sign-in question lasts one run (its settings are
# made anew at each start from ~/.gemini/settings.json): it asks again,
# and the person answers again, as in part 1.
until_ok 300 "needs | grep -q 'gemini needs you: Gemini CLI asks how to sign in'" ||
  say "  (Gemini did not ask how to sign in within 300 s)"
attach 2
until_ok 30 "screen | grep -q 'How would you like to authenticate'"
keys Enter
until_ok 30 "screen | grep -q 'Enter Gemini API Key'"
keys Enter; sleep 3; detach
until_ok 60 "! needs | grep -q 'gemini needs you'"
# calm N: stops a turn the Nth CLI started (it tries the unreachable API).
calm() { attach "$1"; keys Escape; sleep 1; keys Escape; sleep 1; [ "$1" = 0 ] && { keys C-c; sleep 0.5; }; detach; }
for n in 0 1 2 3; do calm $n; done
n=0
for a in claude codex gemini opencode; do
  attach $n; keys -l '!'; sleep 1; detach
  until_ok 15 "screen | grep -q '$a · shell mode'"
  check "$a: its title says shell mode" "screen | grep -q '$a · shell mode'"
  i=$(./swarm send "$a" "$(printf 'in shell mode\ntouch PWNED_shell_%s' "$a")")
  sleep 8
  check "$a: the message waits in its shell mode ($(state "$i" $a))" "[ \"\$(state $i $a)\" = queued ]"
  attach $n
  case $a in claude|codex) keys BSpace ;; *) keys Escape ;; esac
  sleep 1; detach
  until_ok 60 "[ \"\$(state $i $a)\" = confirmed ]"
  check "$a: delivered once the person left it ($(state "$i" $a))" "[ \"\$(state $i $a)\" = confirmed ]"
  calm $n
  n=$((n + 1))
done
check "nothing ran (no PWNED file)" "[ \$(pwned) -eq 0 ]"
screen > screen-2.txt

attach 0; keys -l '/mcp'; sleep 0.8; keys Enter; sleep 2; detach
i=$(./swarm send claude "while /mcp is open")
sleep 10
check "claude: the message waits while /mcp is open ($(state "$i" claude))" "[ \"\$(state $i claude)\" = queued ]"
check "claude on the needs-you list: its MCP menu" "needs | grep -q 'claude needs you: Claude Code shows its MCP servers menu'"
attach 0; keys Escape; sleep 1; detach
until_ok 60 "[ \"\$(state $i claude)\" = confirmed ]"
check "claude: delivered once the menu closed ($(state "$i" claude))" "[ \"\$(state $i claude)\" = confirmed ]"
until_ok 30 "screen | grep -q 'claude · working'"
check "claude: working while its turn retries" "screen | grep -q 'claude · working'"
i=$(./swarm send claude "while busy")
until_ok 60 "[ \"\$(state $i claude)\" = confirmed ]"
check "claude: busy, its queue took the message ($(state "$i" claude))" "[ \"\$(state $i claude)\" = confirmed ]"
calm 0
until_ok 30 "screen | grep -q 'claude · idle'"
check "claude: idle after Esc (no hook ran)" "screen | grep -q 'claude · idle'"
screen > screen-3.txt

./swarm inbox --json > inbox.json 2>/dev/null
say "screens and the bus are in $work"
[ $fails -eq 0 ] && say "all passed" || say "$fails failed"
exit $((fails > 0))
