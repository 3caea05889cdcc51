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
	cmd := &cobra.Command{
		Use:   "swaps",
		Short: "Minibatch replica exchange with sound swap energies: tuning, comparison, swap noise",
		Long: `swaps reruns the minibatch study with swap energies whose variance does not
come from the draw it corrects (exchange.Energies). For each problem it first
runs a tuning study (seeds 1001.., every exchange method under every
swap-energy mode: draw, minibatch, cv, pair, pair-cv, exact, taylor,
pair-taylor) and picks each
method's mode by its final accuracy there; then it compares SGLD, reSGLD,
m-reSGLD and f-reSGLD under their chosen modes (and f-reSGLD under the earlier
same-draw energies) on seeds 1..--seeds. Cost counts gradients, swap energies
and anchor passes. It reports swap acceptance, swap noise τδ²V/2, and the
fraction of accepted swaps whose exact min(1, S) is below 0.01 beside the
fraction min(1, S) itself predicts.

Problems: welling-teh (N = 100, TV against the exact posterior),
welling-teh-N for any N (the same generative model; mode-weight error),
breast-cancer (against the cached MALA reference). Writes <problem>.md and
<problem>.json under --out; --docs writes them into docs/results/swaps
instead (full size only).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSwaps(cmd, f) },
	}
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
