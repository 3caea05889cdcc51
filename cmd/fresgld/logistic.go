package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/sampling"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// logisticFlags are the settings of a logistic-regression run.
type logisticFlags struct {
	tableFlags
	NoStandardize bool    `json:"no_standardize"`
	DropConstant  bool    `json:"drop_constant"`
	NoIntercept   bool    `json:"no_intercept"`
	PriorSD       float64 `json:"prior_sd"`
	// The prior's other settings, in the settings only under spike-slab
	// (logisticFlags.settings), so that a run under the normal prior
	// writes what it wrote before the spike-and-slab existed.
	Prior      string    `json:"-"`
	Slab       slabFlags `json:"-"`
	Exact      bool      `json:"-"`
	Method     string    `json:"method"`
	Correction string    `json:"correction"`
	Seed       uint64    `json:"seed"`
	Tau2       float64   `json:"tau2"`
	stepFlags
	hotFlags
	SwapBatch     int  `json:"swap_batch"` // 0 with SwapBatchAuto: the chain's own n
	SwapBatchAuto bool `json:"swap_batch_automatic"`
	swapFlags
	levelFlags
	runFlags
}

// sampler binds the shared flags to f's fields.
func (f *logisticFlags) sampler() samplerFlags {
	return samplerFlags{seed: &f.Seed, tau2: &f.Tau2, levels: &f.levelFlags, step: &f.stepFlags, swapEnergies: &f.SwapEnergies, swapGaussian: &f.SwapGaussian,
		hot: &f.hotFlags, swap: &f.swapFlags, run: &f.runFlags}
}

// logisticSummary is summary.json of a logistic-regression run.
type logisticSummary struct {
	Settings      *logisticFlags        `json:"settings"`
	N             int                   `json:"examples"`
	Names         []string              `json:"coefficients"`
	Label         string                `json:"label"`
	FeatureMean   []float64             `json:"feature_means,omitempty"`
	FeatureSD     []float64             `json:"feature_sds,omitempty"`
	HotBatch      []*variance.AutoStats `json:"hot_batch_automatic,omitempty"` // per chain
	WallSeconds   float64               `json:"wall_seconds"`
	StepRuleNotes string                `json:"step_rule,omitempty"`
	BatchRule     string                `json:"batch_rule,omitempty"`
	RunRule       string                `json:"run_length_rule,omitempty"`
	// Under the spike-and-slab prior only: the prior, the per-coefficient
	// table (inclusion probabilities), with --exact the reference's, and
	// what the plan chose.
	Prior    *logisticPrior         `json:"prior,omitempty"`
	Coef     []results.CoefRow      `json:"per_coefficient,omitempty"`
	Patterns []results.PatternRow   `json:"exact_patterns,omitempty"`
	Distance *results.ExactDistance `json:"distance_to_exact,omitempty"`
	Plan     *plan.PlanSummary      `json:"plan,omitempty"`
	sampling.Result
}

func init() {
	f := &logisticFlags{}
	cmd := addCommand("logistic", "Bayesian logistic regression on your CSV data", func(cmd *cobra.Command) error { return runLogistic(cmd, f) })
	fl := cmd.Flags()
	f.tableFlags.add(fl, "CSV file of features and a 0/1 label (required)", "label column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoStandardize, "no-standardize", false, "keep the features as they are")
	fl.BoolVar(&f.DropConstant, "drop-constant", false, "drop features constant over the examples, with a warning (else refused)")
	fl.BoolVar(&f.NoIntercept, "no-intercept", false, "do not add an intercept column")
	fl.Float64Var(&f.PriorSD, "prior-sd", 1, "prior sd of every coefficient (spike-slab: of the intercept)")
	fl.StringVar(&f.Prior, "prior", "normal", "normal, N(0, --prior-sd²), or spike-slab (all but the intercept)")
	addSlabFlags(fl, &f.Slab, "spike-and-slab: sd s1 of the slab")
	fl.BoolVar(&f.Exact, "exact", false, "spike-slab: print the run beside a reference posterior (≤ 12 coefficients)")
	fl.StringVar(&f.Method, "method", string(analysis.AutoMethod), "auto, or "+methodHelp)
	fl.StringVar(&f.Correction, "correction", "diagonal", "noise correction: diagonal (per coordinate) or full (covariance)")
	f.sampler().add(cmd, "auto")
	f.SwapBatchAuto = true
	fl.Var(autoValue[int]{&f.SwapBatch, &f.SwapBatchAuto}, "swap-batch", "examples per swap energy (auto: the chain's minibatch; N: exact)")
}

// validate checks every flag that does not need the data, before any
// work: those of the analysis options by their own checks.
func (f *logisticFlags) validate(cmd *cobra.Command) error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no label column given (a header name or a column number from 1)")
	}
	m, err := parseMethod(f.Method)
	if err != nil {
		return err
	}
	cm := m
	if m == analysis.AutoMethod {
		cm = exchange.FReSGLDMethod // checkAuto refuses --correction under auto
	}
	if _, err := parseCorrection(f.Correction, cm); err != nil {
		return err
	}
	if err := f.Slab.check(f.Prior); err != nil {
		return err
	}
	for _, u := range []struct {
		flag   string
		unused bool
	}{{"slab-weight", f.Prior == "normal"}, {"spike-sd", f.Prior == "normal"}, {"slab-sd", f.Prior == "normal"}, {"exact", f.Prior == "normal"}} {
		if u.unused && cmd.Flags().Changed(u.flag) {
			return fmt.Errorf("--%s: only with --prior spike-slab (the normal prior's sd is --prior-sd)", u.flag)
		}
	}
	if err := positive("--prior-sd", f.PriorSD); err != nil {
		return err
	}
	if p := 1 / (f.PriorSD * f.PriorSD); math.IsInf(p, 0) || p*minPriorSDRoom > math.MaxFloat64 {
		return fmt.Errorf("--prior-sd = %v: the prior's precision 1/σ₀² = %g is beyond floating point (it would pin every coefficient at 0); give a --prior-sd above 1e-150", f.PriorSD, p)
	}
	if err := explicit("--swap-batch", f.SwapBatch, f.SwapBatchAuto); err != nil {
		return err
	}
	return f.sampler().validate(cmd, f.options(cmd, m))
}

// minPriorSDRoom is the headroom the prior's precision 1/σ₀² must leave
// below the largest float64: the Hessian adds N curvature terms to it and
// the step-size rule multiplies it, and at 1/σ₀² near the limit these
// overflow into a "singular matrix" that hides the cause.
const minPriorSDRoom = 1e8

// ladderOnlyFlags are logistic's flags that only a ladder of levels reads.
var ladderOnlyFlags = []string{"levels", "tau2", "hot-batch", "hot-share", "swap-rate", "swap-batch", "swap-energies", "swap-pilot", "swap-noise-cap", "swap-gaussian", "exact-every"}

func runLogistic(cmd *cobra.Command, f *logisticFlags) error {
	m, _ := parseMethod(f.Method)
	f.sampler().planKeep(cmd, m)
	if err := f.validate(cmd); err != nil {
		return err
	}
	applicable := notApplicable(cmd.Flags(), m, ladderOnlyFlags)
	if m == analysis.AutoMethod {
		applicable = checkAuto(cmd)
	}
	if err := applicable; err != nil {
		return err
	}
	defer debug.SetGCPercent(debug.SetGCPercent(analysis.RunGCPercent))
	d, err := analysis.ReadData(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, NoStandardize: f.NoStandardize, DropConstant: f.DropConstant,
		ConstantRemedy: ", give --drop-constant, or keep the features unstandardised (--no-standardize)"})
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	model, lr, err := logisticModel(cmd.ErrOrStderr(), f, d)
	if err != nil {
		return err
	}
	var ref *models.SlabExact
	if f.Exact {
		if ref, err = slabReference(cmd.ErrOrStderr(), lr, f.Seed); err != nil {
			return err
		}
	}
	o := f.options(cmd, m)
	o.Settings = func(o analysis.Options) [][2]string { return f.settings(o, d) }
	var sum *logisticSummary
	return runSampling(cmd, sampling.Run{Model: model, Options: o,
		Headline: func(res *analysis.Result) string {
			f.resolved(res.Options)
			sum = &logisticSummary{Settings: f, N: d.N, Names: model.Names, Label: d.Label, FeatureMean: d.Means, FeatureSD: d.SDs,
				HotBatch: res.HotBatch, WallSeconds: res.Wall.Seconds(), StepRuleNotes: res.StepRule, BatchRule: res.BatchRule, RunRule: res.RunRule, Result: sampling.ResultOf(res)}
			prior := ""
			if lr.SpikeSlab() {
				prior = ", spike-and-slab prior"
				sum.Prior = &logisticPrior{Name: f.Prior, SlabWeight: f.Slab.SlabWeight, SpikeSD: f.Slab.SpikeSD, SlabSD: f.Slab.SlabSD, InterceptSD: f.PriorSD}
				sum.Plan = res.Plan
			}
			return fmt.Sprintf("%s on %s (%d examples, %d coefficients%s), %d chain(s) in %.1fs:", runName(cmd, m), f.Data, d.N, model.Terms.Dim(), prior, len(o.Chains), sum.WallSeconds)
		},
		Summary: func(res *analysis.Result) any {
			if lr.SpikeSlab() && res.Summary.Draws > 0 {
				compareSlab(sum, model.Names, ref)
			}
			return sum
		}})
}

// logisticPrior is the spike-and-slab prior in summary.json.
type logisticPrior struct {
	Name        string  `json:"prior"`
	SlabWeight  float64 `json:"slab_weight"`
	SpikeSD     float64 `json:"spike_sd"`
	SlabSD      float64 `json:"slab_sd"`
	InterceptSD float64 `json:"intercept_sd"`
}

// slabReference computes the spike-and-slab reference posterior (--exact),
// saying its cost on stderr.
func slabReference(stderr io.Writer, lr *models.Logistic, seed uint64) (*models.SlabExact, error) {
	ref, err := lr.SlabExact(models.SlabExactDraws, seed)
	if err != nil {
		return nil, fmt.Errorf("--exact: %w", err)
	}
	fmt.Fprintln(stderr, ref.Cost())
	return ref, nil
}

// compareSlab records the per-coefficient table (inclusion probabilities)
// in sum and, with the reference, prints it beside the run, the heaviest
// patterns and the distance, as regress does.
func compareSlab(sum *logisticSummary, names []string, ref *models.SlabExact) {
	var r results.Reference
	if ref != nil {
		r = ref
	}
	sum.Coef, sum.Distance = results.CompareExact(sum.Summary, names, r, ref != nil)
	if ref == nil {
		return
	}
	results.WriteExactTable(os.Stdout, names, ref, sum.Coef, false)
	for _, pt := range ref.Patterns[:min(len(ref.Patterns), 5)] {
		sum.Patterns = append(sum.Patterns, results.PatternOf(pt, names))
	}
	fmt.Println(sum.Distance.Line(false))
}

// logisticModel is the model of the data d as the flags say.
func logisticModel(stderr io.Writer, f *logisticFlags, d *dataset.Data) (plan.Model, *models.Logistic, error) {
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if f.NoStandardize {
		if err := analysis.RawScale(d, !f.NoIntercept); err != nil {
			return plan.Model{}, nil, err
		}
	}
	x, p, names := d.X, d.P, d.Names
	intercept := -1
	if f.Prior == "spike-slab" {
		if f.Exact && p > models.MaxSlabExactDim {
			return plan.Model{}, nil, fmt.Errorf("--exact: %d spike-and-slab coefficients; the reference enumerates 2^q inclusion patterns, q ≤ %d", p, models.MaxSlabExactDim)
		}
		if err := analysis.CheckInclusionNames(f.Data, names); err != nil {
			return plan.Model{}, nil, err
		}
	}
	if !f.NoIntercept {
		x, p = d.TakeWithIntercept() // in X's own storage: one copy of the data
		names = append([]string{"intercept"}, names...)
		intercept = 0
	}
	var lr *models.Logistic
	var err error
	if f.Prior == "spike-slab" {
		lr, err = models.NewSlabLogistic(x, d.Y, p, f.PriorSD, f.Slab.prior(f.Prior), intercept)
	} else {
		lr, err = models.NewLogistic(x, d.Y, p, f.PriorSD)
	}
	if err != nil {
		return plan.Model{}, nil, fmt.Errorf("%s: %w", f.Data, err)
	}
	return analysis.LogisticModel(lr, names), lr, nil
}

// options are the analysis options the flags set (0 or analysis.Auto where
// automatic).
func (f *logisticFlags) options(cmd *cobra.Command, m exchange.Method) analysis.Options {
	o := f.sampler().options(cmd, m)
	o.Correction, _ = parseCorrection(f.Correction, m)
	o.SwapBatch = f.SwapBatch
	zeroIf(&o.SwapBatch, f.SwapBatchAuto)
	return o
}

// resolved takes the values a run chose into the flags, for the summary.
func (f *logisticFlags) resolved(o analysis.Options) {
	f.sampler().resolved(o)
	if f.HotBatchAuto {
		f.HotBatch = o.HotBatch
	}
}

// settings are the chain CSVs' settings lines: the flags with the values
// the run uses, not the flags' stand-ins (an automatic hot batch is sized
// during burn-in; auto swap energies resolve to a mode).
func (f *logisticFlags) settings(o analysis.Options, d *dataset.Data) [][2]string {
	g := *f
	g.resolved(o)
	g.HotBatch = f.HotBatch
	settings := settingsLines(&g, o)
	for i := range settings {
		if settings[i][0] == "hot_batch" && f.HotBatchAuto && !oneLevel(o.Method) {
			settings[i][1] = fmt.Sprintf("auto (from %d)", o.Batch)
		}
	}
	if f.Prior == "spike-slab" {
		settings = append(settings, [2]string{"prior", f.Prior})
		prior, _ := settingsOf(&f.Slab)
		settings = append(settings, prior...)
	}
	if d.Means != nil {
		settings = append(settings, results.StandardisationSettings(d.Means, d.SDs)...)
	}
	return settings
}
