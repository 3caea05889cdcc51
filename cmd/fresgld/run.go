package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fresgld/fresgld/exchange"
)

// ladderRun is what one sampling run of a command produced.
type ladderRun struct {
	Stats exchange.Stats
	Trace exchange.Trace // the samples retained, up to an error or an interrupt
	Wall  time.Duration
	Err   error // the run's error, if it stopped early; errInterrupted on a signal
}

// errInterrupted is the error of a run stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

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

// sampleLadder starts cfg with every level at init and collects plan's
// samples, with a progress bar labelled label on a terminal. Each retained
// state is handed to sink (when not nil) as it is taken, so that an output
// file holds it even if the process is killed. Between steps it checks ctx:
// when ctx is done the run stops with Err = errInterrupted and the samples
// taken so far. The returned error is a setup error; a failure during the
// run is in ladderRun.Err, with the samples taken before it.
func sampleLadder(ctx context.Context, cfg exchange.Config, init []float64, plan exchange.Plan, label string, sink func([]float64) error) (ladderRun, error) {
	inits := make([][]float64, len(cfg.Levels))
	for l := range inits {
		inits[l] = init
	}
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return ladderRun{}, err
	}
	defer smp.Close()
	progress := newProgress(label, plan.Steps()).callback()
	start := time.Now()
	// Room for the whole run up to 8 MB; beyond, append grows it, so that an
	// interrupted long run never held memory it did not use.
	tr := exchange.Trace{P: smp.Dim(), Data: make([]float64, 0, min(plan.Keep*smp.Dim(), 1<<20))}
	done := ctx.Done()
	total := plan.Steps()
	var runErr error
	for i := 1; i <= total; i++ {
		select {
		case <-done:
			runErr = errInterrupted
		default:
		}
		if runErr != nil {
			break
		}
		if runErr = smp.Step(); runErr != nil {
			break
		}
		if i > plan.Burn && (i-plan.Burn)%plan.Thin == 0 {
			x := smp.State(plan.Level)
			tr.Data = append(tr.Data, x...)
			if sink != nil {
				if err := sink(x); err != nil {
					runErr = fmt.Errorf("writing a sample: %w", err)
					break
				}
			}
		}
		if progress != nil {
			progress(i, total)
		}
	}
	if progress != nil && runErr != nil {
		fmt.Fprintln(os.Stderr)
	}
	return ladderRun{Stats: smp.Stats(), Trace: tr, Wall: time.Since(start), Err: runErr}, nil
}
