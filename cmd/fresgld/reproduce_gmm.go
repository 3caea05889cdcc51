package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/convex"
	"github.com/fresgld/fresgld/experiments/gmm"
	"github.com/fresgld/fresgld/experiments/study"
)

// studyFlags are the options shared by the mixture and convex studies.
type studyFlags struct {
	seeds, workers int
	smoke          bool
	outFlags
}

func (f *studyFlags) bind(c *cobra.Command) {
	c.Flags().IntVar(&f.seeds, "seeds", 20, "independent runs per method and size")
	c.Flags().IntVar(&f.workers, "workers", 2, "runs in parallel (results do not depend on it)")
	c.Flags().BoolVar(&f.smoke, "smoke", false, "tiny sizes and 2 seeds: checks the pipeline in seconds")
	f.outFlags.bind(c)
}

// prepare checks the output directories before any work and clears an
// earlier run's outputs (names) from them.
func (f *studyFlags) prepare(c *cobra.Command, results, figures []string) (res, fig string, err error) {
	if f.seeds < 1 {
		return "", "", fmt.Errorf("--seeds = %d: need at least 1", f.seeds)
	}
	if f.workers < 1 {
		return "", "", fmt.Errorf("--workers = %d: need at least 1", f.workers)
	}
	if res, fig, err = f.dirs(c, ""); err != nil {
		return "", "", err
	}
	if err := prepareBoth(res, results, fig, figures); err != nil {
		return "", "", err
	}
	return res, fig, nil
}

// smokeSizes are short versions of the three sizes for CI.
var smokeSizes = []study.Size{
	{Name: "paper", Burn: 200, Thin: 1, Keep: 300},
	{Name: "long", Burn: 200, Thin: 2, Keep: 400},
	{Name: "equal-cost", Burn: 200, Thin: 1, Budget: 4000},
}

func gmmCommand(use, short string, stateNoise bool) *cobra.Command {
	var f studyFlags
	c := studyCommand(use, short, "", func(cmd *cobra.Command) error {
		res, fig, err := f.prepare(cmd, []string{use + ".csv", use + ".json", use + ".md"},
			[]string{use + "-paper.png", use + "-paper.svg", use + "-long.png", use + "-long.svg"})
		if err != nil {
			return err
		}
		g := gmm.GMM{Name: use, StateNoise: stateNoise, Seeds: f.seeds, Workers: f.workers, Var: study.DefaultVar, Bins: 48,
			Sizes: []study.Size{gmm.PaperSize, gmm.LongSize, gmm.EqualSize}, Progress: progressFunc}
		if f.smoke {
			g.Seeds, g.Sizes = min(f.seeds, 2), smokeSizes
		}
		return printStudy(cmd, g.Run, func(r gmm.Result) (string, error) { return g.Write(r, res, fig) })
	})
	f.bind(c)
	return c
}

func init() {
	reproduceCmd.AddCommand(
		gmmCommand("gmm", "Gaussian mixture with fixed noise (paper §5.1, Figure 1), every method over many seeds", false),
		gmmCommand("gmm-statevar", "Gaussian mixture with state-dependent noise (paper §5.1, Figure 2), every method over many seeds", true),
	)
}

func convexCommand() *cobra.Command {
	var f studyFlags
	var time float64
	c := studyCommand("convex", "Gaussian target with gradient noise: W2 of the cold chain's law against η (paper Theorem 4.2)", "", func(cmd *cobra.Command) error {
		if !(time > 0) || math.IsInf(time, 0) {
			return fmt.Errorf("--time = %v: must be positive and finite", time)
		}
		res, fig, err := f.prepare(cmd, []string{"convex.csv", "convex.json", "convex.md"}, []string{"convex-w2.png", "convex-w2.svg"})
		if err != nil {
			return err
		}
		cv := convex.Convex{Etas: convex.DefaultEtas, Seeds: f.seeds, Time: time, Workers: f.workers, Var: study.DefaultVar, Progress: progressFunc}
		if f.smoke {
			cv.Etas, cv.Seeds, cv.Time = []float64{0.4, 0.2}, min(f.seeds, 2), 50
		}
		return printStudy(cmd, cv.Run, func(r convex.ConvexResult) (string, error) { return cv.Write(r, res, fig) })
	})
	f.bind(c)
	c.Flags().Float64Var(&time, "time", 10000, "continuous time η·steps retained per seed")
	return c
}

func init() { reproduceCmd.AddCommand(convexCommand()) }
