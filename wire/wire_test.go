package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := []Request{{ID: 1, Method: MethodPeek, Params: []byte(`{"agent":"a"}`)}, {ID: 2, Method: "x"}}
	for _, r := range in {
		if err := WriteFrame(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range in {
		var got Request
		if err := ReadFrame(&buf, &got); err != nil {
			t.Fatal(err)
		}
		if got.ID != want.ID || got.Method != want.Method || string(got.Params) != string(want.Params) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	var r Request
	if err := ReadFrame(&buf, &r); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

// A peer cannot make the other allocate what it likes, and a frame cut
// short is not mistaken for the end of the connection.
func TestBadFramesAreRefused(t *testing.T) {
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], MaxFrame+1)
	var r Request
	if err := ReadFrame(bytes.NewReader(head[:]), &r); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("oversized frame: %v", err)
	}
	if err := WriteFrame(io.Discard, Reply{Error: strings.Repeat("x", MaxFrame)}); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("writing an oversized frame: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteFrame(&buf, Hello{Version: Version, Program: "swarm test"}); err != nil {
		t.Fatal(err)
	}
	cut := buf.Bytes()[:buf.Len()-3]
	if err := ReadFrame(bytes.NewReader(cut), &r); err != io.ErrUnexpectedEOF {
		t.Errorf("frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
	binary.BigEndian.PutUint32(head[:], 3)
	if err := ReadFrame(bytes.NewReader(append(head[:], "{x}"...)), &r); err == nil {
		t.Error("a frame that is not JSON was read")
	}
}

func TestAnotherVersionIsNamed(t *testing.T) {
	if err := CheckHello(Hello{Version: Version, Program: "swarm dev"}); err != nil {
		t.Fatal(err)
	}
	err := CheckHello(Hello{Version: Version + 1, Program: "swarm 9.0.0"})
	if want := fmt.Sprintf("swarm 9.0.0 speaks protocol %d, this swarm %d", Version+1, Version); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error: %v", err)
	}
}
