package server

import (
	"slices"
	"testing"

	"swarm/wire"
)

// Only changed rows travel; what the client rebuilds is the screen; a
// client that does not hold the rendering a change is against is refused
// it and then gets every row.
func TestScreensTravelAsChangedRows(t *testing.T) {
	z := newScreens()
	var h heldScreen
	render := func(rows ...string) wire.RenderResult {
		t.Helper()
		r := z.diff(1, "a", h.gen, false, rows)
		if err := h.apply(r); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.rows, rows) {
			t.Fatalf("client holds %q, want %q", h.rows, rows)
		}
		return r
	}
	if r := render("one", "two", "three"); r.Base != 0 || len(r.Changed) != 3 {
		t.Errorf("first rendering: %+v, want all rows", r)
	}
	if r := render("one", "2", "three"); r.Base == 0 || len(r.Changed) != 1 || r.Changed[1] != "2" {
		t.Errorf("one row changed: %+v", r)
	}
	if r := render("one", "2"); len(r.Changed) != 0 || r.N != 2 {
		t.Errorf("a row fewer: %+v", r)
	}
	if r := render("one", "2", "new", "rows"); len(r.Changed) != 2 {
		t.Errorf("rows more: %+v", r)
	}
	// Two requests crossed: both were made holding the same rendering.
	stale := h.gen
	first := z.diff(1, "a", stale, false, []string{"x"})
	second := z.diff(1, "a", stale, false, []string{"y"})
	if second.Base != 0 {
		t.Fatalf("the second of two crossed requests got a change against %d", second.Base)
	}
	if err := h.apply(second); err != nil || !slices.Equal(h.rows, []string{"y"}) {
		t.Fatalf("a whole rendering: %v %q", err, h.rows)
	}
	if err := h.apply(first); err == nil {
		t.Error("a change against a rendering the client no longer holds was applied")
	}
	// Connections do not share what they were sent.
	if r := z.diff(2, "a", h.gen, false, []string{"y"}); r.Base != 0 {
		t.Errorf("another connection got a change: %+v", r)
	}
}
