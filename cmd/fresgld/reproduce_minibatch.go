package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
)

// minibatchFlags are the settings of the minibatch study.
type minibatchFlags struct {
	minibatchRuns
	Results, Figures   string // set from the output flags
	ReferenceSteps     int
	RecomputeReference bool
	ReferenceOnly      bool
	Problems           string
	Correction         string
}

// minibatchRuns are the settings the minibatch study and its sd follow-up
// share: their runs, against the cached MALA reference.
type minibatchRuns struct {
	Seeds, Workers int
	Reference      string
	Smoke          bool
}

// bind registers --seeds (seeds, what one seed runs), --workers,
// --reference and --smoke.
func (r *minibatchRuns) bind(fl *pflag.FlagSet, seeds string) {
	fl.IntVar(&r.Seeds, "seeds", 10, seeds)
	fl.IntVar(&r.Workers, "workers", 2, "runs in parallel (results do not depend on it)")
	fl.StringVar(&r.Reference, "reference", "docs/results/minibatch/"+refFile, "cached MALA reference")
	fl.BoolVar(&r.Smoke, "smoke", false, "a seconds-long run at a tiny size (for tests)")
}

// check refuses too few seeds for a standard error, or no workers.
func (r *minibatchRuns) check() error {
	if r.Seeds < 2 {
		return fmt.Errorf("--seeds = %d: need at least 2 for a standard error", r.Seeds)
	}
	if r.Workers < 1 {
		return fmt.Errorf("--workers = %d: need at least 1", r.Workers)
	}
	return nil
}

// size is the study's size: --smoke's tiny one or the full one.
func (r *minibatchRuns) size() minibatch.Size {
	if r.Smoke {
		return minibatch.Smoke
	}
	return minibatch.Full
}

// refCommand is the command that regenerates the cached reference.
const refCommand = "fresgld reproduce minibatch --reference-only --recompute-reference --docs"

// refFile is the name of the cached reference in the tables' directory.
const refFile = minibatch.RefFile

func init() {
	f := &minibatchFlags{}
	var o outFlags
	long := help("reproduce-minibatch") + refFile + `). --correction full, for fresgld and corrected-sgld,
names the outputs <problem>-full.md, summary-full.json and
minibatch-<problem>-full-<metric>.png.`
	cmd := studyCommand("minibatch", "Cost against accuracy of SGLD, reSGLD, m-reSGLD and f-reSGLD on minibatch posteriors", long, func(cmd *cobra.Command) error {
		var err error
		if f.Results, f.Figures, err = o.dirs(cmd, "minibatch"); err != nil {
			return err
		}
		return runMinibatch(f)
	})
	fl := cmd.Flags()
	f.bind(fl, "seeds per method")
	fl.IntVar(&f.ReferenceSteps, "reference-steps", 1000000, "MALA steps after burn-in for the reference")
	fl.BoolVar(&f.RecomputeReference, "recompute-reference", false, "recompute the MALA reference even if cached")
	fl.BoolVar(&f.ReferenceOnly, "reference-only", false, "compute or load the MALA reference, print its summary and stop")
	fl.StringVar(&f.Problems, "problems", "welling-teh,breast-cancer", "comma-separated problems to run")
	fl.StringVar(&f.Correction, "correction", "diagonal", "noise correction: diagonal (the study's) or full (outputs *-full*)")
	o.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}

func runMinibatch(f *minibatchFlags) error {
	if err := f.check(); err != nil {
		return err
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
	sz := f.size()
	outs, figs := minibatch.Outputs(corr)
	if err := prepareBoth(f.Results, outs, f.Figures, figs); err != nil {
		return err
	}
	return minibatch.Reproduce(minibatch.ReproduceOptions{
		Problems: problems, Size: sz, Correction: corr, Seeds: f.Seeds, Workers: f.Workers,
		Results: f.Results, Figures: f.Figures, Reference: refs,
		Progress: progressFunc, Out: os.Stdout, Log: os.Stderr,
	})
}
