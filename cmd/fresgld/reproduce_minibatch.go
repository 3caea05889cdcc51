package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
const refFile = "breast-cancer-reference.json"

func init() {
	f := &minibatchFlags{}
	var o outFlags
	cmd := &cobra.Command{
		Use:   "minibatch",
		Short: "Cost against accuracy of SGLD, reSGLD, m-reSGLD and f-reSGLD on minibatch posteriors",
		Long: `minibatch runs SGLD, reSGLD, m-reSGLD and f-reSGLD (hot chain on the automatic
small minibatch), and as a control corrected-sgld (one chain with f-reSGLD's
noise correction, no hot chain), on two posteriors backed by data:

  welling-teh    the bimodal mixture posterior of Welling & Teh (2011, §5.1),
                 scored by total variation against its exact 2-D posterior;
  breast-cancer  Bayesian logistic regression on the Wisconsin diagnostic
                 breast-cancer data, scored by the error of the posterior mean
                 and of the per-coordinate standard deviations against a long
                 full-gradient MALA reference run.

It measures accuracy against per-example evaluations over --seeds seeds, the
budget at which each method reaches a fixed accuracy, and the hot chain's
share of the cost. It writes a table per problem (<problem>.md), summary.json
and accuracy-against-cost plots (PNG and SVG) under --out; --docs writes them
into docs/results/minibatch and docs/figures instead.

The MALA reference is read from --reference; when that file is missing, or with
--recompute-reference, it is computed and written beside the tables
(` + refFile + `).`,
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
	fl.StringVar(&f.Reference, "reference", "docs/results/minibatch/"+refFile, "cached MALA reference of the breast-cancer posterior")
	fl.IntVar(&f.ReferenceSteps, "reference-steps", 1000000, "MALA steps after burn-in for the reference")
	fl.BoolVar(&f.RecomputeReference, "recompute-reference", false, "recompute the MALA reference even if cached")
	fl.BoolVar(&f.ReferenceOnly, "reference-only", false, "compute or load the MALA reference, print its summary and stop")
	fl.BoolVar(&f.Smoke, "smoke", false, "a seconds-long run at a tiny size (for tests)")
	fl.StringVar(&f.Problems, "problems", "welling-teh,breast-cancer", "comma-separated problems to run")
	fl.StringVar(&f.Correction, "correction", "diagonal", "noise correction of fresgld and corrected-sgld: diagonal (the study's) or full (outputs named <problem>-full.md, summary-full.json, minibatch-<problem>-full-<metric>.png)")
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
	if f.ReferenceOnly {
		ref, err := breastCancerReference(f)
		if err != nil {
			return err
		}
		fmt.Printf("MALA reference of the breast-cancer posterior (%s):\n%d burn-in steps (step adapted), then %d steps at h = %.4g (preconditioned), every %d-th kept; acceptance %.3f; %d full-data evaluations of U and ∇U; %.0f s.\nMonte Carlo error (batch means, %d batches): min ESS over coordinates %.0f; max se/sd of the means %.4f; max se/sd of the sds %.4f.\n",
			f.Reference, ref.Burn, ref.Steps, ref.Step, ref.Thin, ref.Accept, ref.FullEvals, ref.Wall, ref.Batches, ref.MinESS, ref.MaxMeanSEOverSD, ref.MaxSDSEOverSD)
		return nil
	}
	corr, err := exchange.ParseCorrection(f.Correction)
	if err != nil {
		return fmt.Errorf("--correction: %w", err)
	}
	sz := minibatch.Full
	if f.Smoke {
		sz = minibatch.Smoke
	}
	names := strings.Split(f.Problems, ",")
	for _, name := range names {
		if n := strings.TrimSpace(name); n != "welling-teh" && n != "breast-cancer" {
			return fmt.Errorf("--problems: unknown problem %q (want welling-teh or breast-cancer)", name)
		}
	}
	outs, figs := minibatchOutputs(corr)
	if _, err := output.Prepare(f.Results, outs...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if _, err := output.Prepare(f.Figures, figs...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	suffix := correctionSuffix(corr)
	var sums []minibatch.Summary
	for _, name := range names {
		var pr minibatch.Problem
		var err error
		switch strings.TrimSpace(name) {
		case "welling-teh":
			pr, err = minibatch.WellingTehProblem(sz)
		case "breast-cancer":
			var ref minibatch.Reference
			ref, err = breastCancerReference(f)
			if err == nil {
				pr, err = minibatch.BreastCancerProblem(ref, sz)
			}
		default:
			return fmt.Errorf("--problems: unknown problem %q (want welling-teh or breast-cancer)", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pr.Setting.Correction = corr
		start := time.Now()
		sum, err := minibatch.Study(pr, minibatch.Methods, f.Seeds, f.Workers, newProgress(pr.Name, f.Seeds*len(minibatch.Methods)).update)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d runs in %.1fs\n", pr.Name, f.Seeds*len(minibatch.Methods), time.Since(start).Seconds())
		var b strings.Builder
		sum.Markdown(&b)
		fmt.Print(b.String())
		if err := output.WriteBytes(filepath.Join(f.Results, pr.Name+suffix+".md"), []byte(b.String())); err != nil {
			return err
		}
		for k, m := range pr.Metrics {
			base := filepath.Join(f.Figures, "minibatch-"+pr.Name+suffix+"-"+strings.ReplaceAll(m, " ", "-"))
			if err := sum.Plot(k, base); err != nil {
				return err
			}
		}
		sums = append(sums, sum)
	}
	js, err := json.MarshalIndent(sums, "", "  ")
	if err != nil {
		return err
	}
	return output.WriteBytes(filepath.Join(f.Results, "summary"+suffix+".json"), append(js, '\n'))
}

// minibatchOutputs are the study's outputs under correction c, removed
// before a run so that a failed run never leaves an earlier run's beside its
// own. The full correction's carry a suffix, so that they never replace the
// study's.
func minibatchOutputs(c exchange.Correction) (results, figures []string) {
	s := correctionSuffix(c)
	results = []string{"welling-teh" + s + ".md", "breast-cancer" + s + ".md", "summary" + s + ".json"}
	for _, f := range []string{"welling-teh" + s + "-TV", "breast-cancer" + s + "-mean-error", "breast-cancer" + s + "-sd-error"} {
		figures = append(figures, "minibatch-"+f+".png", "minibatch-"+f+".svg")
	}
	return results, figures
}

func correctionSuffix(c exchange.Correction) string {
	if c == exchange.Diagonal {
		return ""
	}
	return "-" + c.String()
}

// breastCancerReference loads the cached MALA reference or computes it.
func breastCancerReference(f *minibatchFlags) (minibatch.Reference, error) {
	l, _, err := minibatch.BreastCancer()
	if err != nil {
		return minibatch.Reference{}, err
	}
	if !f.RecomputeReference {
		ref, err := minibatch.LoadReference(f.Reference, l.Dim())
		if err == nil {
			return ref, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return ref, err
		}
		fmt.Fprintf(os.Stderr, "no cached reference at %s: computing it\n", f.Reference)
	}
	if f.ReferenceSteps < 1000 {
		return minibatch.Reference{}, fmt.Errorf("--reference-steps = %d: need at least 1000", f.ReferenceSteps)
	}
	ref, err := minibatch.ComputeReference("breast-cancer", l, 5000, f.ReferenceSteps, 10, 1)
	if err != nil {
		return ref, err
	}
	ref.Command = fmt.Sprintf("%s --reference-steps %d", refCommand, f.ReferenceSteps)
	fmt.Fprintf(os.Stderr, "MALA reference: %d steps, acceptance %.3f, min ESS %.0f, max se/sd of the means %.4f and of the sds %.4f, %.0fs\n",
		ref.Steps, ref.Accept, ref.MinESS, ref.MaxMeanSEOverSD, ref.MaxSDSEOverSD, ref.Wall)
	d, err := output.Prepare(f.Results)
	if err != nil {
		return ref, fmt.Errorf("--out: %w", err)
	}
	path := d.File(refFile)
	fmt.Fprintf(os.Stderr, "writing the MALA reference to %s\n", path)
	return ref, ref.Save(path)
}
