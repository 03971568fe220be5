# Shared by the live checks (deliver.sh, kits.sh): a scratch directory with
# a swarm built from this checkout, a scratch HOME per CLI that skips its
# onboarding and trust prompts with a dummy key (no AI service is
# reached), and helpers to drive `swarm up` in a private tmux server.
# Source it from the repository's root; $script names the caller.
for c in tmux claude codex gemini; do
  command -v "$c" >/dev/null || { echo "$script: $c is not on PATH" >&2; exit 2; }
done

work=$(mktemp -d /tmp/swarm-live.XXXXXX)
sock=swarm-live-$$
# SWARM_BUILT: a swarm binary built already (kits.sh --as USER builds it
# before it runs as that user).
if [ -n "${SWARM_BUILT:-}" ]; then cp "$SWARM_BUILT" "$work/swarm" || exit 2; else go build -o "$work/swarm" . || exit 2; fi
cd "$work"
key="sk-ant-api03-$(printf 'A%.0s' $(seq 40))"
mkdir -p home/claude home/codex/.codex home/gemini/.gemini home/opencode
cat > home/claude/.claude.json <<EOF
{"hasCompletedOnboarding": true, "customApiKeyResponses": {"approved": ["${key: -20}"], "rejected": []},
 "projects": {"$work": {"hasTrustDialogAccepted": true, "allowedTools": []}}}
EOF
echo '{"auth_mode": "apikey", "OPENAI_API_KEY": "sk-dummy"}' > home/codex/.codex/auth.json
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$work" > home/codex/.codex/config.toml
echo '{"security": {"auth": {"selectedType": "gemini-api-key"}}}' > home/gemini/.gemini/settings.json
echo "{\"$work\": \"TRUST_FOLDER\"}" > home/gemini/.gemini/trustedFolders.json
# The env line of each CLI's agent in swarm.toml.
claude_env="env = { HOME = \"$work/home/claude\", ANTHROPIC_API_KEY = \"$key\", DISABLE_AUTOUPDATER = \"1\", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\" }"
codex_env="env = { HOME = \"$work/home/codex\", OPENAI_API_KEY = \"sk-dummy\" }"
gemini_env="env = { HOME = \"$work/home/gemini\", GEMINI_API_KEY = \"dummy\" }"
opencode_env="env = { HOME = \"$work/home/opencode\", OPENAI_API_KEY = \"dummy\" }"

fails=0
say() { printf '%s\n' "$*"; }
check() { if eval "$2"; then say "  ok    $1"; else say "  FAIL  $1"; fails=$((fails + 1)); fi; }
keys() { tmux -L "$sock" send-keys -t live "$@"; }
screen() { tmux -L "$sock" capture-pane -p -t live; }
# until_ok SECONDS CMD: polls CMD until it succeeds.
until_ok() { local end=$((SECONDS + $1)); shift; while ! eval "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.5; done; }
# up N: runs `swarm up` at 240x64 and waits until its N agents run.
up() {
  tmux -L "$sock" new-session -d -s live -x 240 -y 64 "cd $work && ./swarm up 2>ui.err"
  say "swarm in $work"
  say "(the agents' screens: tmux -L $sock attach -t live)"
  until_ok 90 "./swarm status --json 2>/dev/null | python3 -c \"import json,sys; a=json.load(sys.stdin)['agents']; sys.exit(0 if len(a)==$1 and all(x['state']=='running' for x in a) else 1)\" 2>/dev/null" ||
    { say "agents did not start"; screen; exit 1; }
}
cleanup() {
  # The agents run in swarm's server, which outlives the UI in tmux.
  (cd "$work" && ./swarm stop >/dev/null 2>&1)
  tmux -L "$sock" kill-server 2>/dev/null
  # Codex starts an app-server daemon of its own (a new session, outside
  # swarm's process groups), one per HOME, run from a copy of itself under
  # that HOME: end the processes whose program is in this check's scratch
  # homes, by pid. It may start while swarm stops codex: look twice.
  for _ in 1 2; do
    for p in /proc/[0-9]*; do
      case "$(readlink "$p/exe" 2>/dev/null)" in "$work"/home/*) kill "${p#/proc/}" 2>/dev/null ;; esac
    done
    sleep 2
  done
}
trap cleanup EXIT
