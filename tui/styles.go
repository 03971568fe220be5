package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"swarm/bus"
	"swarm/swarmapi"
)

// The UI uses the 16 basic colours so that it follows the user's terminal
// theme.
var (
	colorDim      = lipgloss.BrightBlack
	colorOK       = lipgloss.Green
	colorWarn     = lipgloss.Yellow
	colorStale    = lipgloss.BrightRed
	colorDead     = lipgloss.Red
	colorAttached = lipgloss.BrightMagenta
	colorSelected = lipgloss.BrightCyan
	colorAccent   = lipgloss.BrightBlue
)

var (
	styleDim       = lipgloss.NewStyle().Foreground(colorDim)
	styleBold      = lipgloss.NewStyle().Bold(true)
	styleError     = lipgloss.NewStyle().Foreground(lipgloss.BrightRed).Bold(true)
	styleInfo      = lipgloss.NewStyle().Foreground(lipgloss.BrightWhite)
	styleMode      = lipgloss.NewStyle().Foreground(lipgloss.Black).Background(colorAccent).Bold(true)
	styleAttached  = lipgloss.NewStyle().Foreground(lipgloss.Black).Background(colorAttached).Bold(true)
	styleSelRow    = lipgloss.NewStyle().Foreground(lipgloss.Black).Background(colorSelected).Bold(true)
	styleMatch     = lipgloss.NewStyle().Reverse(true) // a search match that is not the current one
	styleSelection = lipgloss.NewStyle().Reverse(true) // cells selected to copy
	// styleCopyCursor is copy mode's cursor: a block of its own colour,
	// seen over a match and a selection alike.
	styleCopyCursor = lipgloss.NewStyle().Foreground(lipgloss.Black).Background(colorAttached).Bold(true)
	styleHeader     = lipgloss.NewStyle().Foreground(colorAccent).Bold(true)
	styleKey        = lipgloss.NewStyle().Foreground(colorSelected).Bold(true)
)

// levelColor is the colour of a liveness level.
func levelColor(l bus.Level) color.Color {
	switch l {
	case bus.LevelOK:
		return colorOK
	case bus.LevelIdle, bus.LevelDone:
		return colorDim // normal states: nothing to look at
	case bus.LevelWarn:
		return colorWarn
	case bus.LevelStale:
		return colorStale
	default:
		return colorDead
	}
}

// stateColor is the colour of an agent's process state.
func stateColor(s swarmapi.AgentState) color.Color {
	switch s {
	case swarmapi.StateRunning:
		return colorOK
	case swarmapi.StateStarting, swarmapi.StateBackoff, swarmapi.StateUnreachable:
		return colorWarn
	case swarmapi.StateStopped:
		return colorDim
	default:
		return colorDead
	}
}

// agentStateColor is the colour of an agent's StateWord: its process
// state's, except that an agent whose CLI waits for the person stands out.
func agentStateColor(a swarmapi.AgentInfo) color.Color {
	if a.StateWord() == bus.StatusNeedsHuman.String() {
		return colorWarn
	}
	return stateColor(a.State)
}

// paneColor is the border colour of an agent's pane: its liveness while
// it runs, else its process state.
func paneColor(a swarmapi.AgentInfo) color.Color {
	if a.State == swarmapi.StateRunning {
		return levelColor(a.Level)
	}
	return stateColor(a.State)
}

// deliveryColor is the colour of a delivery state.
func deliveryColor(s string) color.Color {
	switch s {
	case "confirmed", "logged":
		return colorOK
	case "queued", "injected", "mixed", "unconfirmed":
		return colorWarn
	default:
		return colorDead
	}
}

// taskColor is the colour of a task state.
func taskColor(s bus.TaskState) color.Color {
	switch s {
	case bus.TaskWorking, bus.TaskAssigned:
		return colorWarn
	case bus.TaskInReview, bus.TaskApproved:
		return colorSelected
	case bus.TaskCompleted:
		return colorOK
	case bus.TaskConflicted, bus.TaskFailed, bus.TaskChangesRequested:
		return colorDead
	default:
		return colorDim
	}
}

// checkMark is how a check, or a run of them as a whole (bus.Summary),
// shows: ✓ passed, ✗ failed or timed out, ⋯ queued or running, – cancelled.
func checkMark(s bus.CheckState) string {
	switch s {
	case bus.CheckPassed:
		return fg(colorOK).Render("✓")
	case bus.CheckFailed, bus.CheckTimedOut:
		return fg(colorDead).Render("✗")
	case bus.CheckCancelled:
		return styleDim.Render("–")
	default:
		return fg(colorWarn).Render("⋯")
	}
}

func fg(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
