package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// ErrInterrupted is the error of a run stopped by SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted")

// interruptible returns a context cancelled by the first SIGINT or SIGTERM.
// After that first signal the default handling is restored, so a second
// Ctrl-C kills the process at once. stop releases the signals.
func interruptible(parent context.Context) (ctx context.Context, stop func()) {
	ctx, stop = signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
