// Package checks runs a swarm's checks — the shell commands of its
// [checks] table — on task branches, and keeps the base branch green.
//
// Where each thing is:
//
//	runner.go   one command in a directory: at a lower CPU priority than
//	            swarm (nice 10), in a process group of its own, with a
//	            timeout, its output to a log file under .swarm/checks/<task>/,
//	            at most a number of them at once (by default half the
//	            cores); a check that ends leaves no process behind: its
//	            group is killed, and so is any process carrying its mark in
//	            its environment (SWARM_CHECK), which finds what left the group
//	service.go  Service: the checks of one swarm, run by Run until its
//	            context ends; every goroutine and process is its
//	branch.go   the checks of the branch of each task in review, again at
//	            each new commit; a failure told at once to the task's agent
//	review.go   the task handed to the reviewer agent once its checks pass:
//	            the diff stat, and the whole diff in a file it can read
//	queue.go    the merge queue: one task at a time, in order, its merge
//	            with the base checked before the base moves to it; the
//	            crash rules
//
// The state is the bus's (checks, merge_queue, reviews, check_policy); the
// moves of tasks are package tasks'; the git is gitrepo's.
package checks
