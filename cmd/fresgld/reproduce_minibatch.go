package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/output"
)

// minibatchFlags are the settings of the minibatch study.
type minibatchFlags struct {
	Seeds, Workers     int
	Results, Figures   string // set from the output flags
	Reference          string
	ReferenceSteps     int
	RecomputeReference bool
	ReferenceOnly      bool
	Smoke              bool
	Problems           string
	Correction         string
}

// refCommand is the command that regenerates the cached reference.
const refCommand = "fresgld reproduce minibatch --reference-only --recompute-reference --docs"

// refFile is the name of the cached reference in the tables' directory.
const refFile = minibatch.RefFile

func init() {
	f := &minibatchFlags{}
	var o outFlags
	cmd := &cobra.Command{
		Use:   "minibatch",
		Short: "Cost against accuracy of SGLD, reSGLD, m-reSGLD and f-reSGLD on minibatch posteriors",
		Long: help("reproduce-minibatch") + refFile + `). --correction full, for fresgld and corrected-sgld,
names the outputs <problem>-full.md, summary-full.json and
minibatch-<problem>-full-<metric>.png.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if f.Results, f.Figures, err = o.dirs(cmd, "minibatch"); err != nil {
				return err
			}
			return runMinibatch(f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.Seeds, "seeds", 10, "seeds per method")
	fl.IntVar(&f.Workers, "workers", 2, "runs in parallel (results do not depend on it)")
	fl.StringVar(&f.Reference, "reference", "docs/results/minibatch/"+refFile, "cached MALA reference")
	fl.IntVar(&f.ReferenceSteps, "reference-steps", 1000000, "MALA steps after burn-in for the reference")
	fl.BoolVar(&f.RecomputeReference, "recompute-reference", false, "recompute the MALA reference even if cached")
	fl.BoolVar(&f.ReferenceOnly, "reference-only", false, "compute or load the MALA reference, print its summary and stop")
	fl.BoolVar(&f.Smoke, "smoke", false, "a seconds-long run at a tiny size (for tests)")
	fl.StringVar(&f.Problems, "problems", "welling-teh,breast-cancer", "comma-separated problems to run")
	fl.StringVar(&f.Correction, "correction", "diagonal", "noise correction: diagonal (the study's) or full (outputs *-full*)")
	o.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}

func runMinibatch(f *minibatchFlags) error {
	if f.Seeds < 2 {
		return fmt.Errorf("--seeds = %d: need at least 2 for a standard error", f.Seeds)
	}
	if f.Workers < 1 {
		return fmt.Errorf("--workers = %d: need at least 1", f.Workers)
	}
	if f.ReferenceSteps < 1000 && f.RecomputeReference {
		return fmt.Errorf("--reference-steps = %d: need at least 1000", f.ReferenceSteps)
	}
	problems := strings.Split(f.Problems, ",")
	for k, name := range problems {
		problems[k] = strings.TrimSpace(name)
		if n := problems[k]; n != "welling-teh" && n != "breast-cancer" {
			return fmt.Errorf("--problems: unknown problem %q (want welling-teh or breast-cancer)", name)
		}
	}
	corr, err := exchange.ParseCorrection(f.Correction)
	if err != nil {
		return fmt.Errorf("--correction: %w", err)
	}
	refs := minibatch.ReferenceSource{Path: f.Reference, Recompute: f.RecomputeReference, Steps: f.ReferenceSteps, Dir: f.Results, Command: refCommand}
	if f.ReferenceOnly {
		ref, err := refs.Load(os.Stderr)
		if err != nil {
			return fmt.Errorf("--reference: %w", err)
		}
		fmt.Printf("MALA reference of the breast-cancer posterior (%s):\n%d burn-in steps (step adapted), then %d steps at h = %.4g (preconditioned), every %d-th kept; acceptance %.3f; %d full-data evaluations of U and ∇U; %.0f s.\nMonte Carlo error (batch means, %d batches): min ESS over coordinates %.0f; max se/sd of the means %.4f; max se/sd of the sds %.4f.\n",
			f.Reference, ref.Burn, ref.Steps, ref.Step, ref.Thin, ref.Accept, ref.FullEvals, ref.Wall, ref.Batches, ref.MinESS, ref.MaxMeanSEOverSD, ref.MaxSDSEOverSD)
		return nil
	}
	sz := minibatch.Full
	if f.Smoke {
		sz = minibatch.Smoke
	}
	outs, figs := minibatch.Outputs(corr)
	if _, err := output.Prepare(f.Results, outs...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if _, err := output.Prepare(f.Figures, figs...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return minibatch.Reproduce(minibatch.ReproduceOptions{
		Problems: problems, Size: sz, Correction: corr, Seeds: f.Seeds, Workers: f.Workers,
		Results: f.Results, Figures: f.Figures, Reference: refs,
		Progress: progressFunc, Out: os.Stdout, Log: os.Stderr,
	})
}
