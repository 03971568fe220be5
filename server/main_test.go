package server

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the server and its clients start has an owner that
// ends it: none may be left when the tests are done.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
