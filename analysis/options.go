package analysis

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/plan"
)

// Auto marks Options.Burn as automatic (every other automatic value is 0).
const Auto = -1

// Options are the settings of an analysis. Zero values mean automatic
// where a field says so: Defaults fills them in from the model. Each field
// names the fresgld flag that sets it, as errors do.
type Options struct {
	// Command names the run in its outputs (the CSVs' model line).
	Command    string
	Method     exchange.Method     // --method
	Correction exchange.Correction // --correction
	Seed       uint64              // --seed
	Tau2       float64             // --tau2: the hottest level's temperature
	Levels     int                 // --levels, geometric from 1 to Tau2; 1 under AutoMethod: the plan's sampler on one level; AutoLevels: tuned
	// NUTS makes the plan (AutoMethod) run NUTS whatever the posterior
	// (--method nuts), with no mode search.
	NUTS bool
	// AdaptDelta is the mean acceptance statistic NUTS's warmup tunes its
	// step size to, wherever the plan runs NUTS (--adapt-delta, Stan's
	// adapt_delta); 0 on commands without the flag: Stan's 0.8.
	AdaptDelta float64
	Eta        float64 // --eta (0: automatic)
	Batch      int     // --batch, the cold minibatch (0: automatic)
	HotBatch   int     // --hot-batch (0: automatic, sized during burn-in)
	HotShare   float64 // --hot-share
	SwapRate   float64 // --swap-rate: probability of an attempt per step
	SwapBatch  int     // --swap-batch (0: each chain's own minibatch)
	// SwapEnergies is "auto" or an exchange.EnergyMode's name.
	SwapEnergies string // --swap-energies
	// SwapEnergiesRule, when set, says why SwapEnergies (not auto) was
	// chosen: a command's own default, the flag not given (default: "set
	// by --swap-energies").
	SwapEnergiesRule string
	ExactEvery       int     // --exact-every (0: automatic, swapPeriod)
	SwapPilot        int     // --swap-pilot
	SwapNoiseCap     float64 // --swap-noise-cap
	Burn             int     // --burn (Auto: automatic)
	Keep             int     // --keep
	// Extend lets a run whose length the plan chose (--method auto, thin
	// automatic) run on past Keep, to at most ExtendMax times it, where its
	// draws fall short of the verdict's bulk ESS or R̂ (the commands: unless
	// --keep is given).
	Extend bool
	Thin   int // --thin (0: automatic)
	// SwapGaussian (--swap-gaussian) runs --swap-energies draw on
	// minibatch energies, whose noise the penalty rule takes for Gaussian.
	SwapGaussian bool
	// Chains are the chains to run, numbered from 1; Single says they
	// are one chain of a larger run (--chain c), whose other chains' files
	// are left alone.
	Chains []int
	Single bool
	// Out is the output directory.
	Out string
	// Checkpoints: seconds between them (0: none), and the command line
	// and version they record for fresgld resume; Resume, when set, holds
	// the checkpoints this run continues from.
	CheckpointEvery float64
	Args            []string
	Cwd, Version    string
	// Inputs are the files the run reads, fingerprinted (Fingerprint):
	// its checkpoints record them, and a resume refuses where one changed.
	Inputs []Input
	Resume *Resume
	// Log, when set, receives what the run says before sampling (its
	// choice of swap energies, the warnings found then), as they happen.
	Log io.Writer
	// Progress, when set, receives the run's progress while it samples
	// (stderr; nil: none), with ProgressNote's text, when set, on each line.
	Progress     io.Writer
	ProgressNote func() string
	// Settings, when set, gives the settings lines of the chains' CSVs
	// from the options as resolved (default: the options' own).
	Settings func(Options) [][2]string
	// Before, when set, sees the options as resolved, before sampling,
	// and may set what depends on them (Schedule, Sample).
	Before func(*Options) error
	// Schedule, when set, replaces the constant step size Eta (cyclical
	// SGLD); Sample then says which retained steps are samples.
	Schedule langevin.Schedule
	Sample   func(step int) bool

	swap *SwapChoice // the swap energies chosen
}

// DefaultOptions are fresgld logistic's defaults: everything automatic.
func DefaultOptions() Options {
	return Options{Command: "analysis", Method: AutoMethod, Seed: 1, Tau2: 4, Levels: 2, HotShare: 0.9,
		SwapRate: 0.1, SwapEnergies: "auto", SwapPilot: 2000, SwapNoiseCap: 2, Burn: Auto, Keep: plan.PlanKeep, Extend: true, Chains: []int{1, 2, 3, 4}}
}

// Limits of the options.
const (
	// MaxTau2 bounds Tau2: the hot chain at τ2 = 10⁶ already explores a
	// region 1000 times the posterior's width; beyond, it only loses swaps.
	MaxTau2 = 1e6
	// MaxLevels bounds a ladder's levels.
	MaxLevels = 256
	// MaxSteps bounds every count of steps (a run, a tuning, a pilot): a
	// step counter must not wrap.
	MaxSteps = math.MaxInt32
)

// Validate checks the options that do not need the model, before any
// work; Run calls it first.
func (o Options) Validate() error {
	if len(o.Chains) == 0 {
		return errors.New("analysis: no chains to run")
	}
	if !(o.Tau2 > 0) || math.IsInf(o.Tau2, 0) {
		return fmt.Errorf("--tau2 = %v: must be positive and finite", o.Tau2)
	}
	if err := RunSize(max(o.Burn, 0), o.Keep, max(o.Thin, 1), 0, o.Burn == Auto, o.Thin == 0); err != nil {
		return err
	}
	if !(o.SwapRate > 0 && o.SwapRate <= 1) {
		// 0 is not "no swaps": the sampler reads a zero intensity as an
		// attempt at every step.
		return fmt.Errorf("--swap-rate = %v: must lie in (0, 1], the probability of a swap attempt per step (for a run without swaps, --method sgld)", o.SwapRate)
	}
	if !(o.Tau2 > 1) || o.Tau2 > MaxTau2 {
		return fmt.Errorf("--tau2 = %v: must lie in (1, %g] (above the cold temperature 1; a hotter chain's noise 2τ2η swamps any posterior)", o.Tau2, MaxTau2)
	}
	if o.SwapEnergies != "auto" {
		if _, err := exchange.ParseEnergyMode(o.SwapEnergies); err != nil {
			return fmt.Errorf("--swap-energies: %w; or auto, the default", err)
		}
	}
	switch {
	case o.Levels == AutoLevels && (o.Method == AutoMethod || !ladder(o.Method)):
		return fmt.Errorf("--levels auto: method %s tunes no ladder (the replica-exchange methods do; the plan, --method auto, sizes its own)", o.Method)
	case o.Levels < 2 && o.Levels != AutoLevels && !(o.Levels == 1 && o.Method == AutoMethod):
		return fmt.Errorf("--levels = %d: need at least 2 (--levels 1 with --method auto runs the plan's sampler on one level)", o.Levels)
	}
	if !(o.AdaptDelta == 0 || o.AdaptDelta > 0 && o.AdaptDelta < 1) {
		return fmt.Errorf("--adapt-delta = %v: must lie in (0, 1), the mean acceptance NUTS's step size is tuned to (Stan's 0.8; 0.9–0.99 for a smaller step where transitions diverge)", o.AdaptDelta)
	}
	if !(o.SwapNoiseCap >= 0) || math.IsInf(o.SwapNoiseCap, 1) {
		return fmt.Errorf("--swap-noise-cap = %v: must be a number of nats ≥ 0 (0: no cap)", o.SwapNoiseCap)
	}
	if o.ExactEvery < 0 {
		return fmt.Errorf("--exact-every = %d: must be ≥ 0 (0: ⌈4KN/n⌉ steps for K levels)", o.ExactEvery)
	}
	if o.SwapPilot < 1 {
		return fmt.Errorf("--swap-pilot = %d: must be ≥ 1 step (the pilot of --swap-energies auto; to skip it, choose the mode with --swap-energies)", o.SwapPilot)
	}
	if o.SwapPilot > MaxSteps {
		return fmt.Errorf("--swap-pilot = %d: at most %d steps", o.SwapPilot, MaxSteps)
	}
	if o.Levels > MaxLevels {
		return fmt.Errorf("--levels = %d: at most %d", o.Levels, MaxLevels)
	}
	if !(o.HotShare > 0 && o.HotShare <= 1) {
		return fmt.Errorf("--hot-share = %v: must lie in (0, 1]", o.HotShare)
	}
	if !(o.Eta >= 0) || math.IsInf(o.Eta, 0) {
		return fmt.Errorf("--eta = %v: must be positive and finite (or auto)", o.Eta)
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--batch", o.Batch}, {"--hot-batch", o.HotBatch}, {"--swap-batch", o.SwapBatch}} {
		if b.v < 0 {
			return fmt.Errorf("%s = %d: must be ≥ 1 (or auto)", b.flag, b.v)
		}
	}
	return nil
}

// settings are the chains' CSV settings lines.
func (o Options) settings() [][2]string {
	if o.Settings != nil {
		return o.Settings(o)
	}
	s := [][2]string{
		{"sampler", string(o.Method)}, {"correction", o.Correction.String()}, {"tau2", fmt.Sprint(o.Tau2)},
		{"eta", fmt.Sprint(o.Eta)}, {"batch", fmt.Sprint(o.Batch)}, {"hot_batch", fmt.Sprint(o.HotBatch)},
		{"hot_share", fmt.Sprint(o.HotShare)}, {"swap_probability_per_step", fmt.Sprint(o.SwapRate)},
		{"swap_batch", fmt.Sprint(o.SwapBatch)}, {"swap_energies", o.SwapEnergies}, {"exact_every", fmt.Sprint(o.ExactEvery)},
		{"swap_pilot", fmt.Sprint(o.SwapPilot)}, {"swap_noise_cap", fmt.Sprint(o.SwapNoiseCap)}, {"levels", levelsSetting(o.Levels)},
		{"chains", fmt.Sprint(len(o.Chains))},
	}
	if o.SwapGaussian {
		s = append(s, [2]string{"swap_gaussian", "true"})
	}
	if o.swap != nil {
		s = append(s, [2]string{"swap_energies_used", o.swap.Mode})
	}
	return s
}

// SwapMode is the swap energies' mode the run uses ("" without a ladder).
func (o Options) SwapMode() string {
	if o.swap == nil {
		return ""
	}
	return o.swap.Mode
}

// maxFloats bounds the samples a run keeps in memory (8 GB of float64s).
const maxFloats = 1 << 30

// RunSize checks burn, keep and thin, and that the kept draws of dim
// coordinates fit in memory and the step count in an int (dim 0: not yet
// known). An automatic burn or thin, its value not yet known, is checked at
// its smallest (burn 0, thin 1) and named as automatic in errors.
func RunSize(burn, keep, thin, dim int, burnAuto, thinAuto bool) error {
	for _, c := range []struct {
		flag   string
		v, lo  int
		isAuto bool
	}{{"--burn", burn, 0, burnAuto}, {"--keep", keep, 1, false}, {"--thin", thin, 1, thinAuto}} {
		if c.v < c.lo && !c.isAuto {
			return fmt.Errorf("%s = %d: must be ≥ %d", c.flag, c.v, c.lo)
		}
	}
	if most := maxFloats / max(dim, 1); keep > most {
		if dim == 0 {
			return fmt.Errorf("--keep = %d: that many draws would not fit in memory (at most %d, 8 GB of numbers, even for a model of one coordinate)", keep, most)
		}
		return fmt.Errorf("--keep = %d: %d draws of %d coordinates would not fit in memory (at most %d draws, 8 GB of numbers)", keep, keep, dim, most)
	}
	if thin > (math.MaxInt32-burn)/keep {
		plan := fmt.Sprintf("--keep = %d × --thin = %d = %.3g steps", keep, thin, float64(keep)*float64(thin))
		if thinAuto {
			plan = fmt.Sprintf("--keep = %d steps", keep)
		}
		switch {
		case burnAuto:
			plan += " (before the automatic --burn)"
		case burn > 0:
			plan += fmt.Sprintf(" + --burn = %d", burn)
		}
		return fmt.Errorf("%s: more than the %d steps a run can take", plan, math.MaxInt32)
	}
	return nil
}
