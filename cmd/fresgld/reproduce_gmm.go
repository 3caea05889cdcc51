package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/convex"
	"github.com/fresgld/fresgld/experiments/gmm"
	"github.com/fresgld/fresgld/experiments/study"
)

// studyFlags are the options shared by the reproduction studies.
type studyFlags struct {
	seeds, workers int
	out            string
	smoke          bool
}

func (f *studyFlags) bind(c *cobra.Command) {
	c.Flags().IntVar(&f.seeds, "seeds", 20, "independent runs per method and size")
	c.Flags().IntVar(&f.workers, "workers", 2, "runs in parallel (results do not depend on it)")
	c.Flags().StringVar(&f.out, "out", ".", "directory under which docs/results and docs/figures are written")
	c.Flags().BoolVar(&f.smoke, "smoke", false, "tiny sizes and 2 seeds: checks the pipeline in seconds")
}

// smokeSizes are short versions of the three sizes for CI.
var smokeSizes = []study.Size{
	{Name: "paper", Burn: 200, Thin: 1, Keep: 300},
	{Name: "long", Burn: 200, Thin: 2, Keep: 400},
	{Name: "equal-cost", Burn: 200, Thin: 1, Budget: 4000},
}

func gmmCommand(use, short string, stateNoise bool) *cobra.Command {
	var f studyFlags
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			g := gmm.GMM{Name: use, StateNoise: stateNoise, Seeds: f.seeds, Workers: f.workers, Var: study.DefaultVar, Bins: 48,
				Sizes: []study.Size{gmm.PaperSize, gmm.LongSize, gmm.EqualSize}}
			if f.smoke {
				g.Seeds, g.Sizes = min(f.seeds, 2), smokeSizes
			}
			res, err := g.Run(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			md, err := g.Write(res, f.out)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), md)
			return nil
		},
	}
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
	c := &cobra.Command{
		Use:   "convex",
		Short: "Gaussian target with gradient noise: W2 of the cold chain's law against η (paper Theorem 4.2)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !(time > 0) || math.IsInf(time, 0) {
				return fmt.Errorf("--time = %v: must be positive and finite", time)
			}
			cv := convex.Convex{Etas: convex.DefaultEtas, Seeds: f.seeds, Time: time, Workers: f.workers, Var: study.DefaultVar}
			if f.smoke {
				cv.Etas, cv.Seeds, cv.Time = []float64{0.4, 0.2}, min(f.seeds, 2), 50
			}
			res, err := cv.Run(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			md, err := cv.Write(res, f.out)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), md)
			return nil
		},
	}
	f.bind(c)
	c.Flags().Float64Var(&time, "time", 10000, "continuous time η·steps retained per seed")
	return c
}

func init() { reproduceCmd.AddCommand(convexCommand()) }
