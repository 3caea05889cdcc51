package main

import (
	"fmt"

	"github.com/spf13/cobra"

	heatstudy "github.com/fresgld/fresgld/experiments/heat"
	"github.com/fresgld/fresgld/models/heat"
)

func init() {
	f := &heatstudy.Settings{}
	var o outFlags
	cmd := studyCommand("heat", "Inverse heat equation (§5.2): s-, f- and l-reSGLD against the exact posterior", help("reproduce-heat"), func(cmd *cobra.Command) error {
		if err := f.Validate(); err != nil {
			return err
		}
		var err error
		if f.Results, f.Figures, err = o.dirs(cmd, ""); err != nil {
			return err
		}
		early, keep := fmt.Sprintf("heat-%d", f.Early), fmt.Sprintf("heat-%d", f.Keep)
		if err := prepareBoth(f.Results, []string{"heat-fidelity.md", "heat-table.md", "heat-runs.csv"}, f.Figures, []string{early + ".png", early + ".svg", keep + ".png", keep + ".svg"}); err != nil {
			return err
		}
		return heatstudy.Run(f, progressFunc)
	})
	fl := cmd.Flags()
	fl.IntVar(&f.Seeds, "seeds", 10, "number of seeds (1, 2, ...) per method")
	fl.IntVar(&f.Keep, "keep", 48000, "cold-chain samples recorded per run (one per step after burn-in)")
	fl.IntVar(&f.Early, "early", 12000, "also measure and plot the first this many samples")
	fl.IntVar(&f.Burn, "burn", 1000, "steps discarded before recording")
	fl.Float64Var(&f.Eta, "eta", 1e-5, "step size η")
	fl.Float64Var(&f.Tau1, "tau1", 0.08, "cold temperature τ1")
	fl.Float64Var(&f.Tau2, "tau2", 0.5, "hot temperature τ2")
	fl.IntVar(&f.FineN, "fine-n", heat.Fine.N, "fine solver: interior nodes per side")
	fl.IntVar(&f.FineSteps, "fine-steps", heat.Fine.Steps, "fine solver: time steps")
	fl.IntVar(&f.CoarseN, "coarse-n", heat.Coarse.N, "coarse solver: interior nodes per side")
	fl.IntVar(&f.CoarseSteps, "coarse-steps", heat.Coarse.Steps, "coarse solver: time steps")
	fl.StringVar(&f.Variance, "variance", "known", "f-reSGLD's variance: known (injected) or running (§5.1, 10 draws/100 steps)")
	fl.IntVar(&f.Grid, "grid", 2400, "exact posterior: cells per side (a multiple of 50)")
	fl.IntVar(&f.MaxPoints, "max-points", 3000, "most samples drawn a panel (evenly thinned), to keep the SVG small")
	fl.IntVar(&f.ErrorGrid, "error-grid", 100, "fidelity table: cells a side whose centres give the largest error")
	o.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}
