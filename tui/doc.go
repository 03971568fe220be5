// Package tui is swarm's terminal UI: a Bubble Tea program over a running
// supervisor that shows every agent as a live terminal pane, with the
// agent list, inboxes, the task board, the message log and, in the demo,
// the game board.
//
// # Modes
//
// In normal mode keys drive the UI (see KeyMap; `?` lists them all). Enter
// attaches to the selected pane: from then on every key — ctrl keys,
// arrows, function keys, alt combinations and pastes — goes to that agent
// until the prefix key ctrl+] detaches. ctrl+] was chosen because shells,
// editors and agent CLIs leave it alone (unlike ctrl+q, ctrl+s, ctrl+b,
// ctrl+c or esc). `[` or pgup enters scroll mode for the selected pane:
// tmux's copy mode, a cursor the arrows move, where `/` searches the
// scrollback and puts the cursor on the match, and `v` selects characters
// from the cursor to copy (OSC 52, to the clipboard of the terminal swarm
// runs in).
//
// With many agents, `/` filters the agent list and the panes (name,
// state or liveness), and the grid shows the panes that fit, a page at a
// time (`>` `<`; agentfilter.go): an agent off the page is not rendered.
//
// # Rendering and concurrency
//
// One goroutine (the bridge) forwards the supervisor's events into the
// program. Lifecycle, message, delivery, task, liveness and game events are
// forwarded one by one and never dropped; screen-changed notices are
// gathered and sent at most once per frame, so a flood of output costs a
// bounded number of renders. Each pane keeps its rendered screen and is
// rendered again only when its agent's screen changed, it was resized or
// scrolled — in a command, one per pane at a time, so that a busy agent,
// whose output holds its screen's lock, never holds up the other panes or
// the keyboard. View only assembles what was rendered. Update never blocks: bus reads, task actions and keystrokes
// for agents run in tea.Cmds that report back with messages; keystrokes
// for one agent are written in order, one batch at a time. Pane sizes are
// pushed to the agents' terminals (Resize) after the window has stopped
// changing for a moment, and only when they changed.
//
// Errors — a refused task move, an agent that will not start, a delivery
// that failed — are shown in the status line, on one line cut to fit; they
// never end the UI. The result of what the person just did (a merge, an
// approval, a message sent) stays there for its time: what happens in the
// swarm meanwhile (an agent exited, a notice) is shown after it, and the
// exit of an agent the swarm restarts on purpose (Event.Planned) is not
// shown at all.
//
// # Files
//
// The root Model (model.go) owns the modes, the layout and what is open,
// and routes: keys (route.go), mouse (mouse.go), the supervisor's events
// (events.go), task actions (tasks.go), scroll mode and search
// (scroll.go), the status line (status.go). Its children hold their own
// state and get only what they need: a pane (pane.go), the panels
// (panels.go: inbox, task board, log; they read through a source), the
// dialogs (dialog.go: they report done, and the root closes them). The
// keys are data (keys.go); the help and the hints are made from them.
package tui
