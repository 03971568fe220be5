package asciicast

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Width: 80, Height: 24, Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Time: 10 * time.Millisecond, Code: Output, Data: "\x1b[31mhi\r\n"},
		{Time: 20 * time.Millisecond, Code: Input, Data: "x"},
		{Time: 30 * time.Millisecond, Code: Resize, Data: "100x30"},
	}
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if !Is(b.Bytes()) {
		t.Fatal("Is: false for a recording")
	}
	r, err := NewReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Version != 2 || h.Width != 80 || h.Height != 24 {
		t.Errorf("header %+v", h)
	}
	for _, want := range events {
		got, err := r.Next()
		if err != nil || got.Code != want.Code || got.Data != want.Data || (got.Time-want.Time).Abs() > time.Microsecond {
			t.Errorf("got %+v, %v; want %+v", got, err, want)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last event: %v", err)
	}
	if c, rows, err := events[2].Size(); c != 100 || rows != 30 || err != nil {
		t.Errorf("Size = %d %d %v", c, rows, err)
	}
}

func TestMalformed(t *testing.T) {
	for _, in := range []string{"", "not json\n", `{"version":1,"width":80,"height":24}` + "\n", `{"version":2}` + "\n"} {
		if _, err := NewReader(strings.NewReader(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("NewReader(%q) = %v", in, err)
		}
	}
	r, err := NewReader(strings.NewReader(`{"version":2,"width":80,"height":24}` + "\n[0.1, \"o\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a short event: %v", err)
	}
	if _, _, err := (Event{Code: Resize, Data: "80 by 24"}).Size(); !errors.Is(err, ErrFormat) {
		t.Errorf("a bad size: %v", err)
	}
	if Is([]byte("\x1b[31mraw output")) {
		t.Error("Is: true for raw output")
	}
}
