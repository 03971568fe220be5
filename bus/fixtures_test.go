package bus

// cleanupFixtures removes fixtures built for benchmarks (see bench_test.go).
func cleanupFixtures() {}
