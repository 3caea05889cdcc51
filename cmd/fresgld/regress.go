package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/variance"
)

// regressFlags are the settings of a linear-regression run.
type regressFlags struct {
	Data         string  `json:"data"`
	Label        string  `json:"label"`
	NoHeader     bool    `json:"no_header"`
	NoiseSD      float64 `json:"noise_sd"`
	NoiseSDAuto  bool    `json:"noise_sd_automatic"`
	Prior        string  `json:"prior"`
	SlabWeight   float64 `json:"slab_weight"`
	SpikeSD      float64 `json:"spike_sd"`
	SlabSD       float64 `json:"slab_sd"`
	Exact        bool    `json:"exact"`
	Method       string  `json:"method"`
	MethodAuto   bool    `json:"method_automatic"`
	Correction   string  `json:"correction"`
	Seed         uint64  `json:"seed"`
	Tau2         float64 `json:"tau2"`
	Eta          float64 `json:"eta"`
	EtaAuto      bool    `json:"eta_automatic"`
	Batch        int     `json:"batch"`
	BatchAuto    bool    `json:"batch_automatic"`
	HotBatch     int     `json:"hot_batch"`
	HotBatchAuto bool    `json:"hot_batch_automatic"`
	Share        float64 `json:"hot_share"`
	SwapPerStep  float64 `json:"swap_probability_per_step"`
	SwapEnergies string  `json:"swap_energies"`
	ExactEvery   int     `json:"exact_every"`
	SwapPilot    int     `json:"swap_pilot"`
	SwapNoiseCap float64 `json:"swap_noise_cap"`
	Levels       int     `json:"levels"`
	Cycle        int     `json:"cycle"` // csgld: steps a cycle
	CycleAuto    bool    `json:"cycle_automatic"`
	Explore      float64 `json:"explore"` // csgld: exploration share β
	Burn         int     `json:"burn"`
	BurnAuto     bool    `json:"burn_automatic"`
	Keep         int     `json:"keep"`
	Thin         int     `json:"thin"`
	ThinAuto     bool    `json:"thin_automatic"`
	chainFlags
	Out string `json:"-"`
}

// Defaults of the prior, argued in the command's help.
const (
	defaultSlabSD     = 1
	defaultSpikeSD    = 0.02
	defaultSlabWeight = 0.5
)

const regressLong = `regress samples the posterior of a Bayesian linear regression on a CSV file:
numeric feature columns and one numeric response column (--label, a header
name or a column number counted from 1). Features and response are
standardised (centred, then divided by their population sd), so the
intercept is 0 and a coefficient is the change of the response, in its sds,
per sd of its feature. The noise is Gaussian with sd σ on that scale:
--noise-sd, by default the residual standard error of the least-squares fit,
√(RSS/(N − p − 1)) (R's lm reports it; the −1 is for the centring), stated
on the first line of the output.

--prior normal puts β_j ~ N(0, s1²) on every coefficient, s1 = --slab-sd.
--prior spike-slab (the default) is George and McCulloch's continuous
spike-and-slab (SSVS): β_j ~ w·N(0, s1²) + (1 − w)·N(0, s0²), w =
--slab-weight, s0 = --spike-sd, s1 = --slab-sd. The defaults:
  s1 = 1: on the standardised scale a single feature that explains all of
    the response's variance has β = 1, so N(0, 1) covers every plausible
    effect without favouring large ones;
  s0 = 0.02: the spike and slab densities cross at |β| ≈ 0.056 (for
    w = 1/2: s0·√(2 ln(s1/s0)·s1²/(s1² − s0²))), so the spike holds the
    effects that explain under 0.3% of the response's variance, practically
    zero; a narrower spike raises the curvature 1/s0², and with it the cost
    of every step (the step size falls as 1/λ_max);
  w = 1/2: every inclusion pattern is a priori equally likely (uniform over
    the 2^p models).
The table adds, per coefficient, its posterior inclusion probability
P(γ_j = 1 | y), Rao–Blackwellised: the average over draws of
P(γ_j = 1 | β_j), written to the chain files as inclusion_<name>.

With σ fixed the posterior is exactly a mixture of 2^p Gaussians, one per
inclusion pattern, with weights and moments from XᵀX and Xᵀy. For p ≤ 20
(2^20 patterns: seconds at p = 20, a minute with --exact's quantiles)
every run computes it and prints its distance to it: the largest
|mean − exact mean|/exact sd and the largest inclusion-probability error,
each with its Monte Carlo standard error. --exact also prints the exact
table (mean, sd, inclusion, 5/50/95% quantiles from the mixture's CDF, the
heaviest patterns) and writes exact_mean, exact_sd and exact_inclusion per
coefficient into summary.json.

--method auto (the default) runs the ladder for spike-and-slab, whose
posterior is multimodal where the data leave coefficients undecided between
spike and slab (f-reSGLD, with the swap energies chosen as --swap-energies
auto says below), and a single corrected chain (corrected) for the normal
prior, whose posterior is Gaussian: a hot chain would find no other mode to
bring. It prints a line saying which and why. Other methods: sgld,
corrected, resgld, mresgld, fresgld, and csgld: cyclical SGLD (Zhang et
al., ICLR 2020), one SGLD chain whose step size runs in cycles of --cycle
steps (auto: the run in 20 cycles) from η0 = 2η down to 0 along a cosine,
η_k = (η0/2)[cos(π·(k mod L)/L) + 1], so its mean step is η; the first
--explore share of each cycle steps without noise (stochastic gradient
descent to a mode) and only the rest are samples, so a run keeps about
(1 − --explore)·--keep draws.

The step size (--eta auto) is 0.2/λ_max with λ_max ≤ λ_max(XᵀX)/σ² + 1/s0²
(1/s1² for the normal prior), a bound on the Hessian over all β (the prior's
curvature never exceeds its spike's). The run length (--burn auto, --thin
auto) is logistic's rule on the slowest direction, λ_min(XᵀX)/σ² + 1/s1²,
within the same budget. Minibatches, swaps, outputs and warnings are as for
logistic (see fresgld logistic --help): chain-<c>.csv, summary.txt,
summary.json, figures, report.html; summary.json records prior, slab_weight, spike_sd,
slab_sd and noise_sd, and per coefficient the inclusion probability.

`

func init() {
	f := &regressFlags{}
	cmd := &cobra.Command{
		Use:   "regress",
		Short: "Bayesian linear regression (normal or spike-and-slab prior) on your CSV data, with its exact posterior",
		Long:  regressLong + swapModeRule,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runRegress(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Data, "data", "", "CSV file of features and a numeric response (required)")
	fl.StringVar(&f.Label, "label", "", "response column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoHeader, "no-header", false, "the first line is data, not column names")
	f.NoiseSDAuto = true
	fl.Var(autoFloat{&f.NoiseSD, &f.NoiseSDAuto}, "noise-sd", "noise sd σ on the standardised scale (auto: the least-squares fit's residual standard error)")
	fl.StringVar(&f.Prior, "prior", "spike-slab", "prior of each coefficient: normal or spike-slab")
	fl.Float64Var(&f.SlabWeight, "slab-weight", defaultSlabWeight, "spike-and-slab: prior probability w of the slab")
	fl.Float64Var(&f.SpikeSD, "spike-sd", defaultSpikeSD, "spike-and-slab: sd s0 of the spike")
	fl.Float64Var(&f.SlabSD, "slab-sd", defaultSlabSD, "sd s1 of the slab (of the normal prior with --prior normal)")
	fl.BoolVar(&f.Exact, "exact", false, "print the exact posterior's table and write it into summary.json (p ≤ 20)")
	f.MethodAuto = true
	fl.Var(autoString{&f.Method, &f.MethodAuto}, "method", "sampler: auto, sgld, corrected, resgld, mresgld, fresgld or csgld (auto: see above)")
	fl.StringVar(&f.Correction, "correction", "diagonal", "fresgld's noise correction: diagonal or full")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau2, "tau2", 4, "hot temperature τ2")
	f.EtaAuto, f.BatchAuto, f.HotBatchAuto = true, true, true
	fl.Var(autoFloat{&f.Eta, &f.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoInt{&f.Batch, &f.BatchAuto}, "batch", "cold minibatch size (auto: as logistic's)")
	fl.Var(autoInt{&f.HotBatch, &f.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: sized so its gradient noise supplies --hot-share of the noise budget)")
	fl.Float64Var(&f.Share, "hot-share", 0.9, "automatic hot minibatch: share of the noise budget its gradient noise supplies")
	fl.Float64Var(&f.SwapPerStep, "swap-rate", 0.1, "probability a·η of a swap attempt per step")
	fl.StringVar(&f.SwapEnergies, "swap-energies", "auto", "swap energies: auto, draw, minibatch, cv, pair, pair-cv, exact, taylor or pair-taylor")
	fl.Float64Var(&f.SwapNoiseCap, "swap-noise-cap", 2, "decline swap attempts whose swap noise τδ²V/2 exceeds this many nats (0: never)")
	fl.IntVar(&f.ExactEvery, "exact-every", 0, "steps between exact swap attempts (0: ⌈8N/n⌉)")
	fl.IntVar(&f.SwapPilot, "swap-pilot", 2000, "steps of the pilot run of --swap-energies auto")
	fl.IntVar(&f.Levels, "levels", 2, "temperature levels, geometric from 1 to --tau2")
	f.CycleAuto = true
	fl.Var(autoInt{&f.Cycle, &f.CycleAuto}, "cycle", "csgld: steps a cycle (auto: the run in 20 cycles)")
	fl.Float64Var(&f.Explore, "explore", 0.5, "csgld: share β of each cycle that explores without noise")
	f.BurnAuto, f.ThinAuto = true, true
	fl.Var(autoInt{&f.Burn, &f.BurnAuto}, "burn", "steps discarded before recording (auto: from the slowest direction's relaxation)")
	fl.IntVar(&f.Keep, "keep", 5000, "samples retained")
	fl.Var(autoInt{&f.Thin, &f.ThinAuto}, "thin", "steps between retained samples (auto: bulk ESS of 200 per chain in the slowest direction, within the budget)")
	addChainFlags(fl, &f.chainFlags)
	fl.StringVar(&f.Out, "out", "out/regress", "output directory")
	rootCmd.AddCommand(cmd)
}

// csgldCycles is the number of cycles of --method csgld with --cycle auto.
const csgldCycles = 20

// regressMethods are the samplers regress offers (reld needs exact
// energies on every level; a minibatch has none).
var regressMethods = []exchange.Method{exchange.SGLDMethod, exchange.CorrectedMethod, exchange.ReSGLDMethod, exchange.MReSGLDMethod, exchange.FReSGLDMethod, exchange.CSGLDMethod}

// prior is the prior the flags set.
func (f *regressFlags) prior() models.SlabPrior {
	if f.Prior == "normal" {
		return models.SlabPrior{W: 1, Slab: f.SlabSD}
	}
	return models.SlabPrior{W: f.SlabWeight, Spike: f.SpikeSD, Slab: f.SlabSD}
}

// validate checks every flag that does not need the data, before any work.
func (f *regressFlags) validate() error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no response column given (a header name or a column number from 1)")
	}
	if f.Prior != "normal" && f.Prior != "spike-slab" {
		return fmt.Errorf("--prior %q: want normal or spike-slab", f.Prior)
	}
	if err := positive("--slab-sd", f.SlabSD); err != nil {
		return err
	}
	if f.Prior == "spike-slab" {
		if !(f.SlabWeight > 0 && f.SlabWeight < 1) {
			return fmt.Errorf("--slab-weight = %v: must lie in (0, 1) (1 is --prior normal)", f.SlabWeight)
		}
		if err := positive("--spike-sd", f.SpikeSD); err != nil {
			return err
		}
		if !(f.SpikeSD < f.SlabSD) {
			return fmt.Errorf("--spike-sd = %v: must be below --slab-sd = %v", f.SpikeSD, f.SlabSD)
		}
	}
	if !f.NoiseSDAuto {
		if err := positive("--noise-sd", f.NoiseSD); err != nil {
			return fmt.Errorf("%w (or auto)", err)
		}
	}
	if !f.MethodAuto {
		m, err := exchange.ParseMethod(f.Method)
		if err != nil || !containsMethod(regressMethods, m) {
			return fmt.Errorf("--method %q: want auto, sgld, corrected, resgld, mresgld, fresgld or csgld", f.Method)
		}
	}
	if _, err := parseCorrection(f.Correction, f.method()); err != nil {
		return err
	}
	if _, err := f.chainFlags.ids(); err != nil {
		return err
	}
	if err := firstError(positive("--tau2", f.Tau2), within("--swap-rate", f.SwapPerStep, 0, 1), f.runSize(1)); err != nil {
		return err
	}
	if !(f.Tau2 > 1) || f.Tau2 > maxTau2 {
		return fmt.Errorf("--tau2 = %v: must lie in (1, %g]", f.Tau2, maxTau2)
	}
	if f.SwapEnergies != "auto" {
		if _, err := exchange.ParseEnergyMode(f.SwapEnergies); err != nil {
			return fmt.Errorf("--swap-energies: %w", err)
		}
	}
	if f.Levels < 2 || f.Levels > maxLevels {
		return fmt.Errorf("--levels = %d: need 2 to %d", f.Levels, maxLevels)
	}
	if !(f.SwapNoiseCap >= 0) || math.IsInf(f.SwapNoiseCap, 1) {
		return fmt.Errorf("--swap-noise-cap = %v: must be a number of nats ≥ 0 (0: no cap)", f.SwapNoiseCap)
	}
	if f.ExactEvery < 0 || f.SwapPilot < 1 || f.SwapPilot > maxSteps {
		return fmt.Errorf("--exact-every = %d, --swap-pilot = %d: must be ≥ 0 and in [1, %d]", f.ExactEvery, f.SwapPilot, maxSteps)
	}
	if !(f.Share > 0 && f.Share <= 1) {
		return fmt.Errorf("--hot-share = %v: must lie in (0, 1]", f.Share)
	}
	if !(f.Explore >= 0 && f.Explore < 1) {
		return fmt.Errorf("--explore = %v: must lie in [0, 1) (1 would never sample)", f.Explore)
	}
	if !f.CycleAuto && f.Cycle < 2 {
		return fmt.Errorf("--cycle = %d: must be ≥ 2 (or auto)", f.Cycle)
	}
	if !f.EtaAuto {
		if err := positive("--eta", f.Eta); err != nil {
			return fmt.Errorf("%w (or auto)", err)
		}
	}
	for _, b := range []struct {
		flag string
		v    int
		auto bool
	}{{"--batch", f.Batch, f.BatchAuto}, {"--hot-batch", f.HotBatch, f.HotBatchAuto}} {
		if !b.auto && b.v < 1 {
			return fmt.Errorf("%s = %d: must be ≥ 1 (or auto)", b.flag, b.v)
		}
	}
	return nil
}

func containsMethod(ms []exchange.Method, m exchange.Method) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// runSize is logisticFlags.runSize for regress.
func (f *regressFlags) runSize(dim int) error {
	burn, thin := f.Burn, f.Thin
	if f.BurnAuto {
		burn = 0
	}
	if f.ThinAuto {
		thin = 1
	}
	return runSize(burn, f.Keep, thin, dim)
}

// method is the sampler the flags ask for, --method auto resolved by the
// prior.
func (f *regressFlags) method() exchange.Method {
	switch {
	case !f.MethodAuto:
		m, _ := exchange.ParseMethod(f.Method)
		return m
	case f.Prior == "normal":
		return exchange.CorrectedMethod
	}
	return exchange.FReSGLDMethod
}

// chooseMethod resolves --method auto by the prior, records the choice in
// the flags and says why.
func (f *regressFlags) chooseMethod() (exchange.Method, string) {
	m := f.method()
	if !f.MethodAuto {
		return m, "set by --method"
	}
	f.Method = string(m)
	if m == exchange.CorrectedMethod {
		return m, "auto: the normal prior's posterior is Gaussian (log-concave, one mode), so a hot chain would find no other mode to bring; one corrected chain per chain. --method fresgld runs a ladder"
	}
	return m, "auto: the spike-and-slab posterior is a mixture over the 2^p inclusion patterns, with a mode for each pattern the data leave undecided; the ladder's hot chain crosses between them. --method corrected runs a single chain"
}

// regressSummary is summary.json of a regression run.
type regressSummary struct {
	Settings     *regressFlags         `json:"settings"`
	N            int                   `json:"examples"`
	Names        []string              `json:"coefficients"`
	Label        string                `json:"label"`
	FeatureMean  []float64             `json:"feature_means"`
	FeatureSD    []float64             `json:"feature_sds"`
	ResponseMean float64               `json:"response_mean"`
	ResponseSD   float64               `json:"response_sd"`
	Prior        string                `json:"prior"`
	SlabWeight   float64               `json:"slab_weight"`
	SpikeSD      float64               `json:"spike_sd,omitempty"`
	SlabSD       float64               `json:"slab_sd"`
	NoiseSD      float64               `json:"noise_sd"`
	NoiseRule    string                `json:"noise_sd_rule"`
	MethodRule   string                `json:"method_rule"`
	StepRule     string                `json:"step_rule,omitempty"`
	BatchRule    string                `json:"batch_rule,omitempty"`
	RunRule      string                `json:"run_length_rule,omitempty"`
	Coef         []coefRow             `json:"per_coefficient"`
	Patterns     []patternRow          `json:"exact_patterns,omitempty"`
	Distance     *exactDistance        `json:"distance_to_exact,omitempty"`
	HotBatch     []*variance.AutoStats `json:"hot_batch_automatic,omitempty"`
	WallSeconds  float64               `json:"wall_seconds"`
	swapSummary
	chainsSummary
}

// coefRow is one coefficient's line of summary.json: the sampled mean,
// sd and inclusion probability, and the exact ones when computed.
type coefRow struct {
	Name           string   `json:"variable"`
	Mean           jsonNum  `json:"mean"`
	SD             jsonNum  `json:"sd"`
	Inclusion      jsonNum  `json:"inclusion"`
	InclusionMCSE  jsonNum  `json:"inclusion_mcse"`
	ExactMean      *float64 `json:"exact_mean,omitempty"`
	ExactSD        *float64 `json:"exact_sd,omitempty"`
	ExactInclusion *float64 `json:"exact_inclusion,omitempty"`
	ExactQ5        *float64 `json:"exact_q5,omitempty"`
	ExactQ50       *float64 `json:"exact_q50,omitempty"`
	ExactQ95       *float64 `json:"exact_q95,omitempty"`
}

type patternRow struct {
	Included []string `json:"included"`
	Weight   float64  `json:"weight"`
}

// exactDistance is a run's distance to the exact posterior.
type exactDistance struct {
	MeanErr          jsonNum `json:"max_mean_error_sds"` // max_j |mean_j − exact_j|/exact sd_j
	MeanErrMCSE      jsonNum `json:"max_mean_error_mcse"`
	MeanErrVar       string  `json:"max_mean_error_variable"`
	InclusionErr     jsonNum `json:"max_inclusion_error"`
	InclusionErrMCSE jsonNum `json:"max_inclusion_error_mcse"`
	InclusionErrVar  string  `json:"max_inclusion_error_variable"`
}

// inclusionCol names coefficient name's inclusion column.
func inclusionCol(name string) string { return "inclusion_" + name }

// generated reports whether a command's chain column is a generated
// quantity (a function of a draw) rather than a parameter the sampler
// moves: regress's inclusion columns.
func generated(command, column string) bool {
	return command == "regress" && strings.HasPrefix(column, "inclusion_")
}

// residualSD is the least-squares fit's residual standard error
// √(RSS/(N − p − 1)) on standardised data (the −1 for the centring).
func residualSD(x, y []float64, N, p int) (float64, error) {
	if N <= p+1 {
		return 0, fmt.Errorf("%d examples for %d coefficients: the least-squares fit leaves no residual degrees of freedom (need N > p + 1)", N, p)
	}
	X := mat.NewDense(N, p, x)
	var xtx mat.SymDense
	xtx.SymOuterK(1, X.T())
	var ch mat.Cholesky
	if !ch.Factorize(&xtx) {
		return 0, errors.New("the features are collinear (XᵀX is singular): no least-squares fit")
	}
	var xty, beta mat.VecDense
	xty.MulVec(X.T(), mat.NewVecDense(N, y))
	if err := ch.SolveVecTo(&beta, &xty); err != nil {
		return 0, fmt.Errorf("the least-squares fit: %v", err)
	}
	var rss float64
	for i := range N {
		r := y[i] - mat.Dot(X.RowView(i), &beta)
		rss += r * r
	}
	s := math.Sqrt(rss / float64(N-p-1))
	if !(s > 0) {
		return 0, errors.New("the least-squares fit is exact (residual sd 0): the response is a linear function of the features")
	}
	return s, nil
}

// regressCurvature bounds the Hessian of U: λ_max ≤ λ_max(XᵀX)/σ² + c0
// over all β (c0 the prior's largest curvature, 1/s0² or 1/s1²) and the
// slowest direction λ_min(XᵀX)/σ² + 1/s1² (the prior at its flattest).
// It also returns the normal-prior posterior mode, the start's distance
// from which sets the burn-in.
func regressCurvature(x, y []float64, N, p int, sigma float64, pr models.SlabPrior) (lmin, lmax float64, dist float64, err error) {
	X := mat.NewDense(N, p, x)
	var h mat.SymDense
	h.SymOuterK(1/(sigma*sigma), X.T())
	var es mat.EigenSym
	if !es.Factorize(&h, false) {
		return 0, 0, 0, errors.New("the eigenvalues of XᵀX did not converge")
	}
	ev := es.Values(nil)
	c1 := 1 / (pr.Slab * pr.Slab)
	c0 := c1
	if !pr.Normal() {
		c0 = 1 / (pr.Spike * pr.Spike)
	}
	lmin, lmax = ev[0]+c1, ev[len(ev)-1]+c0
	// D² = mᵀ A m for the slab's Gaussian posterior N(m, A⁻¹), A = H + I/s1²:
	// the Mahalanobis distance of the start, 0, from its mode.
	for j := range p {
		h.SetSym(j, j, h.At(j, j)+c1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&h) {
		return lmin, lmax, 0, nil
	}
	var b, m mat.VecDense
	b.MulVec(X.T(), mat.NewVecDense(N, y))
	b.ScaleVec(1/(sigma*sigma), &b)
	if err := ch.SolveVecTo(&m, &b); err != nil {
		return lmin, lmax, 0, nil
	}
	return lmin, lmax, math.Sqrt(math.Max(0, mat.Dot(&m, &b))), nil
}

func runRegress(cmd *cobra.Command, f *regressFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	// Settings that the prior or method would ignore are errors, not
	// silently dropped.
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
	stderr := cmd.ErrOrStderr()
	defer debug.SetGCPercent(debug.SetGCPercent(runGCPercent))
	d, err := readData(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, Response: true})
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	for _, w := range d.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	ym, ysd, err := d.StandardizeResponse()
	if err != nil {
		return fmt.Errorf("--data %s: %w", f.Data, err)
	}
	x, p, names := d.X, d.P, d.Names
	for _, n := range names {
		for _, o := range names {
			if inclusionCol(n) == o {
				return fmt.Errorf("--data %s: column %q has the name of the inclusion column of %q; rename it", f.Data, o, n)
			}
		}
	}
	if f.Exact && p > models.MaxExactDim {
		return fmt.Errorf("--exact: %d coefficients; the exact posterior enumerates 2^p inclusion patterns, p ≤ %d", p, models.MaxExactDim)
	}
	pr := f.prior()
	sum := regressSummary{Settings: f, N: d.N, Names: names, Label: d.Label, FeatureMean: d.Means, FeatureSD: d.SDs,
		ResponseMean: ym, ResponseSD: ysd, Prior: f.Prior, SlabWeight: pr.W, SpikeSD: pr.Spike, SlabSD: pr.Slab}
	if f.NoiseSDAuto {
		s, err := residualSD(x, d.Y, d.N, p)
		if err != nil {
			return fmt.Errorf("--noise-sd auto: %w; give --noise-sd", err)
		}
		f.NoiseSD = s
		sum.NoiseRule = fmt.Sprintf("auto: the least-squares fit's residual standard error √(RSS/(N − p − 1)) = %.4g on the standardised scale", s)
	} else {
		sum.NoiseRule = "set by --noise-sd"
	}
	sum.NoiseSD = f.NoiseSD
	lr, err := models.NewLinReg(x, d.Y, p, f.NoiseSD, pr)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Data, err)
	}
	m, why := f.chooseMethod()
	sum.MethodRule = why
	corr, err := parseCorrection(f.Correction, m)
	if err != nil {
		return err
	}
	fmt.Printf("noise sd σ = %.4g (%s)\n", f.NoiseSD, sum.NoiseRule)
	fmt.Printf("method: %s (%s)\n", m, why)
	lmin, lmax, dist, err := regressCurvature(x, d.Y, d.N, p, f.NoiseSD, pr)
	if err != nil {
		return fmt.Errorf("--data %s: %w", f.Data, err)
	}
	if f.EtaAuto {
		f.Eta = 0.2 / lmax
		sum.StepRule = fmt.Sprintf("η = 0.2/λ_max, λ_max ≤ λ_max(XᵀX)/σ² + (largest prior curvature) = %.4g over all β", lmax)
	}
	if f.BatchAuto {
		n, nstar, s2, err := coldSize(lr, [][]float64{make([]float64, p)}, f.Eta, 1, f.Seed)
		if err != nil {
			return fmt.Errorf("automatic --batch: %w", err)
		}
		sum.BatchRule = fmt.Sprintf("n = ⌈n*⌉ in [%d, %d]: n* = %.4g gives gradient noise %.0f%% of the budget 2τη at S²_max = %.4g", coldMin, coldMax, nstar, 100*coldShare, s2)
		if float64(n) < nstar && f.EtaAuto {
			f.Eta = etaFor(d.N, n, s2, 1, coldShare)
			sum.StepRule += fmt.Sprintf("; lowered to η = %.4g, at which n = %d meets the batch rule", f.Eta, n)
		}
		f.Batch = n
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--batch", f.Batch}, {"--hot-batch", f.HotBatch}} {
		if b.v > d.N {
			return fmt.Errorf("%s = %d: the data have %d examples", b.flag, b.v, d.N)
		}
	}
	var extra []string
	if f.BurnAuto || f.ThinAuto {
		r, ok := runLengthFor(f.Eta, lmin, dist, f.Keep, f.Batch, p)
		switch {
		case !ok:
			if f.BurnAuto {
				f.Burn = fallbackBurn
			}
			if f.ThinAuto {
				f.Thin = fallbackThin
			}
			sum.RunRule = fmt.Sprintf("fixed burn %d, thin %d: the rule needs 0 < ηλ_min < 1 (λ_min = %.4g, η = %.4g)", f.Burn, f.Thin, lmin, f.Eta)
		case f.BurnAuto && f.ThinAuto:
			f.Burn, f.Thin = r.Burn, r.Thin
			if w := r.warning(f.Keep); w != "" {
				fmt.Fprintln(stderr, "warning:", w)
				extra = append(extra, w)
			}
		case f.BurnAuto:
			f.Burn = r.NeedBurn
		default:
			f.Thin = r.NeedThin
		}
		if ok {
			sum.RunRule = r.note() + fmt.Sprintf("; running burn %d, thin %d", f.Burn, f.Thin)
		}
		if err := f.runSize(p); err != nil {
			return err
		}
	}
	if f.SwapPerStep/f.Eta > 0 && !(f.SwapPerStep/f.Eta < math.Inf(1)) {
		return fmt.Errorf("--swap-rate = %v with η = %v: the swap intensity a = rate/η overflows", f.SwapPerStep, f.Eta)
	}
	// The exact posterior after every check of the settings: at p = 20 it
	// takes seconds.
	var exact *models.LinRegExact
	if p <= models.MaxExactDim {
		if exact, err = lr.Exact(); err != nil {
			return err
		}
	}
	ids, _ := f.chainFlags.ids()
	hotStart := f.HotBatch
	if hotStart == 0 {
		hotStart = f.Batch
	}
	var eta langevin.Schedule = langevin.Constant{Step: f.Eta}
	var sample func(step int) bool
	if m == exchange.CSGLDMethod {
		if f.CycleAuto {
			f.Cycle = max(2, (f.Burn+f.Keep*f.Thin+csgldCycles-1)/csgldCycles)
		}
		c := langevin.Cyclical{Eta0: 2 * f.Eta, Cycle: f.Cycle, Explore: f.Explore}
		eta = c
		// Step s (from 1) leaves the state of step k = s − 1.
		sample = func(step int) bool { return !c.Exploring(step - 1) }
		fmt.Printf("cyclical SGLD: %d steps a cycle, η0 = %.4g, exploration %.0f%% of each cycle\n", f.Cycle, c.Eta0, 100*f.Explore)
	}
	autos := map[int]*variance.AutoBatch{}
	var energies exchange.Energies
	// buildWith makes chain id's ladder, as logistic's does: minibatches,
	// variance models and random streams of its own.
	buildWith := func(id int, energies exchange.Energies) (*exchange.Sampler, error) {
		cold, err := energy.NewMinibatch(lr, f.Batch)
		if err != nil {
			return nil, fmt.Errorf("--batch: %w", err)
		}
		hot, err := energy.NewMinibatch(lr, hotStart)
		if err != nil {
			return nil, fmt.Errorf("--hot-batch: %w", err)
		}
		energies.Terms = lr
		setup := exchange.Setup{
			Tau1: 1, Tau2: f.Tau2, Levels: f.Levels, Eta: eta, Cold: cold, Hot: hot,
			A: f.SwapPerStep / f.Eta, A1: 0.5, Seed: exchange.ChainSeed(f.Seed, id), Correction: corr,
			Energies: energies,
		}
		if f.HotBatchAuto {
			delete(autos, id)
			setup.HotVarAt = func(est energy.Estimator, tau float64) (variance.Model, error) {
				mb, ok := est.(*energy.Minibatch)
				if !ok {
					return nil, fmt.Errorf("hot estimator %T is not a minibatch", est)
				}
				a, err := variance.NewAutoBatch(mb, tau, eta, hotOptions(f.Share))
				if err != nil {
					return nil, fmt.Errorf("--hot-share: %w", err)
				}
				if autos[id] == nil {
					autos[id] = a
				}
				return a, nil
			}
		}
		cfg, err := m.Config(setup)
		if err != nil {
			return nil, err
		}
		inits := make([][]float64, len(cfg.Levels))
		for l := range inits {
			inits[l] = make([]float64, p)
		}
		return exchange.New(cfg, inits)
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	ladder := m != exchange.SGLDMethod && m != exchange.CorrectedMethod && m != exchange.CSGLDMethod
	if ladder {
		pilot := func(e exchange.Energies) (pilotResult, error) {
			// Chain 1's stream whichever chains run, so that a chain's
			// draws do not depend on the chains run beside it.
			smp, err := buildWith(1, e)
			if err != nil {
				return pilotResult{}, err
			}
			return runPilot(ctx, smp, f.SwapPilot)
		}
		ch, err := chooseSwapEnergies(f.SwapEnergies, d.N, f.Batch, f.ExactEvery, f.SwapPerStep, pilot)
		if err != nil {
			return err
		}
		ch.Energies.MaxNoise = f.SwapNoiseCap
		energies, sum.Swap = ch.Energies, &ch
		fmt.Fprintf(stderr, "swap energies: %s (%s)\n", ch.Mode, ch.Rule)
	}
	settings, err := settingsOf(f)
	if err != nil {
		return err
	}
	out, err := output.Prepare(f.Out, chainStale(f.Out, ids, f.Chain > 0)...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	// Under the normal prior every coefficient is in the slab: no
	// inclusion columns.
	var incl []string
	var gen func(out, theta []float64)
	if !pr.Normal() {
		for _, n := range names {
			incl = append(incl, inclusionCol(n))
		}
		gen = func(out, theta []float64) {
			for j, b := range theta {
				out[j] = pr.Inclusion(b)
			}
		}
	}
	run := chainRun{
		Header:     chainHeader{Command: "regress", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      names,
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        func(id int) (*exchange.Sampler, error) { return buildWith(id, energies) },
		LogDensity: logDensity(lr, f.Seed),
		Generated:  incl,
		Generate:   gen,
		Sample:     sample,
		Dir:        out,
		Ctx:        ctx,
		Label:      "regress " + f.Method,
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
	for _, id := range ids {
		if a := autos[id]; a != nil && m != exchange.ReSGLDMethod && ladder {
			st := a.Stats()
			sum.HotBatch = append(sum.HotBatch, &st)
			if w := a.Warning(); w != "" {
				extra = append(extra, fmt.Sprintf("chain %d: %s", id, w))
			}
		}
	}
	fmt.Printf("%s on %s (%d examples, %d coefficients, %s prior), %d chain(s) in %.1fs:\n", f.Method, f.Data, d.N, p, f.Prior, len(ids), sum.WallSeconds)
	if sum.Swap != nil {
		extra = append(extra, reportSwaps(chains, &sum.swapSummary)...)
	}
	// The comparison with the exact posterior needs the table's rows,
	// which finishChains computes again from the same chains.
	if s, err := summarizeChains(chains); err == nil && s.Draws > 0 {
		sum.Coef, sum.Distance = compareExact(s, names, exact, f.Exact)
		if exact != nil {
			if f.Exact {
				writeExactTable(os.Stdout, names, exact, sum.Coef, pr.Normal())
				for _, pt := range exact.Patterns[:min(len(exact.Patterns), 5)] {
					sum.Patterns = append(sum.Patterns, patternOf(pt, names))
				}
			}
			if sum.Distance != nil {
				fmt.Println(sum.Distance.line(f.Prior == "normal"))
			}
		}
	}
	if err := finishChains(stderr, out, chains, &sum.chainsSummary, &sum, writeErr, extra); err != nil {
		return err
	}
	return run.finished(ids)
}

// compareExact reads each coefficient's sampled mean, sd and inclusion
// (with its MCSE) from the table s, beside the exact values when exact is
// set (quantiles only with withQuantiles), and the largest errors.
func compareExact(s chainsSummary, names []string, exact *models.LinRegExact, withQuantiles bool) ([]coefRow, *exactDistance) {
	row := map[string]paramRow{}
	for _, r := range s.Parameters {
		row[r.Name] = r
	}
	var rows []coefRow
	var dist *exactDistance
	if exact != nil {
		dist = &exactDistance{MeanErr: -1, InclusionErr: -1}
	}
	for j, n := range names {
		b, in := row[n], row[inclusionCol(n)]
		if _, ok := row[inclusionCol(n)]; !ok { // the normal prior
			in.Mean, in.MCSEMean = 1, math.NaN()
		}
		c := coefRow{Name: n, Mean: jsonNum(b.Mean), SD: jsonNum(b.SD), Inclusion: jsonNum(in.Mean), InclusionMCSE: jsonNum(in.MCSEMean)}
		if exact != nil {
			em, es, ei := exact.Mean[j], exact.SD[j], exact.Inclusion[j]
			if withQuantiles {
				q5, q50, q95 := exact.Quantile(j, 0.05), exact.Quantile(j, 0.5), exact.Quantile(j, 0.95)
				c.ExactMean, c.ExactSD, c.ExactInclusion = &em, &es, &ei
				c.ExactQ5, c.ExactQ50, c.ExactQ95 = &q5, &q50, &q95
			}
			if e := jsonNum(math.Abs(b.Mean-em) / es); e > dist.MeanErr || math.IsNaN(float64(e)) {
				dist.MeanErr, dist.MeanErrMCSE, dist.MeanErrVar = e, jsonNum(b.MCSEMean/es), n
			}
			if e := jsonNum(math.Abs(in.Mean - ei)); e > dist.InclusionErr || math.IsNaN(float64(e)) {
				dist.InclusionErr, dist.InclusionErrMCSE, dist.InclusionErrVar = e, jsonNum(in.MCSEMean), n
			}
		}
		rows = append(rows, c)
	}
	return rows, dist
}

// line is the distance's one-line report.
func (d *exactDistance) line(normal bool) string {
	s := fmt.Sprintf("distance to exact: largest |mean − exact|/sd %.3g (%s, MCSE %.2g)", d.MeanErr, d.MeanErrVar, d.MeanErrMCSE)
	if !normal {
		s += fmt.Sprintf(", largest inclusion error %.3g (%s, MCSE %.2g)", d.InclusionErr, d.InclusionErrVar, d.InclusionErrMCSE)
	}
	return s
}

// writeExactTable prints the exact posterior beside the sampled mean and
// inclusion probability, and the heaviest inclusion patterns.
func writeExactTable(w io.Writer, names []string, exact *models.LinRegExact, rows []coefRow, normal bool) {
	width := len("variable")
	for _, n := range names {
		width = max(width, len(n))
	}
	if normal {
		fmt.Fprintln(w, "exact posterior (σ fixed; Gaussian):")
	} else {
		fmt.Fprintf(w, "exact posterior (σ fixed; %d inclusion patterns, %d below e^-50 of the heaviest left out):\n", exact.Enumerated, exact.Neglected)
	}
	if normal {
		fmt.Fprintf(w, "%-*s %10s %9s %10s %10s %10s │ %10s %9s\n", width, "variable", "mean", "sd", "5%", "50%", "95%", "run mean", "run sd")
		for j, n := range names {
			r := rows[j]
			fmt.Fprintf(w, "%-*s %10.4g %9.3g %10.4g %10.4g %10.4g │ %10.4g %9.3g\n", width, n, exact.Mean[j], exact.SD[j], *r.ExactQ5, *r.ExactQ50, *r.ExactQ95, r.Mean, r.SD)
		}
		return
	}
	fmt.Fprintf(w, "%-*s %10s %9s %10s %10s %10s %9s │ %10s %9s %9s\n", width, "variable", "mean", "sd", "5%", "50%", "95%", "inclusion", "run mean", "run incl", "mcse")
	for j, n := range names {
		r := rows[j]
		fmt.Fprintf(w, "%-*s %10.4g %9.3g %10.4g %10.4g %10.4g %9.4f │ %10.4g %9.4f %9.2g\n", width, n, exact.Mean[j], exact.SD[j], *r.ExactQ5, *r.ExactQ50, *r.ExactQ95, exact.Inclusion[j], r.Mean, r.Inclusion, r.InclusionMCSE)
	}
	for k, pt := range exact.Patterns[:min(len(exact.Patterns), 5)] {
		pr := patternOf(pt, names)
		fmt.Fprintf(w, "pattern %d: weight %.4f, slab: %s\n", k+1, pr.Weight, joinNames(pr.Included))
	}
}

func patternOf(pt models.LinRegPattern, names []string) patternRow {
	r := patternRow{Weight: pt.Weight, Included: []string{}}
	for j, in := range pt.Include {
		if in {
			r.Included = append(r.Included, names[j])
		}
	}
	return r
}

func joinNames(ns []string) string {
	if len(ns) == 0 {
		return "(none)"
	}
	s := ns[0]
	for _, n := range ns[1:] {
		s += " " + n
	}
	return s
}

// autoString is autoFloat for a name: "auto" leaves the choice to the
// command, which records what it chose.
type autoString struct {
	v    *string
	auto *bool
}

func (a autoString) String() string {
	if a.auto == nil || *a.auto {
		return "auto"
	}
	return *a.v
}

func (a autoString) Set(s string) error {
	*a.auto, *a.v = s == "auto", s
	if s == "auto" {
		*a.v = ""
	}
	return nil
}

func (autoString) Type() string { return "string|auto" }

// jsonNum is a float64 that marshals NaN and ±Inf (an undefined MCSE, of
// a constant inclusion probability) as null, as diag.Summary does.
type jsonNum float64

func (x jsonNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}
