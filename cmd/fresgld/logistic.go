package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/variance"
)

// logisticFlags are the settings of a logistic-regression run.
type logisticFlags struct {
	Data          string  `json:"data"`
	Label         string  `json:"label"`
	NoHeader      bool    `json:"no_header"`
	NoStandardize bool    `json:"no_standardize"`
	DropConstant  bool    `json:"drop_constant"`
	NoIntercept   bool    `json:"no_intercept"`
	PriorSD       float64 `json:"prior_sd"`
	Method        string  `json:"method"`
	Correction    string  `json:"correction"`
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
	SwapEnergies  string  `json:"swap_energies"`
	ExactEvery    int     `json:"exact_every"` // 0: ⌈8N/n⌉
	SwapPilot     int     `json:"swap_pilot"`
	SwapNoiseCap  float64 `json:"swap_noise_cap"`
	Levels        int     `json:"levels"`
	Burn          int     `json:"burn"`
	BurnAuto      bool    `json:"burn_automatic"`
	Keep          int     `json:"keep"`
	Thin          int     `json:"thin"`
	ThinAuto      bool    `json:"thin_automatic"`
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
	WallSeconds   float64               `json:"wall_seconds"`
	StepRuleNotes string                `json:"step_rule,omitempty"`
	BatchRule     string                `json:"batch_rule,omitempty"`
	RunRule       string                `json:"run_length_rule,omitempty"`
	swapSummary
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

By default (--method auto) the posterior, log-concave and so unimodal, is
sampled by one chain per --chains, with no hot chain (a ladder could only
idle; --method fresgld runs one). Every chain steps in the coordinates where
the Hessian at the posterior mode (Newton's method; above N·p² = 5·10⁸ the
Hessian of a random subset of ⌈5·10⁸/p²⌉ examples) is I, so every direction
relaxes at one rate, from a start drawn from twice the Laplace
approximation's spread. A rule picks its gradients, and the output says
which and why in one line: control variates about the mode on the least
minibatch (at least 32) whose noise takes at most 1% of the noise budget 2η
in any coordinate (measured on 2000 examples at 8 draws of the Laplace
approximation), at η = 0.05, when that costs fewer per-example gradients per
effective draw than full-data MALA, whose step is tuned on a pilot towards
acceptance 0.574; else MALA. The run keeps 1000 draws a chain (Stan's
default) unless --keep says otherwise, thinned for a bulk ESS of about 400 a
chain in the slowest direction. The rest of this text is about the other
methods.

The cold chain (τ1 = 1, the posterior) steps on minibatches of --batch examples,
by default the n at which its gradient noise takes half its noise budget 2η at
the coefficient where the examples disagree most (from pilot draws of 2000 at
the chains' start and at the posterior mode), bounded to [100, 2048] and N;
where the automatic η would need more than 2048, η is lowered until 2048
suffices. For resgld, mresgld and fresgld a hot chain at --tau2 steps on
--hot-batch examples, by default chosen automatically so that its gradient noise
supplies --hot-share of its noise budget. With --eta auto (the default) the
step size is 0.2/λ_max, λ_max the largest eigenvalue of the Hessian of the
negative log posterior at its mode, or, when N·p² exceeds 5·10⁸, its bound
λ_max(XᵀX)/4 + 1/σ₀² over all θ, which costs O(Np) instead of O(Np²).
Hot levels report their gradient noise as the spread averaged over each
100-step window of the automatic minibatch, not the draw's own, which at
small n scatters past the budget on most steps.

With --burn auto and --thin auto (the defaults) the run length comes from
the posterior's slowest direction: λ_min of the Hessian at the mode (above
N·p² = 5·10⁸, of the Hessian of a random subset of ⌈5·10⁸/p²⌉ examples, the
mode found by Newton's method with exact gradients) gives the chain's
correlation ρ = 1 − ηλ_min per step and time τ = (1 + ρ)/(1 − ρ); thin is
the least with keep·thin/τ ≥ 200 (twice the bulk ESS of 100 per chain below
which the command warns), burn the least with ρ^burn·D ≤ 0.1, D the start's
distance from the mode in posterior sds. When that run would spend more than
2.5·10⁹ multiply-adds of cold-chain gradients a chain (steps × n × p: about
a minute on two cores at 10⁶ × 100), it is cut to that budget (burn to at
most half of it) and the command warns before sampling, with the burn and
thin that the rule asks for; give those to run them.

--chains independent chains (default 4) run in parallel, each on random
streams of its own: chain c's draws are the same whether it runs alone
(--chain c, e.g. one task of a cluster array job) or beside the others.
The command prints, per coefficient and for lp__ (the log posterior up to a
constant; when N·p exceeds 250,000, the prior plus N/m times the likelihood
of one fixed random subset of m = ⌈250,000/p⌉ examples, so that a draw costs
O(m·p), not O(N·p)), the posterior mean, its Monte Carlo standard error, the sd, the
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
Draws are written as they are taken: after an error, Ctrl-C (SIGINT) or
SIGTERM the files hold every draw taken; after kill -9, the chain CSVs hold
all but the last second's.

Swap energies (--swap-energies): draw (each chain's minibatch with the
penalty rule, variance from the same draw: noise-driven at small n),
minibatch (each state on its own minibatch), cv (control variates about
anchors refreshed by full passes), pair (both states on one common
minibatch), pair-cv, exact (full data, an attempt every --exact-every
steps), taylor and pair-taylor (as cv and pair-cv with first-order control
variates, whose noise falls like the fourth power of the distance to the
anchor). Every mode but draw decides a swap by a screen on the minibatch
estimate, confirmed on the full data when it passes (delayed acceptance):
the swaps keep each level's law exactly, and the noise costs only
acceptance and full passes. The command prints each pair's mean screen
noise τδ²V/2 (in nats; acceptance falls once it exceeds about 1) and the
share of attempts confirmed on the full data, and warns when the noise
exceeds 1 nat; attempts whose noise exceeds --swap-noise-cap (2 nats) are
declined, sparing the full passes such screens would ask for. --levels spaces that many
temperatures geometrically from 1 to --tau2.

` + swapModeRule,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLogistic(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Data, "data", "", "CSV file of features and a 0/1 label (required)")
	fl.StringVar(&f.Label, "label", "", "label column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoHeader, "no-header", false, "the first line is data, not column names")
	fl.BoolVar(&f.NoStandardize, "no-standardize", false, "keep the features as they are")
	fl.BoolVar(&f.DropConstant, "drop-constant", false, "drop features that take one value in every example (with a warning naming them) instead of refusing the file")
	fl.BoolVar(&f.NoIntercept, "no-intercept", false, "do not add an intercept column")
	fl.Float64Var(&f.PriorSD, "prior-sd", 1, "prior standard deviation of each coefficient")
	fl.StringVar(&f.Method, "method", autoMethod, "auto (the default: one preconditioned chain per --chains on the gradients a stated rule picks; see above), or "+methodHelp)
	fl.StringVar(&f.Correction, "correction", "diagonal", "fresgld's noise correction: diagonal (per coordinate) or full (the minibatch gradient's whole covariance)")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau2, "tau2", 4, "hot temperature τ2")
	f.EtaAuto, f.BatchAuto, f.HotBatchAuto, f.SwapBatchAuto = true, true, true, true
	fl.Var(autoFloat{&f.Eta, &f.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoInt{&f.Batch, &f.BatchAuto}, "batch", "cold minibatch size (auto: its gradient noise takes half the noise budget, n in [100, 2048])")
	fl.Var(autoInt{&f.HotBatch, &f.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: sized so its gradient noise supplies --hot-share of the noise budget)")
	fl.Float64Var(&f.Share, "hot-share", 0.9, "automatic hot minibatch: share of the noise budget 2τ2η its gradient noise supplies")
	fl.Float64Var(&f.SwapPerStep, "swap-rate", 0.1, "probability a·η of a swap attempt per step, in (0, 1] (for no swaps at all, --method sgld)")
	fl.Var(autoInt{&f.SwapBatch, &f.SwapBatchAuto}, "swap-batch", "examples per swap-ratio energy (auto: each chain's own minibatch size; the data size: exact energies)")
	fl.StringVar(&f.SwapEnergies, "swap-energies", "auto", "swap energies: auto, draw, minibatch, cv, pair, pair-cv, exact, taylor or pair-taylor (see above)")
	fl.Float64Var(&f.SwapNoiseCap, "swap-noise-cap", 2, "decline swap attempts whose swap noise τδ²V/2 exceeds this many nats, sparing the full passes such screens would ask for (0: never)")
	fl.IntVar(&f.ExactEvery, "exact-every", 0, "steps between exact swap attempts (0: ⌈8N/n⌉, a quarter of the cold gradient cost)")
	fl.IntVar(&f.SwapPilot, "swap-pilot", 2000, "steps of the pilot run of --swap-energies auto")
	fl.IntVar(&f.Levels, "levels", 2, "temperature levels, geometric from 1 to --tau2 (more levels: closer temperatures, swaps that can be accepted)")
	f.BurnAuto, f.ThinAuto = true, true
	fl.Var(autoInt{&f.Burn, &f.BurnAuto}, "burn", "steps discarded before recording (auto: from the slowest direction's relaxation; see above)")
	fl.IntVar(&f.Keep, "keep", 5000, "samples retained (1000 under --method auto unless given)")
	fl.Var(autoInt{&f.Thin, &f.ThinAuto}, "thin", "steps between retained samples (auto: enough for a bulk ESS of 200 per chain in the slowest direction, within the default budget)")
	addChainFlags(fl, &f.chainFlags)
	fl.StringVar(&f.Out, "out", "out/logistic", "output directory")
	rootCmd.AddCommand(cmd)
}

// validate checks every flag that does not need the data, before any work.
func (f *logisticFlags) validate() error {
	if f.Data == "" {
		return errors.New("--data: no CSV file given")
	}
	if f.Label == "" {
		return errors.New("--label: no label column given (a header name or a column number from 1)")
	}
	m := exchange.FReSGLDMethod // under auto, only to check --correction's value
	if f.Method != autoMethod {
		var err error
		if m, err = exchange.ParseMethod(f.Method); err != nil {
			return fmt.Errorf("--method: %w; or auto, the default", err)
		}
	}
	if _, err := parseCorrection(f.Correction, m); err != nil {
		return err
	}
	if err := checkChainCount(f.chainFlags); err != nil {
		return err
	}
	if err := firstError(positive("--prior-sd", f.PriorSD), positive("--tau2", f.Tau2), f.runSize(0)); err != nil {
		return err
	}
	if !(f.SwapPerStep > 0 && f.SwapPerStep <= 1) {
		// 0 is not "no swaps": the sampler reads a zero intensity as an
		// attempt at every step.
		return fmt.Errorf("--swap-rate = %v: must lie in (0, 1], the probability of a swap attempt per step (for a run without swaps, --method sgld)", f.SwapPerStep)
	}
	if p := 1 / (f.PriorSD * f.PriorSD); math.IsInf(p, 0) || p*minPriorSDRoom > math.MaxFloat64 {
		return fmt.Errorf("--prior-sd = %v: the prior's precision 1/σ₀² = %g is beyond floating point (it would pin every coefficient at 0); give a --prior-sd above 1e-150", f.PriorSD, p)
	}
	if !(f.Tau2 > 1) || f.Tau2 > maxTau2 {
		return fmt.Errorf("--tau2 = %v: must lie in (1, %g] (above the cold temperature 1; a hotter chain's noise 2τ2η swamps any posterior)", f.Tau2, maxTau2)
	}
	if f.SwapEnergies != "auto" {
		if _, err := exchange.ParseEnergyMode(f.SwapEnergies); err != nil {
			return fmt.Errorf("--swap-energies: %w; or auto, the default", err)
		}
	}
	if f.Levels < 2 {
		return fmt.Errorf("--levels = %d: need at least 2", f.Levels)
	}
	if !(f.SwapNoiseCap >= 0) || math.IsInf(f.SwapNoiseCap, 1) {
		return fmt.Errorf("--swap-noise-cap = %v: must be a number of nats ≥ 0 (0: no cap)", f.SwapNoiseCap)
	}
	if f.ExactEvery < 0 {
		return fmt.Errorf("--exact-every = %d: must be ≥ 0 (0: ⌈8N/n⌉ steps)", f.ExactEvery)
	}
	if f.SwapPilot < 1 {
		return fmt.Errorf("--swap-pilot = %d: must be ≥ 1 step (the pilot of --swap-energies auto; to skip it, choose the mode with --swap-energies)", f.SwapPilot)
	}
	if f.SwapPilot > maxSteps {
		return fmt.Errorf("--swap-pilot = %d: at most %d steps", f.SwapPilot, maxSteps)
	}
	if f.Levels > maxLevels {
		return fmt.Errorf("--levels = %d: at most %d", f.Levels, maxLevels)
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

// minPriorSDRoom is the headroom the prior's precision 1/σ₀² must leave
// below the largest float64: the Hessian adds N curvature terms to it and
// the step-size rule multiplies it, and at 1/σ₀² near the limit these
// overflow into a "singular matrix" that hides the cause.
const minPriorSDRoom = 1e8

// ladderOnlyFlags are logistic's flags that only a ladder of levels reads.
var ladderOnlyFlags = []string{"levels", "tau2", "hot-batch", "hot-share", "swap-rate", "swap-batch", "swap-energies", "swap-pilot", "swap-noise-cap", "exact-every"}

// maxTau2 bounds --tau2: the hot chain at τ2 = 10⁶ already explores a
// region 1000 times the posterior's width; beyond, it only loses swaps.
const maxTau2 = 1e6

func runLogistic(cmd *cobra.Command, f *logisticFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	m, _ := exchange.ParseMethod(f.Method)
	applicable := notApplicable(cmd.Flags(), m, ladderOnlyFlags)
	if f.Method == autoMethod {
		applicable = checkAuto(cmd)
	}
	if err := firstError(checkChainFlag(cmd.Flags(), f.chainFlags), applicable); err != nil {
		return err
	}
	// Before the data's read and the pilots, which are not free on big
	// data; output.Prepare, which clears an earlier run's files, waits
	// until sampling is about to start.
	if err := output.Check(f.Out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	corr, _ := parseCorrection(f.Correction, m)
	defer debug.SetGCPercent(debug.SetGCPercent(runGCPercent))
	d, err := readData(f.Data, dataset.Options{Label: f.Label, NoHeader: f.NoHeader, NoStandardize: f.NoStandardize, DropConstant: f.DropConstant})
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	if m == exchange.ReLDMethod && !(f.SwapBatch == d.N || f.SwapBatchAuto && f.Batch == d.N) {
		// reld's exact swap rule needs exact energies; found out at the
		// first swap, after the curvature and the pilots, otherwise.
		return fmt.Errorf("--method reld: noise-free replica exchange needs exact energies: give --swap-batch %d (all %d examples) or --batch %d", d.N, d.N, d.N)
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
		x, p = d.TakeWithIntercept() // in X's own storage: one copy of the data
		names = append([]string{"intercept"}, names...)
	}
	lr, err := models.NewLogistic(x, d.Y, p, f.PriorSD)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Data, err)
	}
	var runWarning string
	sum := logisticSummary{Settings: f, N: d.N, Names: names, Label: d.Label, FeatureMean: d.Means, FeatureSD: d.SDs}
	// The curvature sets the automatic step size, the run length and the
	// scale against which a stuck chain is recognised (lmin = 0: unknown;
	// see logisticCurvature for data too large for a Hessian).
	ids, _ := f.chainFlags.ids()
	if err := heldDraws(f.Keep, p, len(ids), d.N); err != nil {
		return err
	}
	if f.Method == autoMethod {
		return runLogisticAuto(cmd, f, lr, d, x, names, ids, sum)
	}
	curv, curvErr := logisticCurvature(lr, f.Seed)
	lmin := curv.lmin
	if f.EtaAuto {
		if curvErr != nil {
			return fmt.Errorf("automatic step size: %w (give --eta)", curvErr)
		}
		f.Eta = 0.2 / curv.lmax
		sum.StepRuleNotes = "η = 0.2/λ_max, " + curv.note
	}
	if f.BatchAuto {
		// The gradients' spread at the chains' start and at the mode.
		at := [][]float64{make([]float64, p)}
		if curv.mode != nil {
			at = append(at, curv.mode)
		}
		n, nstar, s2, err := coldSize(lr, at, f.Eta, 1, f.Seed)
		if err != nil {
			return fmt.Errorf("automatic --batch: %w", err)
		}
		sum.BatchRule = fmt.Sprintf("n = ⌈n*⌉ in [%d, %d]: n* = %.4g gives gradient noise %.0f%% of the budget 2τη at S²_max = %.4g", coldMin, coldMax, nstar, 100*coldShare, s2)
		if float64(n) < nstar && f.EtaAuto {
			f.Eta = etaFor(d.N, n, s2, 1, coldShare)
			sum.StepRuleNotes += fmt.Sprintf("; lowered to η = %.4g, at which n = %d meets the batch rule", f.Eta, n)
		}
		f.Batch = n
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--batch", f.Batch}, {"--hot-batch", f.HotBatch}, {"--swap-batch", f.SwapBatch}} {
		if b.v > d.N {
			return fmt.Errorf("%s = %d: the data have %d examples", b.flag, b.v, d.N)
		}
	}
	if err := f.runSize(p); err != nil {
		return err
	}
	if f.BurnAuto || f.ThinAuto {
		note, warn := f.setRunLength(lr, curv, p)
		sum.RunRule = note
		if warn != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "warning:", warn)
			runWarning = warn
		}
		if err := f.runSize(p); err != nil {
			return err
		}
	}
	if f.SwapPerStep/f.Eta > 0 && !(f.SwapPerStep/f.Eta < math.Inf(1)) {
		return fmt.Errorf("--swap-rate = %v with η = %v: the swap intensity a = rate/η overflows", f.SwapPerStep, f.Eta)
	}
	hotStart := f.HotBatch
	if hotStart == 0 {
		hotStart = f.Batch // the automatic rule's pilot draw
	}
	eta := langevin.Constant{Step: f.Eta}
	var buildWith func(id int, e exchange.Energies) (*exchange.Sampler, error)
	autos := map[int]*variance.AutoBatch{}
	var energies exchange.Energies
	// build makes chain id's ladder: minibatches, variance models and random
	// streams of its own, with the swap energies chosen below.
	build := func(id int) (*exchange.Sampler, error) { return buildWith(id, energies) }
	buildWith = func(id int, energies exchange.Energies) (*exchange.Sampler, error) {
		cold, err := energy.NewMinibatch(lr, f.Batch)
		if err != nil {
			return nil, fmt.Errorf("--batch: %w", err)
		}
		hot, err := energy.NewMinibatch(lr, hotStart)
		if err != nil {
			return nil, fmt.Errorf("--hot-batch: %w", err)
		}
		if !f.SwapBatchAuto {
			for _, mb := range []*energy.Minibatch{cold, hot} {
				if err := mb.SetEnergySize(f.SwapBatch); err != nil {
					return nil, fmt.Errorf("--swap-batch: %w", err)
				}
			}
		}
		energies.Terms = lr
		setup := exchange.Setup{
			Tau1: 1, Tau2: f.Tau2, Levels: f.Levels, Eta: eta, Cold: cold, Hot: hot,
			A: f.SwapPerStep / f.Eta, A1: 0.5, Seed: exchange.ChainSeed(f.Seed, id), Correction: corr,
			Energies: energies,
		}
		if f.HotBatchAuto {
			delete(autos, id)
			// Every hot level sizes its own minibatch at its own τ; the
			// summary reports the first hot level's.
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
	// From here on SIGINT and SIGTERM stop the work (the swap-energy pilot,
	// sampling) within a step, keeping every draw taken; before, nothing is
	// running that could be kept, and the signal ends the process at once.
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	if !oneLevel(m) && m != exchange.ReLDMethod { // reld swaps on exact energies; one chain does not swap
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
		fmt.Fprintf(os.Stderr, "swap energies: %s (%s)\n", ch.Mode, ch.Rule)
	}
	settings, err := settingsOf(f)
	if err != nil {
		return err
	}
	// The chain files record what the run uses, not the flag's stand-in:
	// an automatic hot batch is sized as the run goes (not 0), and auto
	// swap energies resolve to a mode.
	for i := range settings {
		if settings[i][0] == "hot_batch" && f.HotBatchAuto && !oneLevel(m) {
			settings[i][1] = fmt.Sprintf("auto (from %d)", hotStart)
		}
	}
	if sum.Swap != nil {
		settings = append(settings, [2]string{"swap_energies_used", sum.Swap.Mode})
	}
	if d.Means != nil {
		settings = append(settings, standardisationSettings(d.Means, d.SDs)...)
	}
	out, err := output.Prepare(f.Out, chainStale(f.Out, ids, f.Chain > 0)...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	run := chainRun{
		Header:     chainHeader{Command: "logistic", Seed: f.Seed, Burn: f.Burn, Keep: f.Keep, Thin: f.Thin, Settings: settings},
		Names:      names,
		Plan:       exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: f.Thin},
		New:        build,
		LogDensity: logDensity(lr, f.Seed),
		Dir:        out,
		Ctx:        ctx,
		Label:      "logistic " + f.Method,
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
	sum.WallSeconds = wall.Seconds()
	var extra []string
	if runWarning != "" {
		extra = append(extra, runWarning)
	}
	var chosen []int
	for _, id := range ids {
		if a := autos[id]; a != nil && m != exchange.ReSGLDMethod && m != exchange.SGLDMethod {
			st := a.Stats()
			sum.HotBatch = append(sum.HotBatch, &st)
			chosen = append(chosen, st.N)
			if w := a.Warning(); w != "" {
				extra = append(extra, fmt.Sprintf("chain %d: %s", id, w))
			}
		}
	}
	if len(chosen) > 0 {
		// summary.json's settings say the size the run ended with (the
		// median over chains; each chain's is in hot_batch_automatic),
		// not the 0 that stands for "auto" in the flag.
		slices.Sort(chosen)
		f.HotBatch = chosen[len(chosen)/2]
	}
	// The command's own checks (a stuck or drifting chain, separable data)
	// look at each chain on its own.
	featureSD := sampledScales(x, d.N, p)
	for _, c := range chains {
		tr := c.trace(names)
		if tr.Len() == 0 {
			continue
		}
		mean, sd := traceMoments(tr)
		w := logisticChecks{flags: f, stats: c.Ladder, trace: tr, names: names, mean: mean, sd: sd, lmin: lmin, featureSD: featureSD, n: d.N}
		for _, msg := range w.warnings() {
			extra = append(extra, fmt.Sprintf("chain %d: %s", c.Header.ID, msg))
		}
	}
	fmt.Printf("%s on %s (%d examples, %d coefficients), %d chain(s) in %.1fs:\n", f.Method, f.Data, d.N, p, len(ids), sum.WallSeconds)
	if sum.Swap != nil {
		extra = append(extra, reportSwaps(chains, &sum.swapSummary)...)
	}
	if err := finishChains(cmd.ErrOrStderr(), out, chains, &sum.chainsSummary, &sum, writeErr, extra); err != nil {
		return err // an interrupted or stopped chain keeps its checkpoint
	}
	return run.finished(ids)
}

// maxHeld bounds the draws of a run with more coefficients than examples:
// numbers over all chains (400 MB in memory, and about 1 GB of chain CSV
// text), every variable's R̂, ESS and quantiles computed from them. On issue
// 20's 60 × 10,000 file, 4 chains × 5000 draws of 10,002 variables took 8.5
// minutes and 3.1 GB, most of it after sampling, for coefficients that
// the data mostly leave to the prior.
const maxHeld = 5e7

// heldDraws refuses, before any work, a run with p > N whose draws would
// exceed maxHeld, saying why so many coefficients are a poor use of the
// data and giving the --keep that fits. With p ≤ N the draws are bounded
// only by memory (runSize): long runs on tall data are the usual case.
func heldDraws(keep, p, chains, N int) error {
	vars := p + 1 // with lp__
	if p <= N || float64(keep)*float64(vars)*float64(chains) <= maxHeld {
		return nil
	}
	fit := int(maxHeld / (float64(vars) * float64(chains)))
	msg := fmt.Sprintf("--keep = %d: p = %d coefficients but N = %d examples: the data inform at most %d directions of the coefficients, the other %d are the prior's; and %d chain(s) × %d draws × %d variables = %.3g numbers (%.2g GB) to hold, summarise and write, more than the %.3g a run with p > N allows",
		keep, p, N, N, p-N, chains, keep, vars, float64(keep)*float64(vars)*float64(chains), float64(keep)*float64(vars)*float64(chains)*8/1e9, maxHeld)
	if fit >= 1 {
		msg += fmt.Sprintf(": give --keep %d or less (or fewer --chains), or better, fewer features (selected, or projected onto principal components)", fit)
	} else {
		msg += ": use fewer features (selected, or projected onto principal components)"
	}
	return errors.New(msg)
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
