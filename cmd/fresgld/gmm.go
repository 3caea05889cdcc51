package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/results"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
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

	Ladder analysis.Ladder `json:"ladder"`
}

// runSummary is the JSON summary of a sampling run.
type runSummary struct {
	Experiment  string         `json:"experiment"`
	Settings    any            `json:"settings"`
	WallSeconds float64        `json:"wall_seconds"`
	Metrics     map[string]any `json:"metrics,omitempty"` // of the pooled draws
	results.Summary
	// Ladders are each chain's ladder: rejection, barrier and round trips
	// (K ≥ 2), with the tuning rounds under --levels auto.
	Ladders []*results.LadderSummary `json:"ladders,omitempty"`
}

func init() {
	f := &gmmFlags{}
	cmd := addCommand("gmm", "Sample the paper's fixed-noise Gaussian mixture and compare with the exact density", func(cmd *cobra.Command) error { return runGMM(cmd, f) })
	fl := cmd.Flags()
	fl.StringVar(&f.Method, "method", "fresgld", "fresgld, mresgld, resgld, sgld, corrected or auto; not reld")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau1, "tau1", 1, "cold temperature τ1")
	fl.Float64Var(&f.Tau2, "tau2", 10, "hot temperature τ2")
	addLadderFlags(fl, &f.Ladder)
	fl.Float64Var(&f.Eta, "eta", 0.03, "step size η (--decay-gamma > 0: η_k = eta·(b/(b + k))^γ)")
	fl.Float64Var(&f.DecayB, "decay-b", 1000, "decreasing step size: b")
	fl.Float64Var(&f.DecayGamma, "decay-gamma", 0, "decreasing step size: γ in (0.5, 1] (0: constant η)")
	fl.Float64Var(&f.SwapA, "swap-a", 0, "swap intensity a: probability a·η·min(1, S) (0: min(1, S) every step)")
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
}

// validate checks every flag before any work.
func (f *gmmFlags) validate() error {
	m, err := exchange.ParseMethod(f.Method)
	if err != nil {
		return fmt.Errorf("--method: %w", err)
	}
	if err := f.Ladder.Parse(m, f.SwapA); err != nil {
		return err
	}
	f.Levels = f.Ladder.K()
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
		if f.Period > analysis.MaxSteps {
			return fmt.Errorf("--period = %d: at most %d steps", f.Period, analysis.MaxSteps)
		}
	default:
		return fmt.Errorf("--variance %q: want known or running", f.Variance)
	}
	return nil
}

func runGMM(cmd *cobra.Command, f *gmmFlags) error {
	if f.Method == string(analysis.AutoMethod) {
		return runGMMAuto(cmd, f)
	}
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
	warn, err := analysis.MixtureStability(mix, f.Eta, checkStepStability)
	if err != nil {
		return err
	}
	if warn != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", warn)
	}
	eta, err := f.schedule()
	if err != nil {
		return err
	}
	// From here on SIGINT and SIGTERM stop the work (tuning, sampling)
	// within a step, keeping every draw taken; before, nothing is running
	// that could be kept, and the signal ends the process at once.
	ctx, stop := interrupt.Context(cmd.Context())
	defer stop()
	cfgs, tunings := map[int]exchange.Config{}, map[int]*exchange.Adapted{}
	build := f.builder(cmd.ErrOrStderr(), m, mix, eta, ctx.Done(), cfgs, tunings)
	run, err := f.chainRun(cmd, build, mix)
	if err != nil {
		return err
	}
	res, err := analysis.Sample(ctx, run, ids)
	// The chain files are closed and the summary files are written whole
	// or not at all: from here a signal ends the process at once, rather
	// than wait, unanswered, for the figures.
	stop()
	if err != nil {
		return err
	}
	return f.report(cmd, res, mix, cfgs, tunings)
}

// maxRepeats bounds --repeats.
const maxRepeats = 1 << 20

// gmmLadderFlags are gmm's flags that only a ladder of levels reads.
var gmmLadderFlags = []string{"tau2", "levels", "swaps", "window", "swap-a", "a1", "auto-levels", "auto-rounds", "auto-first", "auto-grow", "max-levels"}

// checkStepStability is off only in the test of what a run does when its
// chains diverge (TestGMMDivergence), which needs a step size that this
// check would refuse.
var checkStepStability = true

// schedule is the step-size schedule the flags set: constant, or
// decreasing from η_0 = eta. It also settles the fields the flags derive.
func (f *gmmFlags) schedule() (langevin.Schedule, error) {
	var eta langevin.Schedule = langevin.Constant{Step: f.Eta}
	if f.DecayGamma != 0 {
		// Written so that η_0 = eta: a = eta·b^γ.
		eta = langevin.Decreasing{A: f.Eta * math.Pow(f.DecayB, f.DecayGamma), B: f.DecayB, Gamma: f.DecayGamma}
		if err := eta.Validate(); err != nil {
			return nil, fmt.Errorf("--decay-gamma = %v: %w", f.DecayGamma, err)
		}
	} else {
		f.DecayB = 0
	}
	f.PerStep = f.SwapA == 0
	if f.Variance == "known" {
		f.Repeats, f.Period = 0, 0
	}
	return eta, nil
}

// builder makes chain id's ladder: estimators, variance models and random
// streams of its own; with --levels auto on the ladder tuned once, on
// chain 1's stream, for every chain (analysis.Ladder.Tune), recording each
// chain's configuration and the tuning. The tuning is announced on log:
// it runs before the progress lines do.
func (f *gmmFlags) builder(log io.Writer, m exchange.Method, mix models.Mixture, eta langevin.Schedule, stop <-chan struct{}, cfgs map[int]exchange.Config, tunings map[int]*exchange.Adapted) func(int) (*exchange.Sampler, error) {
	var once sync.Once
	var tuned *exchange.Adapted
	var tuneErr error
	return func(id int) (*exchange.Sampler, error) {
		once.Do(func() {
			if f.Ladder.Levels == "auto" {
				fmt.Fprintf(log, "tuning the ladder (--levels auto): %d rounds, %d steps from %d levels\n", f.Ladder.AutoRounds, f.Ladder.AutoFirst*(1<<f.Ladder.AutoRounds-1), f.Ladder.AutoStart)
			}
			tuned, tuneErr = f.Ladder.Tune(m, f.setup(1, mix, eta), []float64{0}, stop)
		})
		if tuneErr != nil {
			return nil, tuneErr
		}
		smp, cfg, err := f.Ladder.Sampler(m, f.setup(id, mix, eta), []float64{0}, tuned)
		cfgs[id], tunings[id] = cfg, tuned
		return smp, err
	}
}

// setup is a ladder before it is built, on chain stream's random stream:
// estimators and variance models of its own.
func (f *gmmFlags) setup(stream int, mix models.Mixture, eta langevin.Schedule) exchange.Setup {
	cold, hot := models.PaperFixedNoise(mix)
	setup := exchange.Setup{
		Tau1: f.Tau1, Tau2: f.Tau2, Levels: f.Levels, Eta: eta,
		Cold: cold, Hot: hot, A: f.SwapA, PerStep: f.PerStep, A1: f.A1,
		Seed: exchange.ChainSeed(f.Seed, stream), Concurrent: f.Concurrent,
	}
	if f.Variance == "running" {
		// The estimators hide their noise so that the sampler must estimate it.
		setup.Cold, setup.Hot = energy.Hidden{Estimator: cold}, energy.Hidden{Estimator: hot}
		mk := func() variance.Model { r, _ := variance.NewRunning(f.Repeats, f.Period); return r }
		setup.ColdVar, setup.HotVar = mk, mk
	}
	return setup
}

// chainRun is the run of the chains build makes, with what their files
// record.
func (f *gmmFlags) chainRun(cmd *cobra.Command, build func(int) (*exchange.Sampler, error), mix models.Mixture) (analysis.ChainRun, error) {
	settings, err := settingsOf(f)
	if err != nil {
		return analysis.ChainRun{}, err
	}
	return analysis.ChainRun{
		Header:     results.ChainHeader{Command: "gmm", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      []string{"theta1"},
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        build,
		LogDensity: func(theta []float64) float64 { return -mix.U(theta) / f.Tau1 },
		Out:        f.Out,
		Single:     f.Chain > 0,
		Stale:      []string{"density.png", "density.svg", "rounds.csv", "ladder-trace.png", "ladder-trace.svg"},
		Label:      "gmm " + f.Method,
		Progress:   progressTo(cmd),
		Every:      f.Every,
		Args:       runArgs(cmd),
		Cwd:        workingDir(),
		Version:    buildVersion(),
		Resume:     resuming,
	}, nil
}

// report prints the run's fit to the exact density, its ladders, table
// and warnings, and writes the summary files.
func (f *gmmFlags) report(cmd *cobra.Command, res *analysis.Result, mix models.Mixture, cfgs map[int]exchange.Config, tunings map[int]*exchange.Adapted) error {
	chains, wall, out := res.Chains, res.Wall, res.Dir()
	sum := runSummary{Experiment: "gmm-fixed-noise", Settings: f, WallSeconds: wall.Seconds()}
	var errs []error
	fmt.Printf("%s: %d chain(s) in %v\n", f.Method, len(chains), wall.Round(time.Millisecond))
	// The distances to the exact density are of the draws the table pools.
	metrics, line, err := analysis.MixtureFit(res, func(x float64) float64 { return mix.U([]float64{x}) }, f.Tau1, f.Method)
	if line != "" {
		sum.Metrics = metrics
		fmt.Println(line)
	}
	errs = append(errs, err)
	warns, err := results.LadderReport(os.Stdout, out, chains, cfgs, tunings, &sum.Ladders, "gmm "+f.Method)
	errs = append(errs, err)
	var ladderWarnings []results.Warning
	for _, w := range warns {
		ladderWarnings = append(ladderWarnings, results.Warning{Code: "ladder", Message: w})
	}
	res.AddWarnings(ladderWarnings...)
	sum.Summary = res.Summary
	// An interrupted or stopped chain keeps its checkpoint.
	return errors.Join(append(errs, report(cmd, res, &sum))...)
}
