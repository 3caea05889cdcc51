package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/mixtable"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/sampling"
)

// mixtureFlags are the settings of a mixture run.
type mixtureFlags struct {
	Data       string  `json:"data"`
	Column     string  `json:"column"`
	NoHeader   bool    `json:"no_header"`
	Components int     `json:"components"`
	Dirichlet  float64 `json:"dirichlet"`
	Reference  bool    `json:"reference"`
	Method     string  `json:"method"`
	Seed       uint64  `json:"seed"`
	Tau2       float64 `json:"tau2"`
	levelFlags
	stepFlags
	HotBatch     int    `json:"hot_batch"`
	HotBatchAuto bool   `json:"hot_batch_automatic"`
	SwapEnergies string `json:"swap_energies"`
	SwapGaussian bool   `json:"swap_gaussian"`
	runFlags
}

// sampler binds the shared flags to f's fields.
func (f *mixtureFlags) sampler() samplerFlags {
	return samplerFlags{seed: &f.Seed, tau2: &f.Tau2, levels: &f.levelFlags, step: &f.stepFlags, swapEnergies: &f.SwapEnergies, swapGaussian: &f.SwapGaussian, run: &f.runFlags}
}

// The exact Gibbs reference of --reference: chains × sweeps (a variable so
// that the tests run a short one).
var (
	mixtureRefChains = 8
	mixtureRefSweeps = 100_000
)

// mixtureSummary is summary.json of a mixture run.
type mixtureSummary struct {
	Settings    *mixtureFlags         `json:"settings"`
	N           int                   `json:"values"`
	ColumnName  string                `json:"column_name"`
	K           int                   `json:"components_k"`
	E0          float64               `json:"dirichlet_e0"`
	DataMean    float64               `json:"data_mean"`
	DataSD      float64               `json:"data_sd"`
	Clusters    []mixtable.ClusterRow `json:"number_of_clusters"`
	Comps       []mixtable.CompRow    `json:"component_table"`
	Ref         *mixtable.RefInfo     `json:"reference,omitempty"`
	WallSeconds float64               `json:"wall_seconds"`
	StepRule    string                `json:"step_rule,omitempty"`
	BatchRule   string                `json:"batch_rule,omitempty"`
	RunRule     string                `json:"run_length_rule,omitempty"`
	Plan        *plan.PlanSummary     `json:"plan,omitempty"`
	sampling.Result
}

func init() {
	f := &mixtureFlags{}
	cmd := addCommand("mixture", "a mixture of K normals for one column of your CSV data, with the posterior number of clusters", func(cmd *cobra.Command) error { return runMixture(cmd, f) })
	fl := cmd.Flags()
	fl.StringVar(&f.Data, "data", "", "CSV file holding the values (required)")
	fl.StringVar(&f.Column, "column", "", "the values' column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoHeader, "no-header", false, "the first line is data, not column names")
	fl.IntVar(&f.Components, "components", 4, "components K of the mixture, 2 to 8")
	fl.Float64Var(&f.Dirichlet, "dirichlet", 1, "Dirichlet weight e0 of the mixture weights (1: uniform; below 1: sparse)")
	fl.BoolVar(&f.Reference, "reference", false, "first run an exact reference sampler (8 chains × 100,000 sweeps), print it beside")
	fl.StringVar(&f.Method, "method", string(analysis.AutoMethod), "auto, or "+methodHelp)
	f.sampler().add(cmd, "auto")
	f.HotBatchAuto = true
	fl.Var(autoValue[int]{&f.HotBatch, &f.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: sized in burn-in; the number of values: exact)")
}

// mixtureLadderFlags are mixture's flags that only a ladder of levels reads.
var mixtureLadderFlags = []string{"levels", "tau2", "hot-batch", "swap-energies", "swap-gaussian"}

// validate checks every flag before the data are read.
func (f *mixtureFlags) validate(cmd *cobra.Command) (exchange.Method, error) {
	if f.Data == "" {
		return "", errors.New("--data: no CSV file given")
	}
	if f.Column == "" {
		return "", errors.New("--column: no column given (a header name or a column number from 1)")
	}
	if f.Components < 2 || f.Components > 8 {
		return "", fmt.Errorf("--components = %d: must lie in 2..8", f.Components)
	}
	if err := positive("--dirichlet", f.Dirichlet); err != nil {
		return "", err
	}
	m, err := parseMethod(f.Method)
	if err != nil {
		return "", err
	}
	f.sampler().planKeep(cmd, m)
	applicable := notApplicable(cmd.Flags(), m, mixtureLadderFlags)
	if m == analysis.AutoMethod {
		applicable = checkAuto(cmd)
	}
	if err := firstError(applicable, explicit("--hot-batch", f.HotBatch, f.HotBatchAuto)); err != nil {
		return "", err
	}
	return m, f.sampler().validate(cmd, f.options(cmd, m))
}

// model reads the column and builds the mixture.
func (f *mixtureFlags) model() (*finitemix.FiniteMixture, *dataset.Column, error) {
	c, err := dataset.ReadColumn(f.Data, f.Column, f.NoHeader)
	if err != nil {
		return nil, nil, fmt.Errorf("--data: %w", err)
	}
	m, err := finitemix.NewFiniteMixture(c.Values, f.Components, f.Dirichlet)
	if err != nil {
		return nil, nil, fmt.Errorf("--data: %s: column %d (%q): %w", f.Data, c.Index, c.Name, err)
	}
	return m, c, nil
}

func runMixture(cmd *cobra.Command, f *mixtureFlags) error {
	method, err := f.validate(cmd)
	if err != nil {
		return err
	}
	defer debug.SetGCPercent(debug.SetGCPercent(analysis.RunGCPercent))
	mix, col, err := f.model()
	if err != nil {
		return err
	}
	var ref *finitemix.MixReference
	if f.Reference {
		if ref, err = mixtable.Reference(cmd.ErrOrStderr(), mix, mixtureRefChains, mixtureRefSweeps, f.Seed); err != nil {
			return err
		}
	}
	o := f.options(cmd, method)
	var sum *mixtureSummary
	return runSampling(cmd, sampling.Run{Model: plan.MixtureModel(mix), Options: o,
		Headline: func(res *analysis.Result) string {
			if w := mixtable.RefWarning(ref); w != nil {
				res.AddWarnings(w...)
			}
			f.sampler().resolved(res.Options)
			sum = &mixtureSummary{Settings: f, N: mix.Len(), ColumnName: col.Name, K: mix.K, E0: mix.E0, DataMean: mix.Mean, DataSD: mix.SD,
				WallSeconds: res.Wall.Seconds(), StepRule: res.StepRule, BatchRule: res.BatchRule, RunRule: res.RunRule, Plan: res.Plan, Result: sampling.ResultOf(res)}
			return fmt.Sprintf("%s on %s (%d values, K = %d components, %d coordinates), %d chain(s) in %.1fs:", runName(cmd, method), f.Data, mix.Len(), mix.K, mix.Dim(), len(o.Chains), sum.WallSeconds)
		},
		Summary: func(res *analysis.Result) any {
			if res.Summary.Draws > 0 {
				sum.Clusters, sum.Comps = mixtable.Tables(res.Summary, mix.K, ref)
				sum.Ref = mixtable.Info(ref)
				mixtable.Write(os.Stdout, sum.Clusters, sum.Comps, ref)
				if w := mixtable.OffWarning(ref, sum.Clusters, sum.Comps, mix.SD); w != nil {
					res.AddWarnings(w...) // prepends: the run's own are kept
					sum.Summary = res.Summary
				}
			}
			return sum
		}})
}

// options are the analysis options the flags set (0 or analysis.Auto where
// automatic).
func (f *mixtureFlags) options(cmd *cobra.Command, m exchange.Method) analysis.Options {
	o := f.sampler().options(cmd, m)
	o.HotBatch = f.HotBatch
	zeroIf(&o.HotBatch, f.HotBatchAuto)
	o.Settings = func(o analysis.Options) [][2]string {
		g := *f
		g.sampler().resolved(o)
		g.HotBatch = o.HotBatch
		return settingsLines(&g, o)
	}
	return o
}
