package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/plan"
)

// gmmAutoRefused are gmm's flags that the plan sets itself or that
// describe the paper's noisy estimators, which the plan does not use.
var gmmAutoRefused = append([]string{"eta", "tau1", "variance", "repeats", "period", "decay-gamma", "decay-b", "concurrent"}, gmmLadderFlags...)

// runGMMAuto samples the paper's mixture with the plan (plan.NewChainPlan)
// on its exact energy: the mode search finds both modes and the barrier
// between them, and the plan runs a ladder of Metropolis-adjusted levels
// over it. The run is reported as the paper's methods are.
func runGMMAuto(cmd *cobra.Command, f *gmmFlags) error {
	var set []string
	for _, name := range gmmAutoRefused {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			set = append(set, "--"+name)
		}
	}
	if len(set) > 0 {
		return fmt.Errorf("--method auto plans its own sampler on the mixture's exact energy, so it would ignore %s: drop them, or give one of the paper's methods (fresgld, mresgld, resgld, sgld)", strings.Join(set, ", "))
	}
	if !cmd.Flags().Changed("keep") {
		f.Keep = plan.PlanKeep
	}
	if err := firstError(checkChainCount(f.chainFlags), checkChainFlag(cmd.Flags(), f.chainFlags), runSize(max(f.Burn, 0), f.Keep, max(f.Thin, 1), 1)); err != nil {
		return err
	}
	mix := models.PaperMixture()
	plan, note, err := plan.NewChainPlan(plan.Model{Terms: modes.EnergyTerms(mix), Names: []string{"theta1"}}, f.Seed, false)
	if err != nil {
		return err
	}
	burn, thin, _ := plan.RunLength(f.Keep)
	if !cmd.Flags().Changed("burn") {
		f.Burn = burn
	}
	if !cmd.Flags().Changed("thin") {
		f.Thin = thin
	}
	f.Tau1, f.Eta = 1, plan.Step()
	fmt.Println("sampler:", plan.Note())
	fmt.Println("note:", note)
	ids, _ := f.chainFlags.ids()
	ctx, stop := interrupt.Context(cmd.Context())
	defer stop()
	run, err := f.chainRun(cmd, func(id int) (*exchange.Sampler, error) { return plan.Sampler(f.Seed, id) }, mix)
	if err != nil {
		return err
	}
	run.Header.Algorithm = plan.Algorithm()
	res, err := analysis.Sample(ctx, run, ids)
	stop()
	if err != nil {
		return err
	}
	return f.report(cmd, res, mix, map[int]exchange.Config{}, map[int]*exchange.Adapted{})
}
