package main

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/variance"
)

// gmmFlags are the settings of the fixed-noise mixture run.
type gmmFlags struct {
	Method     string  `json:"method"`
	Seed       uint64  `json:"seed"`
	Tau1       float64 `json:"tau1"`
	Tau2       float64 `json:"tau2"`
	Levels     int     `json:"levels"`
	Eta        float64 `json:"eta"`
	DecayB     float64 `json:"decay_b,omitempty"`
	DecayGamma float64 `json:"decay_gamma,omitempty"`
	SwapA      float64 `json:"swap_a"`   // 0: per-step convention
	PerStep    bool    `json:"per_step"` // derived from SwapA
	A1         float64 `json:"a1"`
	Variance   string  `json:"variance"`
	Repeats    int     `json:"variance_repeats,omitempty"`
	Period     int     `json:"variance_period,omitempty"`
	Burn       int     `json:"burn"`
	Keep       int     `json:"keep"`
	Thin       int     `json:"thin"`
	Concurrent bool    `json:"concurrent"`
	chainFlags
	Out string `json:"-"`

	Ladder ladderFlags `json:"ladder"`
}

// runSummary is the JSON summary of a sampling run.
type runSummary struct {
	Experiment  string         `json:"experiment"`
	Settings    any            `json:"settings"`
	WallSeconds float64        `json:"wall_seconds"`
	Metrics     map[string]any `json:"metrics,omitempty"` // of the pooled draws
	chainsSummary
	// Ladders are each chain's ladder: rejection, barrier and round trips
	// (K ≥ 2), with the tuning rounds under --levels auto.
	Ladders []*ladderSummary `json:"ladders,omitempty"`
}

func init() {
	f := &gmmFlags{}
	cmd := &cobra.Command{
		Use:   "gmm",
		Short: "Sample the paper's fixed-noise Gaussian mixture and compare with the exact density",
		Long: `gmm samples exp(−U) = 0.4 N(−4, 0.7²) + 0.6 N(3, 0.5²) at τ1 = 1 with noisy
energies and gradients (cold chain: Û ~ N(U, 1²), ∇Û ~ N(∇U, 2²); hot chain:
Û ~ N(U, 3²), ∇Û ~ N(∇U, 5²)), as in §5.1 of the paper. --chains independent
chains (default 4) run in parallel, each on random streams of its own (chain c
alone: --chain c). It prints the per-variable table (mean, MCSE, sd,
quantiles, bulk and tail ESS, R̂), swap acceptance, clamped steps and cost,
with warnings on stderr, and writes into --out: chain-<c>.csv per chain in
CmdStan's CSV layout, summary.txt (the table), summary.json (the table, and
the TV and W1 distances of the pooled draws to the exact density), the chain
figures (trace, ranks, marginals, replicas), a density plot against the
exact density (density.png, density.svg) and report.html: all of it in one
page with nothing outside it, for a browser. Draws are written as they are
taken: after an error, Ctrl-C or SIGTERM the files hold every draw taken.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGMM(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Method, "method", "fresgld", "sampler: fresgld, mresgld, resgld, sgld (the paper's four) or corrected (one SGLD chain whose gradient noise counts toward its temperature); not reld, which needs the exact energies this target's noisy estimators do not give")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau1, "tau1", 1, "cold temperature τ1")
	fl.Float64Var(&f.Tau2, "tau2", 10, "hot temperature τ2")
	addLadderFlags(fl, &f.Ladder)
	fl.Float64Var(&f.Eta, "eta", 0.03, "step size η (with --decay-gamma > 0: η_k = eta·(b/(b + k))^γ)")
	fl.Float64Var(&f.DecayB, "decay-b", 1000, "decreasing step size: b")
	fl.Float64Var(&f.DecayGamma, "decay-gamma", 0, "decreasing step size: γ in (0.5, 1] (0: constant η)")
	fl.Float64Var(&f.SwapA, "swap-a", 0, "swap intensity a (swap with probability a·η·min(1, S)); 0 attempts a swap every step with probability min(1, S)")
	fl.Float64Var(&f.A1, "a1", 0.5, "m-reSGLD weight a1 on the cold estimator")
	fl.StringVar(&f.Variance, "variance", "known", "variance estimate for f-reSGLD and the swap ratios: known or running")
	fl.IntVar(&f.Repeats, "repeats", 10, "running variance: draws per update")
	fl.IntVar(&f.Period, "period", 1, "running variance: steps between updates")
	fl.IntVar(&f.Burn, "burn", 5000, "steps discarded before recording")
	fl.IntVar(&f.Keep, "keep", 20000, "samples retained")
	fl.IntVar(&f.Thin, "thin", 5, "steps between retained samples")
	fl.BoolVar(&f.Concurrent, "concurrent", false, "step the chains on separate goroutines (same output)")
	addChainFlags(fl, &f.chainFlags)
	fl.StringVar(&f.Out, "out", "out/gmm", "output directory")
	rootCmd.AddCommand(cmd)
}

// validate checks every flag before any work.
func (f *gmmFlags) validate() error {
	m, err := exchange.ParseMethod(f.Method)
	if err != nil {
		return fmt.Errorf("--method: %w", err)
	}
	if err := f.Ladder.parse(m, f.SwapA); err != nil {
		return err
	}
	f.Levels = f.Ladder.k
	if err := checkChainCount(f.chainFlags); err != nil {
		return err
	}
	if err := firstError(positive("--tau1", f.Tau1), positive("--tau2", f.Tau2), positive("--eta", f.Eta),
		nonNegative("--swap-a", f.SwapA), within("--a1", f.A1, 0, 1), within("--decay-gamma", f.DecayGamma, 0, 1),
		runSize(f.Burn, f.Keep, f.Thin, 1)); err != nil {
		return err
	}
	if f.Method != "sgld" && !(f.Tau2 > f.Tau1) {
		return fmt.Errorf("--tau2 = %v: must exceed --tau1 = %v", f.Tau2, f.Tau1)
	}
	if f.SwapA*f.Eta > 1 {
		return fmt.Errorf("--swap-a = %v: a·η = %v exceeds 1 (lower --swap-a, or 0 for a swap attempt every step)", f.SwapA, f.SwapA*f.Eta)
	}
	if f.DecayGamma != 0 {
		if err := positive("--decay-b", f.DecayB); err != nil {
			return err
		}
	}
	switch f.Variance {
	case "known":
	case "running":
		if _, err := variance.NewRunning(f.Repeats, f.Period); err != nil {
			return fmt.Errorf("--repeats = %d, --period = %d: %w", f.Repeats, f.Period, err)
		}
		// A step draws --repeats energies and gradients, and an interrupt
		// is answered between steps: a step must stay short.
		if f.Repeats > maxRepeats {
			return fmt.Errorf("--repeats = %d: at most %d draws per update", f.Repeats, maxRepeats)
		}
		if f.Period > maxSteps {
			return fmt.Errorf("--period = %d: at most %d steps", f.Period, maxSteps)
		}
	default:
		return fmt.Errorf("--variance %q: want known or running", f.Variance)
	}
	return nil
}

func runGMM(cmd *cobra.Command, f *gmmFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	m, _ := exchange.ParseMethod(f.Method)
	if err := firstError(checkChainFlag(cmd.Flags(), f.chainFlags), notApplicable(cmd.Flags(), m, gmmLadderFlags)); err != nil {
		return err
	}
	if m == exchange.ReLDMethod {
		return errors.New("--method reld: noise-free replica exchange needs exact energies, and gmm's are noisy by design (sd 1 cold, 3 hot); choose fresgld, mresgld or resgld")
	}
	ids, _ := f.chainFlags.ids()
	mix := models.PaperMixture()
	warn, err := stepStability(mix, f.Eta)
	if err != nil {
		return err
	}
	if warn != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", warn)
	}
	var eta langevin.Schedule = langevin.Constant{Step: f.Eta}
	if f.DecayGamma != 0 {
		// Written so that η_0 = eta: a = eta·b^γ.
		eta = langevin.Decreasing{A: f.Eta * math.Pow(f.DecayB, f.DecayGamma), B: f.DecayB, Gamma: f.DecayGamma}
		if err := eta.Validate(); err != nil {
			return fmt.Errorf("--decay-gamma = %v: %w", f.DecayGamma, err)
		}
	} else {
		f.DecayB = 0
	}
	f.PerStep = f.SwapA == 0
	if f.Variance == "known" {
		f.Repeats, f.Period = 0, 0
	}
	// From here on SIGINT and SIGTERM stop the work (tuning, sampling)
	// within a step, keeping every draw taken; before, nothing is running
	// that could be kept, and the signal ends the process at once.
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	// build makes chain id's ladder: estimators, variance models and random
	// streams of its own; with --levels auto it tunes the ladder first.
	cfgs, tunings := map[int]exchange.Config{}, map[int]*exchange.Adapted{}
	build := func(id int) (*exchange.Sampler, error) {
		cold, hot := models.PaperFixedNoise(mix)
		setup := exchange.Setup{
			Tau1: f.Tau1, Tau2: f.Tau2, Levels: f.Levels, Eta: eta,
			Cold: cold, Hot: hot, A: f.SwapA, PerStep: f.PerStep, A1: f.A1,
			Seed: exchange.ChainSeed(f.Seed, id), Concurrent: f.Concurrent,
		}
		if f.Variance == "running" {
			// The estimators hide their noise so that the sampler must estimate it.
			setup.Cold, setup.Hot = energy.Hidden{Estimator: cold}, energy.Hidden{Estimator: hot}
			mk := func() variance.Model { r, _ := variance.NewRunning(f.Repeats, f.Period); return r }
			setup.ColdVar, setup.HotVar = mk, mk
		}
		if _, err := m.Config(setup); err != nil { // every setting checked before tuning
			return nil, err
		}
		inits, tuning, err := f.Ladder.ladder(m, &setup, []float64{0}, ctx.Done())
		if err != nil {
			return nil, err
		}
		cfg, err := m.Config(setup)
		if err != nil {
			return nil, err
		}
		if inits == nil {
			inits = make([][]float64, len(cfg.Levels))
			for l := range inits {
				inits[l] = []float64{0}
			}
		}
		cfgs[id], tunings[id] = cfg, tuning
		return exchange.New(cfg, inits)
	}
	settings, err := settingsOf(f)
	if err != nil {
		return err
	}
	out, err := output.Prepare(f.Out, chainStale(f.Out, ids, f.Chain > 0, "density.png", "density.svg", "rounds.csv", "ladder-trace.png", "ladder-trace.svg")...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	run := chainRun{
		Header:     chainHeader{Command: "gmm", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      coordNames(1),
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        build,
		LogDensity: func(theta []float64) float64 { return -mix.U(theta) / f.Tau1 },
		Dir:        out,
		Ctx:        ctx,
		Label:      "gmm " + f.Method,
		Every:      f.Every,
		Args:       runArgs(cmd),
		Cwd:        workingDir(),
	}
	chains, wall, writeErr := run.run(ids)
	// The chain files are closed and the summary files are written whole
	// or not at all: from here a signal ends the process at once, rather
	// than wait, unanswered, for the figures.
	stop()
	if chains == nil {
		return writeErr
	}
	sum := runSummary{Experiment: "gmm-fixed-noise", Settings: f, WallSeconds: wall.Seconds()}
	// The distances to the exact density are of the draws the table pools.
	var xs []float64
	for _, c := range pooledChains(chains) {
		xs = append(xs, c.Cols[len(c.Columns)-1]...)
	}
	var errs []error
	fmt.Printf("%s: %d chain(s) in %v\n", f.Method, len(ids), wall.Round(time.Millisecond))
	if len(xs) > 0 {
		u := func(x float64) float64 { return mix.U([]float64{x}) }
		exact := diag.Tempered1D(u, f.Tau1, -10, 10, 20000)
		sum.Metrics = map[string]any{
			"tv": exact.TV(xs, gmmBins), "tv_bins": gmmBins, "w1": exact.W1(xs),
			"right_mode_weight": fractionAbove(xs, 0), "right_mode_weight_exact": 1 - exact.CDF(0),
		}
		fmt.Printf("pooled draws against the exact density: TV %.4f (%d bins), W1 %.4f, right-mode weight %.3f (exact %.3f)\n",
			sum.Metrics["tv"], gmmBins, sum.Metrics["w1"], sum.Metrics["right_mode_weight"], sum.Metrics["right_mode_weight_exact"])
		if err := densityFigure(out.File("density"), exact, xs, f.Method); err != nil {
			errs = append(errs, err)
		} else {
			out.Record("density.png", "density.svg")
		}
	}
	warns, err := f.Ladder.report(out, chains, cfgs, tunings, &sum.Ladders, "gmm "+f.Method)
	errs = append(errs, err)
	errs = append(errs, finishChains(cmd.ErrOrStderr(), out, chains, &sum.chainsSummary, &sum, writeErr, warns))
	if err := errors.Join(errs...); err != nil {
		return err // an interrupted or stopped chain keeps its checkpoint
	}
	return run.finished(ids)
}

// maxRepeats bounds --repeats.
const maxRepeats = 1 << 20

// gmmBins is the number of equal bins on [−10, 10] over which TV is taken:
// 0.33-wide bins, narrower than either mode's sd.
const gmmBins = 60

func fractionAbove(xs []float64, c float64) float64 {
	n := 0
	for _, x := range xs {
		if x > c {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

func densityFigure(base string, exact diag.Grid1D, xs []float64, name string) error {
	exy := make(plotter.XYs, 801)
	for i := range exy {
		exy[i].X = -8 + 14*float64(i)/800
		exy[i].Y = exact.At(exy[i].X)
	}
	p, err := figure.Densities("Gaussian mixture, τ1 = 1: samples against the exact density", exy,
		[]figure.Curve{{Name: name, XY: figure.Histogram(xs, -8, 6, 84)}})
	if err != nil {
		return err
	}
	return figure.Save(p, 7*vg.Inch, 4*vg.Inch, base)
}

// gmmLadderFlags are gmm's flags that only a ladder of levels reads.
var gmmLadderFlags = []string{"tau2", "levels", "swaps", "window", "swap-a", "a1", "auto-levels", "auto-rounds", "auto-first", "auto-grow", "max-levels"}

// checkStepStability is off only in the test of what a run does when its
// chains diverge (TestGMMDivergence), which needs a step size that this
// check would refuse.
var checkStepStability = true

// stepStability judges the step size η (the largest of a decreasing
// schedule, its first) against the mixture's curvature before any
// sampling. A Langevin step contracts along a direction of curvature λ
// only if ηλ < 2, whatever the temperature, which scales the noise, not
// the drift. U” of a Gaussian mixture is the components' precisions
// averaged by their posterior weights minus the variance of the scores, so
// it lies below λ_max = max 1/σ_k², and in the tails it tends to that of
// the widest component, 1/max σ_k². Beyond 2 over the tails' curvature
// every chain diverges: refused. Between 2/λ_max and that, the narrowest
// component cannot hold a chain: a warning, since the run completes but
// misses that mode.
func stepStability(mix models.Mixture, eta float64) (warn string, err error) {
	var lmax, ltail float64
	for _, sd := range mix.SDs {
		lmax = max(lmax, 1/(sd*sd))
		if ltail == 0 || 1/(sd*sd) < ltail {
			ltail = 1 / (sd * sd)
		}
	}
	if eta*ltail > 2 && checkStepStability {
		return "", fmt.Errorf("--eta = %v: η·λ = %.3g > 2 even at the curvature λ = %.3g of U's tails (its widest component): every Langevin step overshoots and the chains diverge; give --eta below %.3g (below %.3g = 2/λ_max to sample the narrowest mode too)",
			eta, eta*ltail, ltail, 2/ltail, 2/lmax)
	}
	if eta*lmax > 2 {
		return fmt.Sprintf("--eta = %v: η·λ_max = %.3g > 2 at the narrowest component (λ_max = %.3g): its mode cannot hold a chain, and the draws will miss it; give --eta below %.3g", eta, eta*lmax, lmax, 2/lmax), nil
	}
	return "", nil
}
