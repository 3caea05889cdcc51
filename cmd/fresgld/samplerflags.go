package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/plan"
)

// The flags that sample, regress, logistic and mixture share, defined
// once. Each command's settings struct holds them in parts (levelFlags,
// stepFlags, ...), each part where the command's struct had its fields:
// the struct's order is the order of its settings in summary.json and in
// the chains' CSVs.

// levelFlags are --levels.
type levelFlags struct {
	Levels     int  `json:"levels"`
	LevelsAuto bool `json:"levels_automatic"`
}

// stepFlags are --eta and --batch: the step size and the cold minibatch.
type stepFlags struct {
	Eta       float64 `json:"eta"`
	EtaAuto   bool    `json:"eta_automatic"`
	Batch     int     `json:"batch"` // cold minibatch
	BatchAuto bool    `json:"batch_automatic"`
}

// hotFlags are the hot levels' minibatch and the swap rate (regress and
// logistic).
type hotFlags struct {
	HotBatch     int     `json:"hot_batch"` // 0 with HotBatchAuto: sized during burn-in
	HotBatchAuto bool    `json:"hot_batch_automatic"`
	Share        float64 `json:"hot_share"`
	SwapPerStep  float64 `json:"swap_probability_per_step"`
}

// swapFlags are the swap energies' settings (regress and logistic).
type swapFlags struct {
	SwapEnergies string  `json:"swap_energies"`
	ExactEvery   int     `json:"exact_every"` // 0: automatic
	SwapPilot    int     `json:"swap_pilot"`
	SwapNoiseCap float64 `json:"swap_noise_cap"`
	SwapGaussian bool    `json:"swap_gaussian"`
}

// runFlags are the run's length, its chains and its output directory.
type runFlags struct {
	Burn     int  `json:"burn"`
	BurnAuto bool `json:"burn_automatic"`
	Keep     int  `json:"keep"`
	Thin     int  `json:"thin"`
	ThinAuto bool `json:"thin_automatic"`
	chainFlags
	Out string `json:"-"`
}

// tableFlags are --data, --label and --no-header: the CSV table a
// regression (logistic, regress) is fitted to and the column it explains.
type tableFlags struct {
	Data     string `json:"data"`
	Label    string `json:"label"`
	NoHeader bool   `json:"no_header"`
}

// add registers the flags, --data and --label with the command's own
// usage.
func (t *tableFlags) add(fl *pflag.FlagSet, data, label string) {
	fl.StringVar(&t.Data, "data", "", data)
	fl.StringVar(&t.Label, "label", "", label)
	fl.BoolVar(&t.NoHeader, "no-header", false, "the first line is data, not column names")
}

// samplerFlags binds the shared flags to the parts of one command's
// settings that hold them.
type samplerFlags struct {
	seed         *uint64
	tau2         *float64
	levels       *levelFlags
	step         *stepFlags
	swapEnergies *string
	swapGaussian *bool
	hot          *hotFlags  // nil: no --hot-batch, --hot-share or --swap-rate
	swap         *swapFlags // nil: no --exact-every, --swap-pilot or --swap-noise-cap
	run          *runFlags
}

// add registers the shared flags on cmd, --swap-energies with its default
// swapEnergies and --out with out/<command>.
func (s samplerFlags) add(cmd *cobra.Command, swapEnergies string) {
	fl := cmd.Flags()
	fl.Uint64Var(s.seed, "seed", 1, "random seed")
	fl.Float64Var(s.tau2, "tau2", 4, "hot temperature τ2")
	s.levels.Levels = 2
	fl.Var(autoValue[int]{&s.levels.Levels, &s.levels.LevelsAuto}, "levels", "levels, geometric from 1 to --tau2; auto: tuned first (4 to 16 levels)")
	s.step.EtaAuto, s.step.BatchAuto = true, true
	fl.Var(autoValue[float64]{&s.step.Eta, &s.step.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoValue[int]{&s.step.Batch, &s.step.BatchAuto}, "batch", "cold minibatch size (auto: its noise takes half the budget)")
	fl.StringVar(s.swapEnergies, "swap-energies", swapEnergies, "auto, or a mode of docs/reference/swap-energies.md")
	fl.BoolVar(s.swapGaussian, "swap-gaussian", false, "let --swap-energies draw take the energy noise for Gaussian (else refused)")
	if h := s.hot; h != nil {
		h.HotBatchAuto = true
		fl.Var(autoValue[int]{&h.HotBatch, &h.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: its noise supplies --hot-share of the budget)")
		fl.Float64Var(&h.Share, "hot-share", 0.9, "--hot-batch auto: share of the noise budget 2τ2η its noise supplies")
		fl.Float64Var(&h.SwapPerStep, "swap-rate", 0.1, "probability a·η of a swap attempt a step, in (0, 1]")
	}
	if w := s.swap; w != nil {
		fl.IntVar(&w.ExactEvery, "exact-every", 0, "steps between exact swap attempts (0: automatic, docs/reference/swap-energies.md)")
		fl.IntVar(&w.SwapPilot, "swap-pilot", 2000, "steps of the pilot run of --swap-energies auto")
		fl.Float64Var(&w.SwapNoiseCap, "swap-noise-cap", 2, "decline swaps whose noise τδ²V/2 exceeds this many nats (0: never)")
	}
	r := s.run
	r.BurnAuto, r.ThinAuto = true, true
	fl.Var(autoValue[int]{&r.Burn, &r.BurnAuto}, "burn", "steps discarded first (auto: from the slowest direction's relaxation)")
	fl.IntVar(&r.Keep, "keep", 5000, "draws a chain (auto: 1000, up to 2× where ESS is short, unless given)")
	fl.Var(autoValue[int]{&r.Thin, &r.ThinAuto}, "thin", "steps between kept draws (auto: from the slowest direction)")
	addChainFlags(fl, &r.chainFlags)
	fl.StringVar(&r.Out, "out", "out/"+cmd.Name(), "output directory")
}

// validate checks, before any work, the shared flags, the options o and
// the output directory (output.Prepare, which clears an earlier run's
// files, waits until sampling is about to start).
func (s samplerFlags) validate(cmd *cobra.Command, o analysis.Options) error {
	r, st := s.run, s.step
	var hot error
	if h := s.hot; h != nil {
		hot = explicit("--hot-batch", h.HotBatch, h.HotBatchAuto)
	}
	if err := firstError(checkChainCount(r.chainFlags), checkChainFlag(cmd.Flags(), r.chainFlags), runSizeAuto(r.Burn, r.Keep, r.Thin, 0, r.BurnAuto, r.ThinAuto),
		explicit("--eta", st.Eta, st.EtaAuto), explicit("--batch", st.Batch, st.BatchAuto), hot, o.Validate()); err != nil {
		return err
	}
	if err := output.Check(r.Out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// options are the analysis options the shared flags set for method m (0
// or analysis.Auto where automatic); the command sets its own on them.
func (s samplerFlags) options(cmd *cobra.Command, m exchange.Method) analysis.Options {
	o := analysis.DefaultOptions()
	o.Command, o.Method, o.Seed, o.Tau2 = cmd.Name(), m, *s.seed, *s.tau2
	o.Levels, o.Eta, o.Batch = s.levels.Levels, s.step.Eta, s.step.Batch
	zeroIf(&o.Levels, s.levels.LevelsAuto)
	zeroIf(&o.Eta, s.step.EtaAuto)
	zeroIf(&o.Batch, s.step.BatchAuto)
	o.SwapEnergies, o.SwapGaussian = *s.swapEnergies, *s.swapGaussian
	if h := s.hot; h != nil {
		o.HotBatch, o.HotShare, o.SwapRate = h.HotBatch, h.Share, h.SwapPerStep
		zeroIf(&o.HotBatch, h.HotBatchAuto)
	}
	if w := s.swap; w != nil {
		o.ExactEvery, o.SwapPilot, o.SwapNoiseCap = w.ExactEvery, w.SwapPilot, w.SwapNoiseCap
	}
	r := s.run
	o.Burn, o.Keep, o.Thin = r.Burn, r.Keep, r.Thin
	o.Extend = !cmd.Flags().Changed("keep") // a --keep given is the user's
	if r.BurnAuto {
		o.Burn = analysis.Auto
	}
	zeroIf(&o.Thin, r.ThinAuto)
	o.Chains, _ = r.ids()
	o.Single, o.CheckpointEvery, o.Out = r.Chain > 0, r.Every, r.Out
	o.Args, o.Inputs, o.Cwd, o.Version, o.Resume = runArgs(cmd), runInputs(cmd), workingDir(), buildVersion(), resuming
	o.Log, o.Progress = cmd.ErrOrStderr(), progressTo(cmd)
	return o
}

// resolved takes the values a run chose (automatic ones among them) into
// the flags, for the summary and the chains' settings.
func (s samplerFlags) resolved(o analysis.Options) {
	s.step.Eta, s.step.Batch, s.run.Burn, s.run.Thin = o.Eta, o.Batch, o.Burn, o.Thin
}

// parseMethod reads --method: a sampler's name, or auto.
func parseMethod(name string) (exchange.Method, error) {
	if name == string(analysis.AutoMethod) {
		return analysis.AutoMethod, nil
	}
	m, err := exchange.ParseMethod(name)
	if err != nil {
		return "", fmt.Errorf("--method: %w; or auto, the default", err)
	}
	return m, nil
}

// planKeep gives --keep the plan's default under --method auto, unless
// the user gave it.
func (s samplerFlags) planKeep(cmd *cobra.Command, m exchange.Method) {
	if m == analysis.AutoMethod && !cmd.Flags().Changed("keep") {
		s.run.Keep = plan.PlanKeep
	}
}
