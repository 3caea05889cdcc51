// Package sampling carries out one run of a sampling command of fresgld
// (sample, regress, logistic, mixture; gmm reports through it): the model
// and options the command built from its flags are run, the run's
// headline, notes and swaps and the command's own results printed, and the
// outputs and the report written.
package sampling

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// Run is one run of a sampling command, as Do carries it out: the model
// and options the command built from its flags, and the command's own part
// of the output.
type Run struct {
	Model   plan.Model
	Options analysis.Options
	// Ctx and Stop, when set, are the command's own interruptible
	// context, made before it built the model (sample --stan's compile
	// stops on a signal); else Do makes one.
	Ctx  context.Context
	Stop func()
	// Ran, when set, is what the run's error (nil or not) becomes: sample
	// --stan names the model's own failure before the sampler's.
	Ran func(error) error
	// Headline takes the run's result, before anything is printed (the
	// values the run chose, the command's warnings), and is the line
	// printed above the run's table.
	Headline func(*analysis.Result) string
	// Summary, after the run's notes are printed, prints the command's
	// own results (its tables) and is summary.json's value.
	Summary func(*analysis.Result) any
}

// Do runs the model within parent, prints the run's headline, notes and
// swaps and the command's results, and writes the outputs and the report,
// its warnings on stderr.
func (s Run) Do(parent context.Context, stderr io.Writer) error {
	ctx, stop := s.Ctx, s.Stop
	if ctx == nil {
		// From here on SIGINT and SIGTERM stop the work (the pilots,
		// sampling) within a step, keeping every draw taken.
		ctx, stop = interrupt.Context(parent)
		defer stop()
	}
	res, err := analysis.Run(ctx, s.Model, s.Options)
	// The chain files are closed and the summary files are written whole
	// or not at all: from here a signal ends the process at once.
	stop()
	if s.Ran != nil {
		err = s.Ran(err)
	}
	if err != nil {
		return err
	}
	fmt.Println(s.Headline(res))
	printLines(res.Notes)
	printLines(res.SwapLines)
	return Report(stderr, res, s.Summary(res))
}

// Result is the end of every sampling command's summary.json: the swaps,
// the ladder's tuning and the run's summary.
type Result struct {
	analysis.SwapSummary
	// LadderTuning is the ladder's tuning under --levels auto.
	LadderTuning *exchange.Adapted `json:"ladder_tuning,omitempty"`
	results.Summary
}

// ResultOf is the Result of the run res.
func ResultOf(res *analysis.Result) Result {
	r := Result{LadderTuning: res.Tuning, Summary: res.Summary}
	if res.Swap != nil {
		r.SwapSummary = *res.Swap
	}
	return r
}

// Report prints a run's table (stdout) and warnings (stderr), writes its
// summary files (summary.json holds full) and then removes its
// checkpoints: nothing is left to resume.
func Report(stderr io.Writer, res *analysis.Result, full any) error {
	if err := results.Report(os.Stdout, stderr, res.Dir(), res.Chains, &res.Summary, full, res.Err); err != nil {
		// An interrupted or stopped chain keeps its checkpoint.
		if c := res.ResumeCommand(); c != "" {
			err = errors.Join(err, fmt.Errorf("the chains' states are checkpointed: continue the run with `%s`", c))
		}
		return err
	}
	return res.Finished()
}

// printLines prints each line on stdout.
func printLines(lines []string) {
	for _, l := range lines {
		fmt.Println(l)
	}
}
