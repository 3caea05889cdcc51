package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// ErrInterrupted is the error of a run stopped by SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted")

// interruptible returns a context cancelled by the first SIGINT or SIGTERM:
// the work stops within a step (the plan's search and pilots, the ladder's
// tuning, the chains), keeping every draw taken. A second signal, while
// the run is stopping, ends the process at once, saying so and what it
// leaves. stop releases the signals: from then on (the chain files closed,
// the summaries being written whole or not at all) a signal ends the
// process at once, as by default.
func interruptible(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	released := make(chan struct{})
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); close(released) }) }
	go func() {
		select {
		case <-released:
			return
		case <-ctx.Done():
		}
		// Caught before NotifyContext lets go of the signals: none is
		// missed between the two.
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		cancel()
		select {
		case <-released:
		case s := <-again:
			fmt.Fprintf(os.Stderr, "fresgld: a second %v while the run was stopping: ended at once; the chain files and checkpoints written so far are kept (fresgld resume continues from the checkpoints), the summaries are not written\n", s)
			code := 130 // 128 + SIGINT
			if s == syscall.SIGTERM {
				code = 143
			}
			os.Exit(code)
		}
	}()
	return ctx, stop
}
