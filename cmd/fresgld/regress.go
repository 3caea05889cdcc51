package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/sampling"
	"github.com/fresgld/fresgld/variance"
)

// regressFlags are the settings of a linear-regression run.
type regressFlags struct {
	tableFlags
	NoiseSD     float64 `json:"noise_sd"`
	NoiseSDAuto bool    `json:"noise_sd_automatic"`
	Prior       string  `json:"prior"`
	slabFlags
	Exact      bool    `json:"exact"`
	Method     string  `json:"method"`
	MethodAuto bool    `json:"method_automatic"`
	Correction string  `json:"correction"`
	Seed       uint64  `json:"seed"`
	Tau2       float64 `json:"tau2"`
	stepFlags
	hotFlags
	swapFlags
	levelFlags
	Cycle     int     `json:"cycle"` // csgld: steps a cycle
	CycleAuto bool    `json:"cycle_automatic"`
	Explore   float64 `json:"explore"` // csgld: exploration share β
	runFlags
}

// sampler binds the shared flags to f's fields.
func (f *regressFlags) sampler() samplerFlags {
	return samplerFlags{seed: &f.Seed, tau2: &f.Tau2, levels: &f.levelFlags, step: &f.stepFlags, swapEnergies: &f.SwapEnergies, swapGaussian: &f.SwapGaussian,
		hot: &f.hotFlags, swap: &f.swapFlags, run: &f.runFlags}
}

// Defaults of the prior, argued in the command's help.
const (
	defaultSlabSD     = 1
	defaultSpikeSD    = 0.02
	defaultSlabWeight = 0.5
)

func init() {
	f := &regressFlags{}
	cmd := addCommand("regress", "Bayesian linear regression (normal or spike-and-slab prior) on your CSV data, with its exact posterior", func(cmd *cobra.Command) error { return runRegress(cmd, f) })
	fl := cmd.Flags()
	f.tableFlags.add(fl, "CSV file of features and a numeric response (required)", "response column: header name or column number from 1 (required)")
	f.NoiseSDAuto = true
	fl.Var(autoValue[float64]{&f.NoiseSD, &f.NoiseSDAuto}, "noise-sd", "noise sd σ, standardised scale (auto: the least-squares residual sd)")
	fl.StringVar(&f.Prior, "prior", "spike-slab", "prior of each coefficient: normal or spike-slab")
	addSlabFlags(fl, &f.slabFlags, "sd s1 of the slab (of the normal prior with --prior normal)")
	fl.BoolVar(&f.Exact, "exact", false, "print the exact posterior's table, and write it into summary.json (p ≤ 20)")
	f.MethodAuto = true
	fl.Var(autoValue[string]{&f.Method, &f.MethodAuto}, "method", "auto (the plan), sgld, corrected, resgld, mresgld, fresgld or csgld")
	fl.StringVar(&f.Correction, "correction", "diagonal", "fresgld's noise correction: diagonal or full")
	f.sampler().add(cmd, "auto")
	f.CycleAuto = true
	fl.Var(autoValue[int]{&f.Cycle, &f.CycleAuto}, "cycle", "csgld: steps a cycle (auto: the run in 20 cycles)")
	fl.Float64Var(&f.Explore, "explore", 0.5, "csgld: share β of each cycle that explores without noise")
}

// csgldCycles is the number of cycles of --method csgld with --cycle auto.
const csgldCycles = 20

// regressMethods are the samplers regress offers (reld needs exact
// energies on every level; a minibatch has none).
var regressMethods = []exchange.Method{exchange.SGLDMethod, exchange.CorrectedMethod, exchange.ReSGLDMethod, exchange.MReSGLDMethod, exchange.FReSGLDMethod, exchange.CSGLDMethod}

// prior is the prior the flags set.
func (f *regressFlags) prior() models.SlabPrior { return f.slabFlags.prior(f.Prior) }

// validate checks every flag that does not need the data, before any work.
func (f *regressFlags) validate(cmd *cobra.Command) error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no response column given (a header name or a column number from 1)")
	}
	if err := f.slabFlags.check(f.Prior); err != nil {
		return err
	}
	if !f.NoiseSDAuto {
		if err := positive("--noise-sd", f.NoiseSD); err != nil {
			return fmt.Errorf("%w (or auto)", err)
		}
	}
	if !f.MethodAuto && f.Method != string(analysis.AutoMethod) {
		m, err := exchange.ParseMethod(f.Method)
		if err != nil || !slices.Contains(regressMethods, m) {
			return fmt.Errorf("--method %q: want auto, sgld, corrected, resgld, mresgld, fresgld or csgld", f.Method)
		}
	}
	if m := f.method(); m != analysis.AutoMethod { // auto refuses --correction (checkAuto)
		if _, err := parseCorrection(f.Correction, m); err != nil {
			return err
		}
	}
	if !(f.Explore >= 0 && f.Explore < 1) {
		return fmt.Errorf("--explore = %v: must lie in [0, 1) (1 would never sample)", f.Explore)
	}
	if !f.CycleAuto && f.Cycle < 2 {
		return fmt.Errorf("--cycle = %d: must be ≥ 2 (or auto)", f.Cycle)
	}
	return f.sampler().validate(cmd, f.options(cmd, f.method(), 0))
}

// method is the sampler the flags ask for, --method auto resolved by the
// prior.
func (f *regressFlags) method() exchange.Method {
	switch {
	case !f.MethodAuto && f.Method != string(analysis.AutoMethod):
		m, _ := exchange.ParseMethod(f.Method)
		return m
	}
	return analysis.AutoMethod
}

// chooseMethod resolves --method auto by the prior, records the choice in
// the flags and says why.
func (f *regressFlags) chooseMethod() (exchange.Method, string) {
	m := f.method()
	if !f.MethodAuto {
		return m, "set by --method"
	}
	f.Method = string(m)
	return m, "the plan: it searches the posterior's modes (a spike-and-slab posterior has one for each inclusion pattern the data leave undecided) and picks the sampler, see the sampler line"
}

// regressSummary is summary.json of a regression run.
type regressSummary struct {
	Settings     *regressFlags          `json:"settings"`
	N            int                    `json:"examples"`
	Names        []string               `json:"coefficients"`
	Label        string                 `json:"label"`
	FeatureMean  []float64              `json:"feature_means"`
	FeatureSD    []float64              `json:"feature_sds"`
	ResponseMean float64                `json:"response_mean"`
	ResponseSD   float64                `json:"response_sd"`
	Prior        string                 `json:"prior"`
	SlabWeight   float64                `json:"slab_weight"`
	SpikeSD      float64                `json:"spike_sd,omitempty"`
	SlabSD       float64                `json:"slab_sd"`
	NoiseSD      float64                `json:"noise_sd"`
	NoiseRule    string                 `json:"noise_sd_rule"`
	MethodRule   string                 `json:"method_rule"`
	StepRule     string                 `json:"step_rule,omitempty"`
	BatchRule    string                 `json:"batch_rule,omitempty"`
	RunRule      string                 `json:"run_length_rule,omitempty"`
	Coef         []results.CoefRow      `json:"per_coefficient"`
	Patterns     []results.PatternRow   `json:"exact_patterns,omitempty"`
	Distance     *results.ExactDistance `json:"distance_to_exact,omitempty"`
	HotBatch     []*variance.AutoStats  `json:"hot_batch_automatic,omitempty"`
	Plan         *plan.PlanSummary      `json:"plan,omitempty"`
	WallSeconds  float64                `json:"wall_seconds"`
	sampling.Result
}

func runRegress(cmd *cobra.Command, f *regressFlags) error {
	auto := f.method() == analysis.AutoMethod
	f.sampler().planKeep(cmd, f.method())
	if err := firstError(f.validate(cmd), f.unused(cmd)); err != nil {
		return err
	}
	if auto {
		if err := checkAuto(cmd); err != nil {
			return err
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(analysis.RunGCPercent))
	sum, lr, err := f.model(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	m, why := f.chooseMethod()
	sum.MethodRule = why
	corr, err := parseCorrection(f.Correction, m)
	if err != nil {
		return err
	}
	fmt.Printf("noise sd σ = %.4g (%s)\n", f.NoiseSD, sum.NoiseRule)
	fmt.Printf("method: %s (%s)\n", m, why)
	var exact *models.LinRegExact
	if lr.Dim() <= models.MaxExactDim {
		if exact, err = lr.Exact(); err != nil {
			return err
		}
	}
	return runSampling(cmd, sampling.Run{Model: plan.RegressModel(lr, sum.Names, f.prior()), Options: f.options(cmd, m, corr),
		Headline: func(res *analysis.Result) string {
			o := res.Options
			f.sampler().resolved(o)
			sum.StepRule, sum.BatchRule, sum.RunRule, sum.HotBatch, sum.WallSeconds = res.StepRule, res.BatchRule, res.RunRule, res.HotBatch, res.Wall.Seconds()
			sum.Plan, sum.Result = res.Plan, sampling.ResultOf(res)
			return fmt.Sprintf("%s on %s (%d examples, %d coefficients, %s prior), %d chain(s) in %.1fs:", runName(cmd, m), f.Data, sum.N, lr.Dim(), f.Prior, len(o.Chains), sum.WallSeconds)
		},
		Summary: func(res *analysis.Result) any {
			if res.Summary.Draws > 0 {
				f.compare(sum, exact)
			}
			if exact != nil {
				for j, name := range sum.Names {
					res.SetExactDensity(name, func(x float64) float64 { return exact.PDF(j, x) })
				}
			}
			return sum
		}})
}

// unused refuses the settings that the prior or method would ignore, not
// silently dropped.
func (f *regressFlags) unused(cmd *cobra.Command) error {
	for _, u := range []struct {
		flag   string
		unused bool
		why    string
	}{
		{"slab-weight", f.Prior == "normal", "--prior normal has no spike"},
		{"spike-sd", f.Prior == "normal", "--prior normal has no spike"},
		{"cycle", f.method() != exchange.CSGLDMethod, "only --method csgld has cycles"},
		{"explore", f.method() != exchange.CSGLDMethod, "only --method csgld has cycles"},
	} {
		if u.unused && cmd.Flags().Changed(u.flag) {
			return fmt.Errorf("--%s: %s", u.flag, u.why)
		}
	}
	return nil
}

// model reads the data and builds the regression, with the summary's
// description of both.
func (f *regressFlags) model(stderr io.Writer) (*regressSummary, *models.LinReg, error) {
	d, err := analysis.ReadData(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, Response: true})
	if err != nil {
		return nil, nil, fmt.Errorf("--data: %w", err)
	}
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if f.Exact && d.P > models.MaxExactDim {
		return nil, nil, fmt.Errorf("--exact: %d coefficients; the exact posterior enumerates 2^p inclusion patterns, p ≤ %d", d.P, models.MaxExactDim)
	}
	sigma := f.NoiseSD
	zeroIf(&sigma, f.NoiseSDAuto)
	pr := f.prior()
	lr, fit, err := analysis.Regression(f.Data, d, sigma, pr)
	if err != nil {
		return nil, nil, err
	}
	f.NoiseSD = fit.NoiseSD
	return &regressSummary{Settings: f, N: d.N, Names: d.Names, Label: d.Label, FeatureMean: d.Means, FeatureSD: d.SDs, ResponseMean: fit.ResponseMean, ResponseSD: fit.ResponseSD,
		Prior: f.Prior, SlabWeight: pr.W, SpikeSD: pr.Spike, SlabSD: pr.Slab, NoiseSD: fit.NoiseSD, NoiseRule: fit.NoiseRule}, lr, nil
}

// options are the analysis options the flags set; with csgld, the cycles
// are set once the run length is known.
func (f *regressFlags) options(cmd *cobra.Command, m exchange.Method, corr exchange.Correction) analysis.Options {
	o := f.sampler().options(cmd, m)
	o.Correction = corr
	o.Settings = func(o analysis.Options) [][2]string {
		g := *f
		g.sampler().resolved(o)
		settings, _ := settingsOf(&g)
		return settings
	}
	if m == exchange.CSGLDMethod {
		o.Before = func(o *analysis.Options) error {
			if f.CycleAuto {
				f.Cycle = max(2, (o.Burn+o.Keep*o.Thin+csgldCycles-1)/csgldCycles)
			}
			c := langevin.Cyclical{Eta0: 2 * o.Eta, Cycle: f.Cycle, Explore: f.Explore}
			o.Schedule, o.Sample = c, func(step int) bool { return !c.Exploring(step - 1) }
			fmt.Printf("cyclical SGLD: %d steps a cycle, η0 = %.4g, exploration %.0f%% of each cycle\n", f.Cycle, c.Eta0, 100*f.Explore)
			return nil
		}
	}
	return o
}

// compare prints the run's distance to the exact posterior (and with
// --exact its table) and records them in sum.
func (f *regressFlags) compare(sum *regressSummary, exact *models.LinRegExact) {
	names := sum.Names
	var ref results.Reference // nil, not a nil *LinRegExact, when there is none
	if exact != nil {
		ref = exact
	}
	sum.Coef, sum.Distance = results.CompareExact(sum.Summary, names, ref, f.Exact)
	if exact == nil {
		return
	}
	if f.Exact {
		results.WriteExactTable(os.Stdout, names, exact, sum.Coef, f.prior().Normal())
		for _, pt := range exact.Patterns[:min(len(exact.Patterns), 5)] {
			sum.Patterns = append(sum.Patterns, results.PatternOf(pt, names))
		}
	}
	if sum.Distance != nil {
		fmt.Println(sum.Distance.Line(f.Prior == "normal"))
	}
}
