// Package testrun holds what the test binaries of this module share about
// how they run: their TestMain's settings and how a test waits.
package testrun

import (
	"flag"
	"fmt"
)

// WaitersInParallel lets n tests marked parallel run at once instead of
// the default (GOMAXPROCS), unless -parallel was given: call it from the
// TestMain of a package whose tests mostly wait on child processes and
// PTYs rather than use the CPU.
func WaitersInParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", fmt.Sprint(n))
	}
}
