//go:build !linux

package cputime

import "time"

// Thread is the CPU time of the calling OS thread: unknown here, so 0.
func Thread() time.Duration { return 0 }

// Lock does nothing where Thread is unknown.
func Lock() func() { return func() {} }

// Process is the CPU time of the whole process: unknown here, so 0.
func Process() time.Duration { return 0 }
