package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// sampling is one run of a sampling command (sample, regress, logistic,
// mixture), as runSampling carries it out: the model and options the
// command built from its flags, and the command's own part of the output.
type sampling struct {
	model   plan.Model
	options analysis.Options
	// ctx and stop, when set, are the command's own interruptible
	// context, made before it built the model (sample --stan's compile
	// stops on a signal); else runSampling makes one.
	ctx  context.Context
	stop func()
	// ran, when set, is what the run's error (nil or not) becomes: sample
	// --stan names the model's own failure before the sampler's.
	ran func(error) error
	// headline takes the run's result, before anything is printed (the
	// values the run chose, the command's warnings), and is the line
	// printed above the run's table.
	headline func(*analysis.Result) string
	// summary, after the run's notes are printed, prints the command's
	// own results (its tables) and is summary.json's value.
	summary func(*analysis.Result) any
}

// runSampling runs the model, prints the run's headline, notes and swaps
// and the command's results, and writes the outputs and the report.
func runSampling(cmd *cobra.Command, s sampling) error {
	ctx, stop := s.ctx, s.stop
	if ctx == nil {
		// From here on SIGINT and SIGTERM stop the work (the pilots,
		// sampling) within a step, keeping every draw taken.
		ctx, stop = interrupt.Context(cmd.Context())
		defer stop()
	}
	res, err := analysis.Run(ctx, s.model, s.options)
	// The chain files are closed and the summary files are written whole
	// or not at all: from here a signal ends the process at once.
	stop()
	if s.ran != nil {
		err = s.ran(err)
	}
	if err != nil {
		return err
	}
	fmt.Println(s.headline(res))
	printLines(res.Notes)
	printLines(res.SwapLines)
	return report(cmd, res, s.summary(res))
}

// runResult is the end of every sampling command's summary.json: the
// swaps, the ladder's tuning and the run's summary.
type runResult struct {
	analysis.SwapSummary
	// LadderTuning is the ladder's tuning under --levels auto.
	LadderTuning *exchange.Adapted `json:"ladder_tuning,omitempty"`
	results.Summary
}

func resultOf(res *analysis.Result) runResult {
	r := runResult{LadderTuning: res.Tuning, Summary: res.Summary}
	if res.Swap != nil {
		r.SwapSummary = *res.Swap
	}
	return r
}

// runName names a run in its headline: the method, or the command under
// --method auto.
func runName(cmd *cobra.Command, m exchange.Method) string {
	if m == analysis.AutoMethod {
		return cmd.Name()
	}
	return string(m)
}

// settingsLines are the chains' CSV settings lines of the flags struct f
// (settingsOf) and the swap energies the run used.
func settingsLines(f any, o analysis.Options) [][2]string {
	s, _ := settingsOf(f)
	if mode := o.SwapMode(); mode != "" {
		s = append(s, [2]string{"swap_energies_used", mode})
	}
	return s
}

// addCommand adds `fresgld name` to fresgld: a command of no arguments,
// run by run, whose long help is help/name.txt.
func addCommand(name, short string, run func(*cobra.Command) error) *cobra.Command {
	cmd := &cobra.Command{Use: name, Short: short, Long: help(name), Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) }}
	rootCmd.AddCommand(cmd)
	return cmd
}
