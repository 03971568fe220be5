package server

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the server and its clients start has an owner that
// ends it: none may be left when the tests are done. The notes of running
// swarms (registry.go) go to a cache directory of the tests' own.
func TestMain(m *testing.M) {
	if code, ok := helper(); ok {
		os.Exit(code)
	}
	cache, err := os.MkdirTemp("", "swarm-server-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left running:", err)
			code = 1
		}
	}
	os.RemoveAll(cache)
	os.Exit(code)
}
