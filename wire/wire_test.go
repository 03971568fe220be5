package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
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

// A frame's length is a promise: 200 connections each promising 16 MiB
// reserved 2 GB of a server's memory before a byte of them came.
func TestAPromisedFrameTakesNoMemoryUntilItsBytesCome(t *testing.T) {
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], MaxFrame)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const conns = 20
	for range conns {
		var r Request
		err := ReadFrame(io.MultiReader(bytes.NewReader(head[:]), strings.NewReader(`{"id":1,`)), &r)
		if err != io.ErrUnexpectedEOF {
			t.Fatalf("a frame cut short: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if took := after.TotalAlloc - before.TotalAlloc; took > conns*64<<10 {
		t.Errorf("%d frames promising %d MiB and cut after 8 bytes took %d MiB", conns, MaxFrame>>20, took>>20)
	}
	// A frame that does come whole is read whole.
	var buf bytes.Buffer
	big := Reply{ID: 7, Error: strings.Repeat("x", 1<<20)}
	if err := WriteFrame(&buf, big); err != nil {
		t.Fatal(err)
	}
	var got Reply
	if err := ReadFrame(&buf, &got); err != nil || got.ID != 7 || got.Error != big.Error {
		t.Errorf("a 1 MiB frame: id %d, %d bytes, %v", got.ID, len(got.Error), err)
	}
}
