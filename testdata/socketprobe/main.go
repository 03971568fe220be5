// Command socketprobe makes raw requests on the socket of the swarm in
// $SWARM_DIR, as any program of the user could, and prints each answer as
// a line of JSON: the fault trial runs it inside an agent to check what
// the socket refuses it. Usage: socketprobe '[{"Method":…,"Params":{…}},…]'
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"swarm/wire"
)

type call struct {
	Method string
	Params json.RawMessage
}

func main() {
	var calls []call
	if len(os.Args) != 2 || json.Unmarshal([]byte(os.Args[1]), &calls) != nil {
		fmt.Fprintln(os.Stderr, "usage: socketprobe CALLS (a JSON list of {Method, Params})")
		os.Exit(2)
	}
	c, err := net.Dial("unix", filepath.Join(os.Getenv("SWARM_DIR"), "swarm.sock"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	var hello wire.Hello
	if err := wire.WriteFrame(c, wire.Hello{Version: wire.Version, Program: "socketprobe"}); err == nil {
		err = wire.ReadFrame(c, &hello)
	}
	if err != nil || hello.Refused != "" {
		fmt.Fprintln(os.Stderr, "handshake:", err, hello.Refused)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	for i, cl := range calls {
		err := wire.WriteFrame(c, wire.Request{ID: uint64(i + 1), Method: cl.Method, Params: cl.Params})
		var r wire.Reply
		if err == nil {
			err = wire.ReadFrame(c, &r)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, cl.Method, err)
			os.Exit(1)
		}
		_ = out.Encode(struct {
			Method string
			wire.Reply
		}{cl.Method, r})
	}
}
