package tea

// Tests of the patch swarm carries (SWARM.md): an idle program's renderer
// stops waking up, and the next change is still shown.

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingRenderer counts the renderer's flushes.
type countingRenderer struct {
	renderer
	flushes atomic.Int64
}

func (r *countingRenderer) flush(closing bool) error {
	r.flushes.Add(1)
	return r.renderer.flush(closing)
}

// syncBuffer is an output the test reads while the program writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type textMsg string

// textModel shows the text it was last sent.
type textModel string

func (m textModel) Init() Cmd { return nil }

func (m textModel) Update(msg Msg) (Model, Cmd) {
	switch msg := msg.(type) {
	case textMsg:
		return textModel(msg), nil
	}
	return m, nil
}

func (m textModel) View() View { return NewView(string(m)) }

// waitUntil polls cond until it holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settled reports whether r flushed nothing over the next 10 frames: a
// renderer that still ticks flushes 10 times.
func settled(r *countingRenderer, frame time.Duration) bool {
	before := r.flushes.Load()
	time.Sleep(10 * frame)
	return r.flushes.Load() == before
}

func TestAnIdleRendererSleepsAndWakesForTheNextFrame(t *testing.T) {
	const fps = 60
	frame := time.Second / fps
	out := &syncBuffer{}
	p := NewProgram(textModel("first-frame"), WithInput(nil), WithOutput(out), WithFPS(fps), WithWindowSize(40, 5))
	cr := newCursedRenderer(p.output, p.environ, 40, 5)
	r := &countingRenderer{renderer: cr}
	p.renderer = r
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	defer func() {
		p.Quit()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	waitUntil(t, "the first frame", func() bool { return strings.Contains(out.String(), "first-frame") })
	waitUntil(t, "the renderer to stop flushing while nothing changes", func() bool { return settled(r, frame) })

	// A change after the renderer went to sleep is shown: the first frame
	// at once, later ones at the frame rate.
	p.Send(textMsg("second-frame"))
	waitUntil(t, "the second frame", func() bool { return strings.Contains(out.String(), "second-frame") })
	for i := range 5 {
		p.Send(textMsg("burst-" + string(rune('a'+i))))
	}
	waitUntil(t, "the last frame of a burst", func() bool { return strings.Contains(out.String(), "burst-e") })
	waitUntil(t, "the renderer to sleep again", func() bool { return settled(r, frame) })
}
