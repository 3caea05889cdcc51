package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/swaps"
)

// swapsFlags are the settings of the swap-energy study.
type swapsFlags struct {
	minibatchRuns
	TuneSeeds      int
	out            outFlags
	Problems       string
	Points, Levels int
	AnchorScale    int
	Max            float64
}

func init() {
	f := &swapsFlags{}
	cmd := studyCommand("swaps", "Minibatch replica exchange with sound swap energies: tuning, comparison, swap noise", help("reproduce-swaps"), func(cmd *cobra.Command) error { return runSwaps(cmd, f) })
	fl := cmd.Flags()
	f.minibatchRuns.bind(fl, "comparison seeds per arm")
	fl.IntVar(&f.TuneSeeds, "tune-seeds", 3, "tuning seeds per method and mode")
	fl.StringVar(&f.Problems, "problems", "welling-teh,breast-cancer", "comma-separated problems")
	fl.IntVar(&f.Points, "points", minibatch.Full.Points, "budget points")
	fl.Float64Var(&f.Max, "max", minibatch.Full.Max, "largest budget, in multiples of the burn-in cost")
	fl.IntVar(&f.Levels, "levels", 2, "temperature levels, geometric from τ1 to τ2 (swaps pooled over pairs)")
	fl.IntVar(&f.AnchorScale, "anchor-scale", 1, "anchor period in multiples of m = ⌈8N/n_cold⌉ (results *-anchors<k>)")
	f.out.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}

func runSwaps(cmd *cobra.Command, f *swapsFlags) error {
	if f.Levels < 2 {
		return fmt.Errorf("--levels = %d: need at least 2", f.Levels)
	}
	if f.AnchorScale < 1 {
		return fmt.Errorf("--anchor-scale = %d: must be ≥ 1", f.AnchorScale)
	}
	if f.Seeds < 2 || f.TuneSeeds < 1 {
		return fmt.Errorf("--seeds = %d, --tune-seeds = %d: need at least 2 and 1", f.Seeds, f.TuneSeeds)
	}
	if f.Points < 2 || !(f.Max > 3) {
		return fmt.Errorf("--points = %d, --max = %v: need at least 2 points and a largest budget above 3× the burn-in", f.Points, f.Max)
	}
	sz := minibatch.Size{Points: f.Points, Max: f.Max}
	if f.Smoke {
		sz = minibatch.Smoke
	}
	// Every problem name is checked before the first problem runs.
	problems := strings.Split(f.Problems, ",")
	for k, name := range problems {
		problems[k] = strings.TrimSpace(name)
		if _, ok := swaps.ProblemN(problems[k]); !ok && problems[k] != "welling-teh" && problems[k] != "breast-cancer" {
			return fmt.Errorf("--problems: unknown problem %q (want welling-teh, welling-teh-N with N ≥ 20, or breast-cancer)", name)
		}
	}
	results, err := f.out.results(cmd, "swaps", "problems", "levels")
	if err != nil {
		return err
	}
	return swaps.Reproduce(swaps.ReproduceOptions{
		Problems: problems, Size: sz, Levels: f.Levels, AnchorScale: f.AnchorScale, Seeds: f.Seeds, TuneSeeds: f.TuneSeeds, Workers: f.Workers,
		Results:   results,
		Reference: minibatch.ReferenceSource{Path: f.Reference, Steps: 1000000, Dir: results, Command: refCommand},
		Progress:  progressFunc, Out: os.Stdout, Log: os.Stderr,
	})
}
