// Package checks runs a swarm's checks — the shell commands of its
// [checks] table — on task branches, and keeps the base branch green.
//
// The runner (runner.go) runs one command in a directory: at a lower CPU
// priority than swarm (nice 10), in a process group of its own, with a
// timeout, its output to a log file under .swarm/checks/<task>/, at most
// a number of them at once (by default half the cores). A check that ends
// — passed, failed, timed out or cancelled — leaves no process behind:
// its group is killed, and so is any process carrying its mark in its
// environment (SWARM_CHECK), which finds what left the group.
package checks
