// Command mixstep runs the tempering study's galaxies mixture under
// f-reSGLD on the adaptive ladder (fresgld mixture --method fresgld
// --levels auto) at a chosen step size and hot minibatch, and prints each
// probability of k clusters against the exact Gibbs reference, in MCSEs.
// It tells the discretisation of the Langevin levels (a bias that shrinks
// with the step η) from the hot levels' gradient noise (one that goes with
// a full hot batch).
//
//	go run ./bench/mixstep                      # the automatic η and hot batch
//	go run ./bench/mixstep -hot-batch 82        # every level on the whole data set
//	go run ./bench/mixstep -eta 2.386e-5 -keep 5000   # a quarter of seed 1's automatic η
//	go run ./bench/mixstep -seed 2 -seeds 4     # seeds 2–5, each, then pooled
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/tempering"
	"github.com/fresgld/fresgld/results"
)

func main() {
	eta := flag.Float64("eta", 0, "the step η (0: automatic, 0.2/λ_max at the heaviest mode the search finds)")
	hot := flag.Int("hot-batch", 0, "the hot levels' minibatch (0: automatic)")
	burn := flag.Int("burn", 50_000, "burn-in steps (the ladder's tuning takes as many before them)")
	thin := flag.Int("thin", 544, "steps between draws")
	keep := flag.Int("keep", 2500, "draws a chain (4 chains)")
	seed := flag.Uint64("seed", 1, "random seed (the first, with -seeds)")
	seeds := flag.Int("seeds", 1, "runs, at seeds seed, seed+1, …; more than one adds their pooled table")
	flag.Parse()
	benchmain.Check("mixstep", runSeeds(*eta, *hot, *burn, *thin, *keep, *seed, *seeds))
}

// runSeeds runs each seed and, for more than one, pools them: the mean of
// the runs' probabilities, whose MCSE is √(Σ MCSE²)/S (independent runs).
func runSeeds(eta float64, hot, burn, thin, keep int, seed uint64, seeds int) error {
	if seeds < 1 {
		return fmt.Errorf("-seeds %d: want at least 1", seeds)
	}
	w, err := tempering.Galaxies("galaxies-mixture-k4", 4, 1)
	if err != nil {
		return err
	}
	mean, vars := make([]float64, len(w.Names)), make([]float64, len(w.Names))
	for s := range seeds {
		m, se, err := run(w, eta, hot, burn, thin, keep, seed+uint64(s))
		if err != nil {
			return err
		}
		for j := range m {
			mean[j] += m[j] / float64(seeds)
			vars[j] += se[j] * se[j] / float64(seeds*seeds)
		}
	}
	if seeds == 1 {
		return nil
	}
	fmt.Printf("%s, seeds %d–%d pooled (mean of the runs, MCSE √(Σ MCSE²)/%d):\n", w.Name, seed, seed+uint64(seeds)-1, seeds)
	fmt.Printf("%-14s %8s %8s %9s %8s\n", "quantity", "pooled", "mcse", "reference", "diff/mcse")
	for j, name := range w.Names {
		if vars[j] == 0 && mean[j] == w.Ref[j] {
			fmt.Printf("%-14s %8.4f %8s %9.4f %8s\n", name, mean[j], "—", w.Ref[j], "equal")
			continue
		}
		se := math.Sqrt(vars[j])
		fmt.Printf("%-14s %8.4f %8.4f %9.4f %8.1f\n", name, mean[j], se, w.Ref[j], (mean[j]-w.Ref[j])/se)
	}
	return nil
}

// run runs one seed and prints its table; it returns each quantity's
// mean and MCSE (0 for a column that never moves).
func run(w *tempering.Workload, eta float64, hot, burn, thin, keep int, seed uint64) (mean, mcse []float64, err error) {
	dir, err := os.MkdirTemp("", "mixstep-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	o := analysis.DefaultOptions()
	o.Method, o.Levels = exchange.FReSGLDMethod, analysis.AutoLevels
	o.Eta, o.HotBatch, o.Burn, o.Thin, o.Keep, o.Seed, o.Out, o.CheckpointEvery = eta, hot, burn, thin, keep, seed, dir, 0
	res, err := analysis.Run(context.Background(), w.Model, o)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		return nil, nil, err
	}
	fmt.Printf("%s, seed %d: η = %.4g, cold batch %d, hot batch %s, %d levels, %d steps a chain\n", w.Name, seed, res.Options.Eta, res.Options.Batch, batch(hot), len(res.Chains[0].Ladder.Levels), res.Options.Burn+keep*thin)
	fmt.Printf("%-14s %8s %8s %9s %8s\n", "quantity", "run", "mcse", "reference", "diff/mcse")
	mean, mcse = make([]float64, len(w.Names)), make([]float64, len(w.Names))
	for j, name := range w.Names {
		i := slices.IndexFunc(res.Summary.Parameters, func(p results.ParamRow) bool { return p.Name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("no column %s in the summary", name)
		}
		p := res.Summary.Parameters[i]
		mean[j] = p.Mean
		if p.SD == 0 && p.Mean == w.Ref[j] {
			// A column that never moves has no MCSE (NaN, as R's posterior
			// gives NA); it is scored by equality.
			fmt.Printf("%-14s %8.4f %8s %9.4f %8s\n", name, p.Mean, "—", w.Ref[j], "equal")
			continue
		}
		mcse[j] = p.MCSEMean
		fmt.Printf("%-14s %8.4f %8.4f %9.4f %8.1f\n", name, p.Mean, p.MCSEMean, w.Ref[j], (p.Mean-w.Ref[j])/p.MCSEMean)
	}
	return mean, mcse, nil
}

func batch(n int) string {
	if n == 0 {
		return "automatic"
	}
	return fmt.Sprint(n)
}
