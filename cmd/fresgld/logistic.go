package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/target"
	"github.com/fresgld/fresgld/variance"
)

// logisticFlags are the settings of a logistic-regression run.
type logisticFlags struct {
	Data          string  `json:"data"`
	Label         string  `json:"label"`
	NoHeader      bool    `json:"no_header"`
	NoStandardize bool    `json:"no_standardize"`
	NoIntercept   bool    `json:"no_intercept"`
	PriorSD       float64 `json:"prior_sd"`
	Method        string  `json:"method"`
	Seed          uint64  `json:"seed"`
	Tau2          float64 `json:"tau2"`
	Eta           float64 `json:"eta"` // the step size used
	EtaAuto       bool    `json:"eta_automatic"`
	Batch         int     `json:"batch"` // cold minibatch
	BatchAuto     bool    `json:"batch_automatic"`
	HotBatch      int     `json:"hot_batch"` // 0 with HotBatchAuto: sized as the run goes
	HotBatchAuto  bool    `json:"hot_batch_automatic"`
	Share         float64 `json:"hot_share"`
	SwapPerStep   float64 `json:"swap_probability_per_step"`
	SwapBatch     int     `json:"swap_batch"` // 0 with SwapBatchAuto: the chain's own n
	SwapBatchAuto bool    `json:"swap_batch_automatic"`
	Burn          int     `json:"burn"`
	Keep          int     `json:"keep"`
	Thin          int     `json:"thin"`
	Out           string  `json:"-"`
}

// logisticSummary is summary.json of a logistic-regression run.
type logisticSummary struct {
	Settings    *logisticFlags `json:"settings"`
	N           int            `json:"examples"`
	Names       []string       `json:"coefficients"`
	Label       string         `json:"label"`
	FeatureMean []float64      `json:"feature_means,omitempty"`
	FeatureSD   []float64      `json:"feature_sds,omitempty"`
	Samples     int            `json:"samples"`
	Mean        []float64      `json:"posterior_mean"`
	SD          []float64      `json:"posterior_sd"`
	Evaluations struct {
		Cold, Hot, Total float64
	} `json:"per_example_evaluations"`
	SwapAttempts  int                 `json:"swap_attempts"`
	SwapAccepts   int                 `json:"swap_accepts"`
	ClampedCold   int64               `json:"clamped_steps_cold"`
	ClampedHot    int64               `json:"clamped_steps_hot"`
	HotBatch      *variance.AutoStats `json:"hot_batch_automatic,omitempty"`
	HotWarning    string              `json:"hot_batch_warning,omitempty"`
	Stats         exchange.Stats      `json:"stats"`
	WallSeconds   float64             `json:"wall_seconds"`
	Error         string              `json:"error,omitempty"`
	StepRuleNotes string              `json:"step_rule,omitempty"`
	Interrupted   bool                `json:"interrupted"` // stopped by SIGINT or SIGTERM: the samples so far
	Warnings      []string            `json:"warnings,omitempty"`
}

func init() {
	f := &logisticFlags{}
	cmd := &cobra.Command{
		Use:   "logistic",
		Short: "Bayesian logistic regression on your CSV data",
		Long: `logistic samples the posterior of a Bayesian logistic regression on a CSV
file: numeric feature columns and one 0/1 label column (--label, a header name
or a column number counted from 1). Features are standardised unless
--no-standardize; an intercept column is added unless --no-intercept; the prior
on every coefficient is N(0, --prior-sd²).

The cold chain (τ1 = 1, the posterior) steps on minibatches of --batch examples
(default ⌈N/10⌉); for resgld, mresgld and fresgld a hot chain at --tau2 steps on
--hot-batch examples, by default chosen automatically so that its gradient noise
supplies --hot-share of its noise budget. With --eta auto (the default) the
step size is 0.2/λ_max, λ_max the largest eigenvalue of the Hessian of the
negative log posterior at its mode.

It writes into --out: samples.csv (the cold chain's retained samples, one
column per coefficient), summary.json (settings, seed, swap and clamp counts,
per-example evaluations, wall time, posterior means and sds, the
standardisation's means and sds), trace.png/svg and marginals.png/svg.
Samples are written as they are taken: after an error, Ctrl-C (SIGINT) or
SIGTERM the files hold every sample taken, and the summary says the run was
interrupted; after kill -9, samples.csv holds all but the last second's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLogistic(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Data, "data", "", "CSV file of features and a 0/1 label (required)")
	fl.StringVar(&f.Label, "label", "", "label column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoHeader, "no-header", false, "the first line is data, not column names")
	fl.BoolVar(&f.NoStandardize, "no-standardize", false, "keep the features as they are")
	fl.BoolVar(&f.NoIntercept, "no-intercept", false, "do not add an intercept column")
	fl.Float64Var(&f.PriorSD, "prior-sd", 1, "prior standard deviation of each coefficient")
	fl.StringVar(&f.Method, "method", "fresgld", "sampler: sgld, resgld, mresgld or fresgld")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau2, "tau2", 4, "hot temperature τ2")
	f.EtaAuto, f.BatchAuto, f.HotBatchAuto, f.SwapBatchAuto = true, true, true, true
	fl.Var(autoFloat{&f.Eta, &f.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoInt{&f.Batch, &f.BatchAuto}, "batch", "cold minibatch size (auto: ⌈N/10⌉)")
	fl.Var(autoInt{&f.HotBatch, &f.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: sized so its gradient noise supplies --hot-share of the noise budget)")
	fl.Float64Var(&f.Share, "hot-share", 0.9, "automatic hot minibatch: share of the noise budget 2τ2η its gradient noise supplies")
	fl.Float64Var(&f.SwapPerStep, "swap-rate", 0.1, "probability a·η of a swap attempt per step")
	fl.Var(autoInt{&f.SwapBatch, &f.SwapBatchAuto}, "swap-batch", "examples per swap-ratio energy (auto: each chain's own minibatch size; the data size: exact energies)")
	fl.IntVar(&f.Burn, "burn", 2000, "steps discarded before recording")
	fl.IntVar(&f.Keep, "keep", 5000, "samples retained")
	fl.IntVar(&f.Thin, "thin", 2, "steps between retained samples")
	fl.StringVar(&f.Out, "out", "out/logistic", "output directory")
	rootCmd.AddCommand(cmd)
}

// logisticOutputs are the files logistic writes into --out; an earlier
// run's are removed before sampling.
var logisticOutputs = []string{"samples.csv", "summary.json", "trace.png", "trace.svg", "marginals.png", "marginals.svg"}

// validate checks every flag that does not need the data, before any work.
func (f *logisticFlags) validate() error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no label column given (a header name or a column number from 1)")
	}
	if _, err := exchange.ParseMethod(f.Method); err != nil {
		return fmt.Errorf("--method: %w", err)
	}
	if err := firstError(positive("--prior-sd", f.PriorSD), positive("--tau2", f.Tau2),
		within("--swap-rate", f.SwapPerStep, 0, 1), runSize(f.Burn, f.Keep, f.Thin, 1)); err != nil {
		return err
	}
	if !(f.Tau2 > 1) || f.Tau2 > maxTau2 {
		return fmt.Errorf("--tau2 = %v: must lie in (1, %g] (above the cold temperature 1; a hotter chain's noise 2τ2η swamps any posterior)", f.Tau2, maxTau2)
	}
	if !(f.Share > 0 && f.Share <= 1) {
		return fmt.Errorf("--hot-share = %v: must lie in (0, 1]", f.Share)
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
	}{{"--batch", f.Batch, f.BatchAuto}, {"--hot-batch", f.HotBatch, f.HotBatchAuto}, {"--swap-batch", f.SwapBatch, f.SwapBatchAuto}} {
		if !b.auto && b.v < 1 {
			return fmt.Errorf("%s = %d: must be ≥ 1 (or auto)", b.flag, b.v)
		}
	}
	return nil
}

// maxTau2 bounds --tau2: the hot chain at τ2 = 10⁶ already explores a
// region 1000 times the posterior's width; beyond, it only loses swaps.
const maxTau2 = 1e6

func runLogistic(cmd *cobra.Command, f *logisticFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	m, _ := exchange.ParseMethod(f.Method)
	d, err := dataset.ReadFile(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, NoStandardize: f.NoStandardize})
	if err != nil {
		return err
	}
	for _, w := range d.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	if f.NoStandardize {
		if err := rawScale(d); err != nil {
			return err
		}
	}
	x, p, names := d.X, d.P, d.Names
	if !f.NoIntercept {
		x, p = d.WithIntercept()
		names = append([]string{"intercept"}, names...)
	}
	lr, err := models.NewLogistic(x, d.Y, p, f.PriorSD)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Data, err)
	}
	sum := logisticSummary{Settings: f, N: d.N, Names: names, Label: d.Label, FeatureMean: d.Means, FeatureSD: d.SDs}
	// The curvature at the mode sets the automatic step size and the scale
	// against which a stuck chain is recognised (lmin = 0: unknown).
	_, lmin, lmax, curvErr := mala.Curvature(lr, make([]float64, p))
	if curvErr != nil {
		lmin = 0
	}
	if f.EtaAuto {
		if curvErr != nil {
			return fmt.Errorf("automatic step size: %w (give --eta)", curvErr)
		}
		f.Eta = 0.2 / lmax
		sum.StepRuleNotes = fmt.Sprintf("η = 0.2/λ_max, λ_max = %.4g at the posterior mode", lmax)
	}
	if f.BatchAuto {
		f.Batch = min(d.N, max(2, (d.N+9)/10)) // a minibatch needs 2 examples for its spread
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--batch", f.Batch}, {"--hot-batch", f.HotBatch}, {"--swap-batch", f.SwapBatch}} {
		if b.v > d.N {
			return fmt.Errorf("%s = %d: the data have %d examples", b.flag, b.v, d.N)
		}
	}
	if err := runSize(f.Burn, f.Keep, f.Thin, p); err != nil {
		return err
	}
	if f.SwapPerStep/f.Eta > 0 && !(f.SwapPerStep/f.Eta < math.Inf(1)) {
		return fmt.Errorf("--swap-rate = %v with η = %v: the swap intensity a = rate/η overflows", f.SwapPerStep, f.Eta)
	}
	cold, err := target.NewMinibatch(lr, f.Batch)
	if err != nil {
		return fmt.Errorf("--batch: %w", err)
	}
	hotStart := f.HotBatch
	if hotStart == 0 {
		hotStart = f.Batch // the automatic rule's pilot draw
	}
	hot, err := target.NewMinibatch(lr, hotStart)
	if err != nil {
		return fmt.Errorf("--hot-batch: %w", err)
	}
	if !f.SwapBatchAuto {
		for _, mb := range []*target.Minibatch{cold, hot} {
			if err := mb.SetEnergySize(f.SwapBatch); err != nil {
				return fmt.Errorf("--swap-batch: %w", err)
			}
		}
	}
	eta := langevin.Constant{Step: f.Eta}
	var auto *variance.AutoBatch
	var autoErr error
	setup := exchange.Setup{
		Tau1: 1, Tau2: f.Tau2, Eta: eta, Cold: cold, Hot: hot,
		A: f.SwapPerStep / f.Eta, A1: 0.5, Seed: f.Seed,
	}
	if f.HotBatchAuto {
		setup.HotVar = func() variance.Model {
			auto, autoErr = variance.NewAutoBatch(hot, f.Tau2, eta, variance.AutoOptions{Share: f.Share})
			return auto
		}
	}
	cfg, err := m.Config(setup)
	if err != nil {
		return err
	}
	if autoErr != nil {
		return fmt.Errorf("--hot-share: %w", autoErr)
	}
	out, err := output.Prepare(f.Out, logisticOutputs...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	samples, err := out.CreateStream("samples.csv", names)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	run, err := sampleLadder(ctx, cfg, make([]float64, p), exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin}, "logistic "+f.Method, samples.WriteFloats)
	if cerr := samples.Close(); err == nil && run.Err == nil && cerr != nil {
		run.Err = fmt.Errorf("samples.csv: %w", cerr)
	}
	if err != nil {
		return err
	}
	sum.Interrupted = errors.Is(run.Err, errInterrupted)
	st, tr, runErr := run.Stats, run.Trace, run.Err
	sum.WallSeconds = run.Wall.Seconds()
	sum.Stats, sum.Samples = st, tr.Len()
	sum.Evaluations.Cold = st.Levels[0].Cost.TotalGrad().Units + st.Levels[0].Cost.TotalEnergy().Units
	sum.ClampedCold = st.Levels[0].ClampedSteps
	if len(st.Levels) > 1 {
		sum.Evaluations.Hot = st.Levels[1].Cost.TotalGrad().Units + st.Levels[1].Cost.TotalEnergy().Units
		sum.ClampedHot = st.Levels[1].ClampedSteps
		sum.SwapAttempts, sum.SwapAccepts = st.Pairs[0].Attempts, st.Pairs[0].Accepts
	}
	sum.Evaluations.Total = sum.Evaluations.Cold + sum.Evaluations.Hot
	if auto != nil && m != exchange.ReSGLDMethod && m != exchange.SGLDMethod {
		a := auto.Stats()
		sum.HotBatch, sum.HotWarning = &a, auto.Warning()
	}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	if tr.Len() > 0 {
		sum.Mean, sum.SD = make([]float64, p), make([]float64, p)
		for j := 0; j < p; j++ {
			xs := tr.Coord(j)
			var mu, v float64
			for _, x := range xs {
				mu += x / float64(len(xs))
			}
			for _, x := range xs {
				v += (x - mu) * (x - mu) / float64(len(xs))
			}
			sum.Mean[j], sum.SD[j] = mu, math.Sqrt(v)
		}
	}
	w := logisticChecks{
		flags: f, stats: st, trace: tr, names: names, mean: sum.Mean, sd: sum.SD, lmin: lmin,
		featureSD: sampledScales(x, d.N, p), n: d.N, hotWarning: sum.HotWarning,
	}
	sum.Warnings = append(d.Warnings, w.warnings()...)
	var errs []error
	errs = append(errs, out.WriteFile("summary.json", func(w io.Writer) error { return encodeJSON(w, sum) }))
	fmt.Printf("%s on %s (%d examples, %d coefficients): %d samples in %.1fs, %.3g per-example evaluations (hot chain %.1f%%), swaps %d/%d, clamped steps %d/%d\n",
		f.Method, f.Data, d.N, p, tr.Len(), sum.WallSeconds, sum.Evaluations.Total, 100*sum.Evaluations.Hot/sum.Evaluations.Total,
		sum.SwapAccepts, sum.SwapAttempts, sum.ClampedCold, sum.ClampedHot)
	for _, w := range sum.Warnings[len(d.Warnings):] {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	if tr.Len() > 0 {
		errs = append(errs, writeFigures(out, tr, names, f.Thin, sum.Mean, sum.SD))
	}
	fmt.Println(out.Wrote())
	if sum.Interrupted {
		return fmt.Errorf("interrupted after %d samples: %s holds them and a summary marked interrupted", tr.Len(), f.Out)
	}
	if runErr != nil {
		return fmt.Errorf("sampling stopped after %d samples (kept in %s): %w", tr.Len(), f.Out, runErr)
	}
	return errors.Join(errs...)
}

// rawScale rejects unstandardised features so large that the likelihood's
// curvature, a sum of N squared values, overflows: no step size or
// posterior scale could then be computed.
func rawScale(d *dataset.Data) error {
	for j := range d.P {
		var m float64
		for i := range d.N {
			m = math.Max(m, math.Abs(d.X[i*d.P+j]))
		}
		if !(m*m*float64(d.N) < math.MaxFloat64) {
			return fmt.Errorf("--no-standardize: column %d (%q) has values up to %g, whose squares summed over %d examples overflow; standardise (drop --no-standardize) or rescale the column",
				d.Column(j), d.Names[j], m, d.N)
		}
	}
	return nil
}
