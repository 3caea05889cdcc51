// Package cputime reads the CPU time of the calling OS thread, for
// benchmarks on shared machines: time spent descheduled is not counted, time
// stalled on memory is.
package cputime

import (
	"runtime"
	"syscall"
	"time"
)

// Thread is the CPU time of the calling OS thread (0 where unknown).
func Thread() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Lock pins the calling goroutine to its thread, so that Thread measures
// it; call the returned function to unpin.
func Lock() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// Process is the CPU time of the whole process, all threads (0 where
// unknown).
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
