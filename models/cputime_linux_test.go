package models_test

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling OS thread. On a shared machine
// it stays honest when wall time does not: time spent descheduled is not
// counted, time stalled on memory is.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lockThread pins the benchmark goroutine to its thread for threadCPU.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
