package main

import (
	"time"

	"github.com/fresgld/fresgld/exchange"
)

// ladderRun is what one sampling run of a command produced.
type ladderRun struct {
	Stats exchange.Stats
	Trace exchange.Trace // the samples retained, up to an error
	Wall  time.Duration
	Err   error // the run's error, if it stopped early
}

// sampleLadder starts cfg with every level at init and collects plan's
// samples, with a progress bar labelled label on a terminal. The returned
// error is a setup error; a failure during the run is in ladderRun.Err, with
// the samples taken before it.
func sampleLadder(cfg exchange.Config, init []float64, plan exchange.Plan, label string) (ladderRun, error) {
	inits := make([][]float64, len(cfg.Levels))
	for l := range inits {
		inits[l] = init
	}
	return sampleLadderFrom(cfg, inits, plan, label)
}

// sampleLadderFrom is sampleLadder with an initial state per level.
func sampleLadderFrom(cfg exchange.Config, inits [][]float64, plan exchange.Plan, label string) (ladderRun, error) {
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return ladderRun{}, err
	}
	defer smp.Close()
	plan.Progress = newProgress(label, plan.Steps()).callback()
	start := time.Now()
	tr, runErr := exchange.Collect(smp, plan)
	return ladderRun{Stats: smp.Stats(), Trace: tr, Wall: time.Since(start), Err: runErr}, nil
}
