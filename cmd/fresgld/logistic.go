package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
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
	Eta           float64 `json:"eta"` // 0 on the command line: automatic
	EtaAuto       bool    `json:"eta_automatic"`
	Batch         int     `json:"batch"`     // cold minibatch; 0: ⌈N/10⌉
	HotBatch      int     `json:"hot_batch"` // 0: automatic
	Share         float64 `json:"hot_share"`
	SwapPerStep   float64 `json:"swap_probability_per_step"`
	SwapBatch     int     `json:"swap_batch"` // 0: the chain's own n
	SwapEnergies  string  `json:"swap_energies"`
	ExactEvery    int     `json:"exact_every"` // 0: ⌈8N/n⌉
	SwapPilot     int     `json:"swap_pilot"`
	Levels        int     `json:"levels"`
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
	Swap          *swapChoice         `json:"swap_energies,omitempty"`
	Stats         exchange.Stats      `json:"stats"`
	WallSeconds   float64             `json:"wall_seconds"`
	Error         string              `json:"error,omitempty"`
	StepRuleNotes string              `json:"step_rule,omitempty"`
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
supplies --hot-share of its noise budget. With --eta 0 (the default) the step
size is 0.2/λ_max, λ_max the largest eigenvalue of the Hessian of the negative
log posterior at its mode.

It writes into --out: samples.csv (the cold chain's retained samples, one
column per coefficient), summary.json (settings, seed, swap and clamp counts,
per-example evaluations, wall time, posterior means and sds, the
standardisation's means and sds), trace.png/svg and marginals.png/svg (the
first eight coefficients). Samples gathered before an error are still written.

Swap energies (--swap-energies): draw (each chain's minibatch, variance from
the same draw: noise-driven at small n), minibatch (variance from a window of
earlier draws), cv (control variates about anchors refreshed by full passes),
pair (both states on one common minibatch), pair-cv, exact (full data, an
attempt every --exact-every steps). After the run it prints each pair's
acceptance and mean swap noise τδ²V/2, and warns when the noise exceeds 1 nat
or no swap was accepted.

` + swapModeRule,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLogistic(f) },
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
	fl.Float64Var(&f.Eta, "eta", 0, "step size η (0: automatic, 0.2/λ_max)")
	fl.IntVar(&f.Batch, "batch", 0, "cold minibatch size (0: ⌈N/10⌉)")
	fl.IntVar(&f.HotBatch, "hot-batch", 0, "hot minibatch size (0: automatic)")
	fl.Float64Var(&f.Share, "hot-share", 0.9, "automatic hot minibatch: share of the noise budget 2τ2η its gradient noise supplies")
	fl.Float64Var(&f.SwapPerStep, "swap-rate", 0.1, "probability a·η of a swap attempt per step")
	fl.IntVar(&f.SwapBatch, "swap-batch", 0, "examples per swap-ratio energy (0: each chain's own minibatch size; the data size: exact energies)")
	fl.StringVar(&f.SwapEnergies, "swap-energies", "auto", "swap energies: auto, draw, minibatch, cv, pair, pair-cv or exact (see above)")
	fl.IntVar(&f.ExactEvery, "exact-every", 0, "steps between exact swap attempts (0: ⌈8N/n⌉, a quarter of the cold gradient cost)")
	fl.IntVar(&f.SwapPilot, "swap-pilot", 2000, "steps of the pilot run of --swap-energies auto")
	fl.IntVar(&f.Levels, "levels", 2, "temperature levels, geometric from 1 to --tau2 (more levels: closer temperatures, swaps that can be accepted)")
	fl.IntVar(&f.Burn, "burn", 2000, "steps discarded before recording")
	fl.IntVar(&f.Keep, "keep", 5000, "samples retained")
	fl.IntVar(&f.Thin, "thin", 2, "steps between retained samples")
	fl.StringVar(&f.Out, "out", "out/logistic", "output directory")
	rootCmd.AddCommand(cmd)
}

func runLogistic(f *logisticFlags) error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no label column given (a header name or a column number from 1)")
	}
	m, err := exchange.ParseMethod(f.Method)
	if err != nil {
		return fmt.Errorf("--method: %w", err)
	}
	switch {
	case !(f.PriorSD > 0) || math.IsInf(f.PriorSD, 0):
		return fmt.Errorf("--prior-sd = %v: must be positive and finite", f.PriorSD)
	case !(f.Tau2 > 1) || math.IsInf(f.Tau2, 0):
		return fmt.Errorf("--tau2 = %v: must exceed the cold temperature 1", f.Tau2)
	case !(f.Eta >= 0) || math.IsInf(f.Eta, 0):
		return fmt.Errorf("--eta = %v: must be positive (or 0 for automatic)", f.Eta)
	case !(f.SwapPerStep >= 0 && f.SwapPerStep <= 1):
		return fmt.Errorf("--swap-rate = %v: must lie in [0, 1]", f.SwapPerStep)
	case f.Batch < 0 || f.HotBatch < 0 || f.SwapBatch < 0:
		return fmt.Errorf("--batch = %d, --hot-batch = %d, --swap-batch = %d: must be ≥ 0", f.Batch, f.HotBatch, f.SwapBatch)
	case f.Levels < 2:
		return fmt.Errorf("--levels = %d: need at least 2", f.Levels)
	case f.ExactEvery < 0 || f.SwapPilot < 1:
		return fmt.Errorf("--exact-every = %d, --swap-pilot = %d: must be ≥ 0 and ≥ 1", f.ExactEvery, f.SwapPilot)
	}
	if f.SwapEnergies != "auto" {
		if _, err := exchange.ParseEnergyMode(f.SwapEnergies); err != nil {
			return fmt.Errorf("--swap-energies: %w", err)
		}
	}
	d, err := dataset.ReadFile(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, NoStandardize: f.NoStandardize})
	if err != nil {
		return err
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
	if f.Eta == 0 {
		_, _, lmax, err := mala.Curvature(lr, make([]float64, p))
		if err != nil {
			return fmt.Errorf("automatic step size: %w (give --eta)", err)
		}
		f.Eta, f.EtaAuto = 0.2/lmax, true
		sum.StepRuleNotes = fmt.Sprintf("η = 0.2/λ_max, λ_max = %.4g at the posterior mode", lmax)
	}
	if f.Batch == 0 {
		f.Batch = (d.N + 9) / 10
	}
	if f.Batch > d.N || f.HotBatch > d.N {
		return fmt.Errorf("--batch = %d, --hot-batch = %d: the data have %d examples", f.Batch, f.HotBatch, d.N)
	}
	eta := langevin.Constant{Step: f.Eta}
	// build makes a fresh ladder (its own estimators and variance model)
	// with swap energies e, so that a pilot run leaves the real one untouched.
	build := func(e exchange.Energies) (exchange.Config, *variance.AutoBatch, error) {
		cold, err := target.NewMinibatch(lr, f.Batch)
		if err != nil {
			return exchange.Config{}, nil, fmt.Errorf("--batch: %w", err)
		}
		hotStart := f.HotBatch
		if hotStart == 0 {
			hotStart = f.Batch // the automatic rule's pilot draw
		}
		hot, err := target.NewMinibatch(lr, hotStart)
		if err != nil {
			return exchange.Config{}, nil, fmt.Errorf("--hot-batch: %w", err)
		}
		if f.SwapBatch != 0 {
			for _, mb := range []*target.Minibatch{cold, hot} {
				if err := mb.SetEnergySize(f.SwapBatch); err != nil {
					return exchange.Config{}, nil, fmt.Errorf("--swap-batch: %w", err)
				}
			}
		}
		var auto *variance.AutoBatch // the first hot level's
		e.Terms = lr
		setup := exchange.Setup{
			Tau1: 1, Tau2: f.Tau2, Levels: f.Levels, Eta: eta, Cold: cold, Hot: hot,
			A: f.SwapPerStep / f.Eta, A1: 0.5, Seed: f.Seed, Energies: e,
		}
		if f.HotBatch == 0 {
			// Every hot level sizes its own minibatch at its own τ.
			setup.HotVarAt = func(est target.Estimator, tau float64) (variance.Model, error) {
				mb, ok := est.(*target.Minibatch)
				if !ok {
					return nil, fmt.Errorf("hot estimator %T is not a minibatch", est)
				}
				a, err := variance.NewAutoBatch(mb, tau, eta, variance.AutoOptions{Share: f.Share})
				if err != nil {
					return nil, fmt.Errorf("--hot-share: %w", err)
				}
				if auto == nil {
					auto = a
				}
				return a, nil
			}
		}
		cfg, err := m.Config(setup)
		return cfg, auto, err
	}
	var energies exchange.Energies
	if m != exchange.SGLDMethod {
		pilot := func(e exchange.Energies) (noise, accept, cost float64, err error) {
			cfg, _, err := build(e)
			if err != nil {
				return 0, 0, 0, err
			}
			inits := make([][]float64, len(cfg.Levels))
			for l := range inits {
				inits[l] = make([]float64, p)
			}
			smp, err := exchange.New(cfg, inits)
			if err != nil {
				return 0, 0, 0, err
			}
			defer smp.Close()
			for range f.SwapPilot {
				if err := smp.Step(); err != nil {
					return 0, 0, 0, err
				}
			}
			ps := smp.Stats().Pairs[0]
			return ps.Noise, ps.Rate(), smp.Cost(), nil
		}
		ch, err := chooseSwapEnergies(f.SwapEnergies, d.N, f.Batch, f.ExactEvery, f.SwapPerStep, pilot)
		if err != nil {
			return err
		}
		energies, sum.Swap = ch.Energies, &ch
		fmt.Fprintf(os.Stderr, "swap energies: %s (%s)\n", ch.Mode, ch.Rule)
	}
	cfg, auto, err := build(energies)
	if err != nil {
		return err
	}
	run, err := sampleLadder(cfg, make([]float64, p), exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin}, "logistic "+f.Method)
	if err != nil {
		return err
	}
	st, tr, runErr := run.Stats, run.Trace, run.Err
	sum.WallSeconds = run.Wall.Seconds()
	sum.Stats, sum.Samples = st, tr.Len()
	sum.Evaluations.Cold = st.Levels[0].Cost.Total()
	sum.ClampedCold = st.Levels[0].ClampedSteps
	if len(st.Levels) > 1 {
		sum.Evaluations.Hot = st.Levels[1].Cost.Total()
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
	var errs []error
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
		errs = append(errs, writeSamples(filepath.Join(f.Out, "samples.csv"), tr, names),
			traceFigure(filepath.Join(f.Out, "trace"), tr, names, f.Thin),
			marginalFigure(filepath.Join(f.Out, "marginals"), tr, names))
	}
	errs = append(errs, writeJSON(filepath.Join(f.Out, "summary.json"), sum))
	fmt.Printf("%s on %s (%d examples, %d coefficients): %d samples in %.1fs, %.3g per-example evaluations (hot chain %.1f%%), swaps %d/%d, clamped steps %d/%d\n",
		f.Method, f.Data, d.N, p, tr.Len(), sum.WallSeconds, sum.Evaluations.Total, 100*sum.Evaluations.Hot/sum.Evaluations.Total,
		sum.SwapAccepts, sum.SwapAttempts, sum.ClampedCold, sum.ClampedHot)
	if sum.HotWarning != "" {
		fmt.Println("warning:", sum.HotWarning)
	}
	if sum.Swap != nil {
		reportSwaps(os.Stdout, os.Stderr, st, sum.Swap.Mode)
	}
	fmt.Printf("wrote %s/{samples.csv,summary.json,trace.png,trace.svg,marginals.png,marginals.svg}\n", f.Out)
	if runErr != nil {
		return fmt.Errorf("sampling stopped after %d samples (kept in %s): %w", tr.Len(), f.Out, runErr)
	}
	return errors.Join(errs...)
}

// plotted is the number of coefficients the figures show.
const plotted = 8

func traceFigure(base string, tr exchange.Trace, names []string, thin int) error {
	p := plot.New()
	p.Title.Text = "trace of the cold chain"
	p.X.Label.Text = "step after burn-in"
	p.Y.Label.Text = "coefficient"
	for j := 0; j < min(plotted, tr.P); j++ {
		xy := make(plotter.XYs, tr.Len())
		for i := range xy {
			xy[i] = plotter.XY{X: float64((i + 1) * thin), Y: tr.At(i)[j]}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = figure.Palette[j%len(figure.Palette)]
		if j >= len(figure.Palette) {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(names[j], l)
	}
	p.Legend.Top = true
	return figure.Save(p, 18*vg.Centimeter, 10*vg.Centimeter, base)
}

func marginalFigure(base string, tr exchange.Trace, names []string) error {
	var curves []figure.Curve
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := 0; j < min(plotted, tr.P); j++ {
		for _, x := range tr.Coord(j) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	for j := 0; j < min(plotted, tr.P); j++ {
		curves = append(curves, figure.Curve{Name: names[j], XY: figure.Histogram(tr.Coord(j), lo, hi, 60)})
	}
	p := plot.New()
	p.Title.Text = "posterior marginals (histograms of the cold chain)"
	p.X.Label.Text = "coefficient"
	p.Y.Label.Text = "density"
	for i, c := range curves {
		l, err := plotter.NewLine(c.XY)
		if err != nil {
			return err
		}
		l.Color = figure.Palette[i%len(figure.Palette)]
		if i >= len(figure.Palette) {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(c.Name, l)
	}
	p.Legend.Top = true
	return figure.Save(p, 18*vg.Centimeter, 10*vg.Centimeter, base)
}
