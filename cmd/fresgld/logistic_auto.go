package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
)

// autoMethod is logistic's default --method: the plan of a log-concave
// posterior (analysis.LogConcave), one chain per --chains, no ladder.
const autoMethod = "auto"

// autoRefused are the flags --method auto chooses itself or has no use
// for: the ladder's, and the step, minibatch and correction of the
// minibatch methods.
var autoRefused = append([]string{"eta", "batch", "correction"}, ladderOnlyFlags...)

// checkAuto refuses, under --method auto, flags the plan would ignore.
func checkAuto(cmd *cobra.Command) error {
	var set []string
	for _, name := range autoRefused {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed && fl.Value.String() != "auto" {
			set = append(set, "--"+name+" "+fl.Value.String())
		}
	}
	if len(set) == 0 {
		return nil
	}
	return fmt.Errorf("--method auto (the default) chooses its own sampler, step and gradients for this log-concave posterior and runs no ladder, so it would ignore %s: drop them, or give a --method that takes them (sgld, corrected, resgld, mresgld, fresgld)", strings.Join(set, ", "))
}

// runLogisticAuto samples with the plan of analysis.NewLogConcave: its
// rule's choice of gradients (full-data MALA or control variates about
// the mode), preconditioned by the Hessian at the mode, overdispersed
// starts and its run length (--burn and --thin, when given, override it).
func runLogisticAuto(cmd *cobra.Command, f *logisticFlags, lr *models.Logistic, d *dataset.Data, x []float64, names []string, ids []int, sum logisticSummary) error {
	p := lr.Dim()
	plan, err := analysis.NewLogConcave(lr, f.Seed)
	if err != nil {
		return fmt.Errorf("default sampler: %w (give a --method and --eta)", err)
	}
	if !cmd.Flags().Changed("keep") {
		f.Keep = analysis.PlanKeep
	}
	burn, thin, iat := plan.RunLength(f.Keep)
	sum.StepRuleNotes = plan.Note()
	sum.RunRule = fmt.Sprintf("in the coordinates where the Hessian at the mode is I: ρ = 1 − %.4g, τ_int = %.4g steps, starts within %.3g posterior sds of the mode: burn %d, thin %d for bulk ESS ≈ %d per chain", plan.Rate(), iat, plan.StartDistance(), burn, thin, analysis.PlanESS)
	if f.BurnAuto {
		f.Burn = burn
	}
	if f.ThinAuto {
		f.Thin = thin
	}
	f.Eta, f.Batch = plan.Eta, plan.Choice.Batch
	if err := f.runSize(p); err != nil {
		return err
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	settings, err := settingsOf(f)
	if err != nil {
		return err
	}
	settings = append(settings, [2]string{"sampler", plan.Note()})
	if d.Means != nil {
		settings = append(settings, standardisationSettings(d.Means, d.SDs)...)
	}
	out, err := output.Prepare(f.Out, chainStale(f.Out, ids, f.Chain > 0)...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	run := chainRun{
		Header:     chainHeader{Command: "logistic", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      names,
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        func(id int) (*exchange.Sampler, error) { return plan.Sampler(f.Seed, id) },
		LogDensity: logDensity(lr, f.Seed),
		Dir:        out,
		Ctx:        ctx,
		Label:      "logistic",
		Every:      f.Every,
		Args:       runArgs(cmd),
		Cwd:        workingDir(),
	}
	chains, wall, writeErr := run.run(ids)
	stop()
	if chains == nil {
		return writeErr
	}
	sum.WallSeconds = wall.Seconds()
	var extra []string
	featureSD := sampledScales(x, d.N, p)
	for _, c := range chains {
		tr := c.trace(names)
		if tr.Len() == 0 {
			continue
		}
		mean, sd := traceMoments(tr)
		// In φ every direction relaxes at the slowest one's rate: the
		// stuck-chain check reads the step as Rate at λ_min = 1.
		ff := *f
		ff.Eta = plan.Rate()
		w := logisticChecks{flags: &ff, stats: c.Ladder, trace: tr, names: names, mean: mean, sd: sd, lmin: 1, featureSD: featureSD, n: d.N}
		for _, msg := range w.warnings() {
			extra = append(extra, fmt.Sprintf("chain %d: %s", c.Header.ID, msg))
		}
	}
	fmt.Printf("logistic on %s (%d examples, %d coefficients), %d chain(s) in %.1fs:\n", f.Data, d.N, p, len(ids), sum.WallSeconds)
	fmt.Println("sampler:", plan.Note())
	fmt.Println("note:", analysis.SingleChainNote)
	if err := finishChains(cmd.ErrOrStderr(), out, chains, &sum.chainsSummary, &sum, writeErr, extra); err != nil {
		return err
	}
	return run.finished(ids)
}
