package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzMessageRoundTrip publishes arbitrary bodies, topics and data to a real
// bus and checks that every read path returns them unchanged, that invalid
// JSON data is refused, and that the export line decodes to the same message.
func FuzzMessageRoundTrip(f *testing.F) {
	f.Add("hello", []byte(`{"a":1}`), "topic")
	f.Add("", []byte(nil), "")
	f.Add("line1\nline2\x00\x1b[31m", []byte(`[1, "two", null]`), "é")
	f.Add(string(bytes.Repeat([]byte("z"), 5000)), []byte(`"s"`), "")
	f.Add("bad utf8 \xff\xfe", []byte(`{"a":`), "")
	f.Add("x", []byte(" \n"), "")
	b, err := Open(Options{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { b.Close() })
	f.Fuzz(func(t *testing.T, body string, data []byte, topic string) {
		m, err := b.Publish(ctx, Message{From: "alice", To: "human", Body: body, Data: data, Topic: topic})
		if len(data) > 0 && !json.Valid(data) {
			if !errors.Is(err, ErrInvalidData) {
				t.Fatalf("invalid data %q: err = %v", data, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Message(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Body != body || got.Topic != topic || !bytes.Equal(got.Data, m.Data) {
			t.Fatalf("round trip changed the message:\nbody %q → %q\ntopic %q → %q\ndata %q → %q", body, got.Body, topic, got.Topic, m.Data, got.Data)
		}
		if len(data) > 0 && !bytes.Equal(got.Data, data) {
			t.Fatalf("data %q stored as %q", data, got.Data)
		}
		line, err := EncodeRecord(NewRecord(got, got.State()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("export line is not one line: %q", line)
		}
		r, err := DecodeRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != got.ID || r.Seq != got.Seq || r.Topic != topic && utf8.ValidString(topic) {
			t.Fatalf("record %+v", r)
		}
		if utf8.ValidString(body) && r.Body != body {
			t.Fatalf("record body %q, want %q", r.Body, body)
		}
		if len(got.Data) > 0 {
			var want, have bytes.Buffer
			json.Compact(&want, got.Data)
			json.Compact(&have, r.Data)
			if want.String() != have.String() {
				t.Fatalf("record data %s, want %s", have.String(), want.String())
			}
		}
	})
}

// FuzzDecodeRecord feeds arbitrary lines to the export decoder, which Export
// runs on whatever the last line of an existing file is.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"id":"x","seq":1,"ts":"2026-01-02T03:04:05Z","from":"a","to":"b","kind":"message","body":"hi","state":"queued"}`))
	f.Add([]byte(`{"id":"x","seq":-1}`))
	f.Add([]byte(`{"id":"x","seq":2,"data":{"deep":[1,2,{"x":null}]},"deliveries":[{"recipient":"b","state":"failed","error":"e"}]}`))
	f.Add([]byte(`{"seq":1e400}`))
	f.Add([]byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := DecodeRecord(line)
		if err != nil {
			return
		}
		if r.ID == "" || r.Seq <= 0 {
			t.Fatalf("accepted a record without id or seq: %+v", r)
		}
		enc, err := EncodeRecord(r)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", r, err)
		}
		r2, err := DecodeRecord(enc)
		if err != nil {
			t.Fatalf("decode of re-encoded %q: %v", enc, err)
		}
		enc2, err := EncodeRecord(r2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}
