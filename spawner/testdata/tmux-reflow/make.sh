#!/bin/bash
# make.sh > screens.txt: how tmux (3.3a when screens.txt was made) shows
# each input of reflow_tmux_test.go, written at 40×10, after one resize;
# and inputs P and X, written at 80×24, after each of a series of resizes.
# Needs tmux and python3; the inputs are those of tmuxReflowInput.
set -eu
input() { # kind: the bytes tmuxReflowInput writes for it
python3 - "$1" <<'PY'
import sys
k = sys.argv[1]
out = "".join("line %d\r\n" % i for i in range(1, 31))
if k == "X":
    sys.stdout.write("E" * 150 + "\r\nbye\r\n")
    sys.exit()
if k == "P":
    sys.stdout.write("".join("row %03d %0100d\r\n" % (i, i) for i in range(1, 201)) + "$ ")
    sys.exit()
if k == "C": out += "\x1b[H\x1b[2J"
if k == "E": out += "\x1b[7A\x1b[J"
out += "".join("L%d-%s\r\n" % (i, "x" * 66) for i in range(1, 4)) + "$ "
if k == "D": out += "\r\nfooter\x1b[A\x1b[3G"
sys.stdout.write(out)
PY
}
for k in A C D E; do
  input $k > /tmp/tmux-reflow-$k.txt
  for size in 40x10 70x10 40x15 70x15 25x10; do
    S=tmux-reflow-$$-$k-$size
    tmux -L $S -f /dev/null new-session -d -x 40 -y 10 "cat /tmp/tmux-reflow-$k.txt; exec sleep 1000"
    tmux -L $S set -g window-size manual >/dev/null
    tmux -L $S set -g status off
    tmux -L $S resize-window -x 40 -y 10
    sleep 0.4 # (a script, not a test: time for cat to finish)
    tmux -L $S resize-window -x ${size%x*} -y ${size#*x}
    sleep 0.3
    echo "== $k $size cursor $(tmux -L $S display -p '#{cursor_x},#{cursor_y} hist=#{history_size}')"
    tmux -L $S capture-pane -p | sed 's/ *$//'
    for i in $(seq $(tmux -L $S capture-pane -p | wc -l) $((${size#*x} - 1))); do echo; done
    tmux -L $S kill-server
  done
  rm -f /tmp/tmux-reflow-$k.txt
done
series() { # kind size...: input kind at 80×24, then resized to each size in turn
k=$1; shift
input $k > /tmp/tmux-reflow-$k.txt
S=tmux-reflow-$$-$k
tmux -L $S -f /dev/null new-session -d -x 80 -y 24 "cat /tmp/tmux-reflow-$k.txt; exec sleep 1000"
tmux -L $S set -g window-size manual >/dev/null
tmux -L $S set -g status off
tmux -L $S resize-window -x 80 -y 24
sleep 0.4
for size in "$@"; do
  tmux -L $S resize-window -x ${size%x*} -y ${size#*x}
  sleep 0.3
  echo "== $k $size cursor $(tmux -L $S display -p '#{cursor_x},#{cursor_y} hist=#{history_size}')"
  tmux -L $S capture-pane -p | sed 's/ *$//'
  for i in $(seq $(tmux -L $S capture-pane -p | wc -l) $((${size#*x} - 1))); do echo; done
done
tmux -L $S kill-server
rm -f /tmp/tmux-reflow-$k.txt
}
series P 62x19 37x12 62x19 62x11 74x24
series X 62x19
