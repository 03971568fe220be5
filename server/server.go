// Package server serves a running swarm on its socket, .swarm/swarm.sock,
// in the protocol of package wire, and dials it from another process.
//
// The socket is the running swarm's door for other programs on the
// machine: `swarm peek` reads an agent's screen through it (an agent can
// look at another's). It is made for the swarm's own user only: the file
// is 0600 in the 0700 bus directory, and the server refuses a connection
// from another user (SO_PEERCRED, on Linux).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"

	"swarm/supervisor"
	"swarm/wire"
)

// SocketName is the socket's file name in the bus directory.
const SocketName = "swarm.sock"

// Server answers requests on a swarm's socket until Close.
type Server struct {
	sup     *supervisor.Supervisor
	log     *slog.Logger
	program string
	ln      net.Listener
	path    string

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// Listen opens the socket in busDir (replacing one a killed swarm left:
// the caller holds the directory's lock) and serves sup on it; program
// names this swarm in the handshake ("swarm 1.2.3").
func Listen(busDir string, sup *supervisor.Supervisor, program string, log *slog.Logger) (*Server, error) {
	path := filepath.Join(busDir, SocketName)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove the old socket: %w", err)
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{sup: sup, log: log, program: program, ln: ln, path: path, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Close stops listening, ends every connection, waits for their
// goroutines and removes the socket file.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		if err := sameUser(c); err != nil {
			s.log.Warn("socket: connection refused", "err", err)
			c.Close()
			continue
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			// A client that hangs up ends its connection (io.EOF), as
			// does Close; anything else is worth a line in the log.
			if err := s.serve(c); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.log.Info("socket: connection ended", "err", err)
			}
		}()
	}
}

// serve runs one connection: the handshake, then a reply to each request,
// until the connection ends (the error says how).
func (s *Server) serve(c net.Conn) error {
	var hello wire.Hello
	if err := wire.ReadFrame(c, &hello); err != nil {
		return err
	}
	if err := wire.WriteFrame(c, wire.Hello{Version: wire.Version, Program: s.program}); err != nil {
		return err
	}
	if err := wire.CheckHello(hello); err != nil {
		return err // the client says so to its user, from our Hello
	}
	for {
		var req wire.Request
		if err := wire.ReadFrame(c, &req); err != nil {
			return err
		}
		reply := wire.Reply{ID: req.ID}
		result, err := s.handle(req)
		if err != nil {
			reply.Error = err.Error()
		} else if reply.Result, err = json.Marshal(result); err != nil {
			reply.Error = err.Error()
		}
		if err := wire.WriteFrame(c, reply); err != nil {
			return err
		}
	}
}

func (s *Server) handle(req wire.Request) (any, error) {
	switch req.Method {
	case wire.MethodPeek:
		var p wire.PeekParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, fmt.Errorf("peek: %w", err)
		}
		snap, err := s.sup.Snapshot(p.Agent)
		if err != nil {
			return nil, err
		}
		return wire.PeekResult{Agent: p.Agent, Rows: snap.Rows, Cols: snap.Cols, Lines: snap.Lines,
			AltScreen: snap.AltScreen, Title: snap.Title}, nil
	}
	return nil, fmt.Errorf("unknown method %q (this swarm is %s)", req.Method, s.program)
}

// ErrNotRunning is returned by Dial when no swarm serves the directory.
var ErrNotRunning = errors.New("no swarm is running")

// Client is a connection to a running swarm. It is not safe for
// concurrent use.
type Client struct {
	c      net.Conn
	nextID uint64
	Server wire.Hello // the swarm's handshake
}

// Dial connects to the swarm serving busDir, program naming the caller.
func Dial(ctx context.Context, busDir, program string) (*Client, error) {
	path := filepath.Join(busDir, SocketName)
	c, err := dialUnix(ctx, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errConnRefused) {
			return nil, fmt.Errorf("%w for %s (swarm up starts one)", ErrNotRunning, busDir)
		}
		return nil, fmt.Errorf("connect to %s: %w", path, err)
	}
	cl := &Client{c: c}
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(deadline)
	}
	err = wire.WriteFrame(c, wire.Hello{Version: wire.Version, Program: program})
	if err == nil {
		err = wire.ReadFrame(c, &cl.Server)
	}
	if err == nil {
		err = wire.CheckHello(cl.Server)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the swarm of %s: %w", busDir, err)
	}
	return cl, nil
}

// Close ends the connection.
func (cl *Client) Close() error { return cl.c.Close() }

// call sends a request and decodes its reply's result into result.
func (cl *Client) call(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = cl.c.SetDeadline(deadline)
	}
	cl.nextID++
	if err := wire.WriteFrame(cl.c, wire.Request{ID: cl.nextID, Method: method, Params: raw}); err != nil {
		return err
	}
	var reply wire.Reply
	if err := wire.ReadFrame(cl.c, &reply); err != nil {
		return err
	}
	if reply.ID != cl.nextID {
		return fmt.Errorf("reply %d to request %d", reply.ID, cl.nextID)
	}
	if reply.Error != "" {
		return errors.New(reply.Error)
	}
	return json.Unmarshal(reply.Result, result)
}

// Peek returns an agent's current screen.
func (cl *Client) Peek(ctx context.Context, agent string) (wire.PeekResult, error) {
	var r wire.PeekResult
	err := cl.call(ctx, wire.MethodPeek, wire.PeekParams{Agent: agent}, &r)
	return r, err
}
