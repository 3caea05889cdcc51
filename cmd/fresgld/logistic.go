package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
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
	Burn          int     `json:"burn"`
	Keep          int     `json:"keep"`
	Thin          int     `json:"thin"`
	chainFlags
	Out string `json:"-"`
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
	HotWarnings   []string              `json:"hot_batch_warnings,omitempty"`
	WallSeconds   float64               `json:"wall_seconds"`
	StepRuleNotes string                `json:"step_rule,omitempty"`
	chainsSummary
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

--chains independent chains (default 4) run in parallel, each on random
streams of its own: chain c's draws are the same whether it runs alone
(--chain c, e.g. one task of a cluster array job) or beside the others.
The command prints, per coefficient and for lp__ (the log posterior up to a
constant), the posterior mean, its Monte Carlo standard error, the sd, the
5/50/95% quantiles, bulk and tail effective sample sizes and R̂ (as R's
posterior package computes them), then the swap acceptance per pair of levels,
the share of clamped steps per level and the total cost; warnings with
remedies go to stderr.

It writes into --out: chain-<c>.csv per chain in CmdStan's CSV layout (read
them with rstan::read_stan_csv, cmdstanr or ArviZ; pool the outputs of
separate runs with fresgld merge), summary.txt (the table), summary.json
(settings, the table, swap and clamp counts, cost, wall time, the
standardisation's means and sds) and figures: trace, ranks (rank histograms),
marginals and replicas (which replica sits at each level), as PNG and SVG.
Draws gathered before an error are still written.`,
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
	fl.IntVar(&f.Burn, "burn", 2000, "steps discarded before recording")
	fl.IntVar(&f.Keep, "keep", 5000, "samples retained")
	fl.IntVar(&f.Thin, "thin", 2, "steps between retained samples")
	addChainFlags(fl, &f.chainFlags)
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
	ids, err := f.chainFlags.ids()
	if err != nil {
		return err
	}
	hotStart := f.HotBatch
	if hotStart == 0 {
		hotStart = f.Batch // the automatic rule's pilot draw
	}
	eta := langevin.Constant{Step: f.Eta}
	autos := map[int]*variance.AutoBatch{}
	// build makes chain id's ladder on estimators of its own.
	build := func(id int) (*exchange.Sampler, error) {
		cold, err := target.NewMinibatch(lr, f.Batch)
		if err != nil {
			return nil, fmt.Errorf("--batch: %w", err)
		}
		hot, err := target.NewMinibatch(lr, hotStart)
		if err != nil {
			return nil, fmt.Errorf("--hot-batch: %w", err)
		}
		if f.SwapBatch != 0 {
			for _, mb := range []*target.Minibatch{cold, hot} {
				if err := mb.SetEnergySize(f.SwapBatch); err != nil {
					return nil, fmt.Errorf("--swap-batch: %w", err)
				}
			}
		}
		var autoErr error
		setup := exchange.Setup{
			Tau1: 1, Tau2: f.Tau2, Eta: eta, Cold: cold, Hot: hot,
			A: f.SwapPerStep / f.Eta, A1: 0.5, Seed: exchange.ChainSeed(f.Seed, id),
		}
		if f.HotBatch == 0 {
			setup.HotVar = func() variance.Model {
				a, err := variance.NewAutoBatch(hot, f.Tau2, eta, variance.AutoOptions{Share: f.Share})
				autos[id], autoErr = a, err
				return a
			}
		}
		cfg, err := m.Config(setup)
		if err != nil {
			return nil, err
		}
		if autoErr != nil {
			return nil, fmt.Errorf("--hot-share: %w", autoErr)
		}
		inits := make([][]float64, len(cfg.Levels))
		for l := range inits {
			inits[l] = make([]float64, p)
		}
		return exchange.New(cfg, inits)
	}
	settings, err := settingsOf(f)
	if err != nil {
		return err
	}
	run := chainRun{
		Header:     chainHeader{Command: "logistic", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      names,
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        build,
		LogDensity: func(theta []float64) float64 { return -lr.U(theta) },
		Out:        f.Out,
		Label:      "logistic " + f.Method,
	}
	chains, wall, writeErr := run.run(ids)
	if chains == nil {
		return writeErr
	}
	sum.WallSeconds = wall.Seconds()
	for _, id := range ids {
		if a := autos[id]; a != nil && m != exchange.ReSGLDMethod && m != exchange.SGLDMethod {
			st := a.Stats()
			sum.HotBatch = append(sum.HotBatch, &st)
			if w := a.Warning(); w != "" {
				sum.HotWarnings = append(sum.HotWarnings, fmt.Sprintf("chain %d: %s", id, w))
			}
		}
	}
	fmt.Printf("%s on %s (%d examples, %d coefficients), %d chain(s) in %.1fs:\n", f.Method, f.Data, d.N, p, len(ids), sum.WallSeconds)
	return finishChains(f.Out, chains, &sum.chainsSummary, &sum, writeErr, sum.HotWarnings, chainOutputs)
}
