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
	return sampleLadderFrom(cfg, inits, plan, label, nil)
}

// sampleLadderFrom is sampleLadder with an initial state per level and a
// sink (nil: none) that sees the ladder after every step as well.
func sampleLadderFrom(cfg exchange.Config, inits [][]float64, plan exchange.Plan, label string, sink exchange.Sink) (ladderRun, error) {
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return ladderRun{}, err
	}
	defer smp.Close()
	plan.Progress = newProgress(label, plan.Steps()).callback()
	start := time.Now()
	if sink == nil {
		tr, runErr := exchange.Collect(smp, plan)
		return ladderRun{Stats: smp.Stats(), Trace: tr, Wall: time.Since(start), Err: runErr}, nil
	}
	c := &exchange.Collector{Plan: plan, Trace: exchange.Trace{P: smp.Dim()}}
	runErr := exchange.Run(smp, plan, exchange.SinkFunc(func(step int, s *exchange.Sampler) error {
		c.Observe(step, s)
		return sink.Observe(step, s)
	}))
	return ladderRun{Stats: smp.Stats(), Trace: c.Trace, Wall: time.Since(start), Err: runErr}, nil
}
