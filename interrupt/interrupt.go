// Package interrupt is how a run answers SIGINT and SIGTERM: the first
// stops the work within a step, keeping every draw taken; a second, while
// the run is stopping, ends the process at once.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ErrInterrupted is the error of a run stopped by SIGINT or SIGTERM.
var ErrInterrupted = errors.New("interrupted")

// sameStop is how soon after the first signal another is taken as a copy
// of it, not as a second stop: GNU timeout(1) signals its child and then
// the child's process group, and a terminal's Ctrl-C reaches both a
// wrapper and the run, which the wrapper passes on. Taken as a second
// stop, such a copy ended the run before its summaries (1 try in 3 under
// `timeout -s TERM`), or, arriving after them, killed it with no word.
const sameStop = time.Second

// Context returns a context cancelled by the first SIGINT or SIGTERM:
// the work stops within a step (the plan's search and pilots, the ladder's
// tuning, the chains), keeping every draw taken. A second signal, while
// the run is stopping, ends the process at once, saying so and what it
// leaves. stop releases the signals: from then on (the chain files closed,
// the summaries being written whole or not at all) a signal ends the
// process at once, as by default. A signal within sameStop of the first
// is the same stop, whenever it comes.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	released := make(chan struct{})
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); close(released) }) }
	go watchSignals(sigs, cancel, released, time.Now, endAtOnce)
	return ctx, stop
}

// watchSignals reads sigs until one ends the process: the first cancels
// the run, those within sameStop of it are ignored, and any other ends it
// through end, which hears whether the run was still stopping (not yet
// released).
func watchSignals(sigs <-chan os.Signal, cancel func(), released <-chan struct{}, now func() time.Time, end func(s os.Signal, stopping bool)) {
	var first time.Time
	for s := range sigs {
		t := now()
		select {
		case <-released:
			if first.IsZero() || t.Sub(first) >= sameStop {
				end(s, false)
				return
			}
			continue
		default:
		}
		switch {
		case first.IsZero():
			first = t
			cancel()
		case t.Sub(first) >= sameStop:
			end(s, true)
			return
		}
	}
}

// endAtOnce ends the process on signal s: with a word on what it leaves
// while the run was stopping, or by the signal itself, as by default,
// once the run had let the signals go.
func endAtOnce(s os.Signal, stopping bool) {
	code := 130 // 128 + SIGINT
	if s == syscall.SIGTERM {
		code = 143
	}
	if !stopping {
		signal.Reset(s)
		if sig, ok := s.(syscall.Signal); ok {
			syscall.Kill(os.Getpid(), sig)
		}
		time.Sleep(time.Second) // the signal ends the process before
		os.Exit(code)
	}
	fmt.Fprintf(os.Stderr, "fresgld: a second %v while the run was stopping: ended at once; the chain files and checkpoints written so far are kept (fresgld resume continues from the checkpoints), the summaries are not written\n", s)
	os.Exit(code)
}
