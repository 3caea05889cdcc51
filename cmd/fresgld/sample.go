package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/output"
)

// sampleFlags are the settings of a run on a model in another process.
type sampleFlags struct {
	ModelCmd     string        `json:"model_cmd,omitempty"`
	Stan         string        `json:"stan,omitempty"`
	Data         string        `json:"data,omitempty"`
	Init         string        `json:"init,omitempty"`
	Timeout      time.Duration `json:"-"` // changes no draw
	Procs        int           `json:"-"` // changes no draw
	Method       string        `json:"method"`
	AdaptDelta   float64       `json:"adapt_delta"`
	Seed         uint64        `json:"seed"`
	Tau2         float64       `json:"tau2"`
	Levels       int           `json:"levels"`
	LevelsAuto   bool          `json:"levels_automatic"`
	Eta          float64       `json:"eta"`
	EtaAuto      bool          `json:"eta_automatic"`
	Batch        int           `json:"batch"`
	BatchAuto    bool          `json:"batch_automatic"`
	SwapEnergies string        `json:"swap_energies"`
	SwapGaussian bool          `json:"swap_gaussian"`
	Burn         int           `json:"burn"`
	BurnAuto     bool          `json:"burn_automatic"`
	Keep         int           `json:"keep"`
	Thin         int           `json:"thin"`
	ThinAuto     bool          `json:"thin_automatic"`
	chainFlags
	Out string `json:"-"`
}

func init() {
	f := &sampleFlags{}
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "sample the posterior of a model in any language, run as a process",
		Long:  help("sample"),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runSample(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.ModelCmd, "model-cmd", "", "command that runs the model process, e.g. 'python3 model.py data.csv' (this or --stan)")
	fl.StringVar(&f.Stan, "stan", "", "a Stan model (.stan), compiled once (needs rstan, StanHeaders, g++)")
	fl.StringVar(&f.Data, "data", "", "with --stan: the model's data, JSON as CmdStan reads it, or an R dump (.R)")
	fl.StringVar(&f.Init, "init", "", "with --stan: a start, JSON or an R dump, as CmdStan's --init")
	fl.DurationVar(&f.Timeout, "model-timeout", modelproc.DefaultTimeout, "longest wait for any one reply of the model, its handshake included")
	fl.IntVar(&f.Procs, "model-procs", 0, "copies of the model process (0: one per chain; 1: a model that cannot run twice)")
	fl.StringVar(&f.Method, "method", string(analysis.AutoMethod), "auto, nuts, or "+methodHelp)
	fl.Float64Var(&f.AdaptDelta, "adapt-delta", 0.8, "NUTS's target acceptance, Stan's adapt_delta (raise where it diverges)")
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fl.Float64Var(&f.Tau2, "tau2", 4, "hot temperature τ2")
	f.Levels = 2
	fl.Var(autoValue[int]{&f.Levels, &f.LevelsAuto}, "levels", "levels, geometric from 1 to --tau2; auto: tuned first (4 to 16 levels)")
	f.EtaAuto, f.BatchAuto, f.BurnAuto, f.ThinAuto = true, true, true, true
	fl.Var(autoValue[float64]{&f.Eta, &f.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoValue[int]{&f.Batch, &f.BatchAuto}, "batch", "cold minibatch size (auto: its noise takes half the budget)")
	fl.StringVar(&f.SwapEnergies, "swap-energies", "exact", "exact, pair, minibatch, draw, auto, cv, pair-cv, taylor, pair-taylor")
	fl.BoolVar(&f.SwapGaussian, "swap-gaussian", false, "let --swap-energies draw take the energy noise for Gaussian (else refused)")
	fl.Var(autoValue[int]{&f.Burn, &f.BurnAuto}, "burn", "steps discarded first (auto: from the slowest direction's relaxation)")
	fl.IntVar(&f.Keep, "keep", 5000, "draws kept a chain (--method auto: 1000 unless given)")
	fl.Var(autoValue[int]{&f.Thin, &f.ThinAuto}, "thin", "steps between kept draws (auto)")
	addChainFlags(fl, &f.chainFlags)
	fl.StringVar(&f.Out, "out", "out/sample", "output directory")
	rootCmd.AddCommand(cmd)
}

// validate checks the flags before the model starts.
func (f *sampleFlags) validate(cmd *cobra.Command) (exchange.Method, error) {
	switch {
	case f.Stan != "" && f.ModelCmd != "":
		return "", errors.New("--stan and --model-cmd: give one model, not both")
	case f.Stan == "" && strings.TrimSpace(f.ModelCmd) == "":
		return "", errors.New("--model-cmd: no command given (e.g. --model-cmd 'python3 model.py data.csv'); or give a Stan model, --stan model.stan --data data.json")
	case f.Stan == "" && (f.Data != "" || f.Init != ""):
		return "", errors.New("--data and --init are a Stan model's (--stan); a --model-cmd reads its own data")
	case f.Stan != "":
		for _, fl := range [][2]string{{"--stan", f.Stan}, {"--data", f.Data}, {"--init", f.Init}} {
			if fl[1] == "" {
				continue
			}
			if _, err := os.Stat(fl[1]); err != nil {
				return "", fmt.Errorf("%s %s: %w", fl[0], fl[1], errors.Unwrap(err))
			}
		}
	}
	if f.Timeout <= 0 {
		return "", fmt.Errorf("--model-timeout = %v: must be positive", f.Timeout)
	}
	if f.Procs < 0 {
		return "", fmt.Errorf("--model-procs = %d: must be 0 (one per chain) or more", f.Procs)
	}
	m := analysis.AutoMethod
	if f.Method != string(m) && f.Method != nutsMethod {
		var err error
		if m, err = exchange.ParseMethod(f.Method); err != nil {
			return "", fmt.Errorf("--method: %w; or auto, the default", err)
		}
	} else {
		if !cmd.Flags().Changed("keep") {
			f.Keep = analysis.PlanKeep
		}
		if err := checkAuto(cmd); err != nil {
			return "", err
		}
	}
	burn, thin := f.Burn, f.Thin
	if f.BurnAuto {
		burn = 0
	}
	if f.ThinAuto {
		thin = 1
	}
	return m, firstError(checkChainCount(f.chainFlags), checkChainFlag(cmd.Flags(), f.chainFlags),
		analysis.RunSize(burn, f.Keep, thin, 0, f.BurnAuto, f.ThinAuto), output.Check(f.Out))
}

func runSample(cmd *cobra.Command, f *sampleFlags) error {
	method, err := f.validate(cmd)
	if err != nil {
		return err
	}
	o := f.options(cmd, method)
	if err := o.Validate(); err != nil {
		return err
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	command := f.ModelCmd
	var sm *stanModel
	if f.Stan != "" {
		if sm, err = openStan(ctx, f, cmd.ErrOrStderr()); err != nil {
			return err
		}
		defer sm.close()
		if sm.native != nil {
			return runStanNative(ctx, stop, cmd, f, o, sm)
		}
		command = sm.Command()
	}
	// A copy of the model for each chain by default, so that chains
	// sampling at once do not take turns at one process.
	procs := f.Procs
	if procs == 0 {
		procs = len(o.Chains)
	}
	m, err := modelproc.Start(command, modelproc.Options{Timeout: f.Timeout, Stderr: cmd.ErrOrStderr(), Procs: procs})
	if err != nil {
		if f.Stan != "" {
			return fmt.Errorf("--stan %s: %w", f.Stan, err)
		}
		return fmt.Errorf("--model-cmd: %w", err)
	}
	defer m.Close()
	o.ProgressNote = modelBusy(m)
	model := analysis.Model{Terms: m, Names: m.Names()}
	if sm != nil {
		if model, err = sm.analysisModel(m, f.Seed); err != nil {
			return err
		}
	} else if err := analysis.CheckGradient(m, m.Names(), nil, f.Seed); err != nil {
		// A Stan model's gradient is its autodiff's; a model of the
		// user's own is checked before it is sampled.
		return fmt.Errorf("--model-cmd %q: %w", f.ModelCmd, err)
	}
	res, err := analysis.Run(ctx, model, o)
	stop()
	if err != nil {
		return modelError(m, command, err)
	}
	if sm != nil {
		sm.notes(res, m.Rejected)
	}
	var modelErr string
	if m.Err() != nil {
		blameModel(&res.Summary, command)
		modelErr = m.Err().Error()
	}
	if sm != nil {
		fmt.Printf("%s on the Stan model %s (%d unconstrained parameters), %d chain(s) in %.1fs, %d requests to %d model process(es):\n", f.Method, f.Stan, m.Dim(), len(o.Chains), res.Wall.Seconds(), m.Requests(), m.Procs())
	} else {
		fmt.Printf("%s on %q (%d examples, %d parameters), %d chain(s) in %.1fs, %d requests to %d model process(es):\n", f.Method, f.ModelCmd, m.Len(), m.Dim(), len(o.Chains), res.Wall.Seconds(), m.Requests(), m.Procs())
	}
	printLines(res.Notes)
	sum := sampleSummary{Settings: f, N: m.Len(), Names: m.Names(), WallSeconds: res.Wall.Seconds(), Requests: m.Requests(), Procs: m.Procs(), ModelError: modelErr, LadderTuning: res.Tuning, Summary: res.Summary, StepRule: res.StepRule, RunRule: res.RunRule, Plan: res.Plan}
	if res.Swap != nil {
		sum.SwapSummary = *res.Swap
	}
	return modelError(m, command, report(cmd, res, &sum))
}

// nutsMethod is --method nuts: the plan's NUTS, whatever the posterior.
const nutsMethod = "nuts"

// sampleSummary is summary.json of a sample run.
type sampleSummary struct {
	Settings    *sampleFlags `json:"settings"`
	N           int          `json:"examples"`
	Names       []string     `json:"parameters_named"`
	WallSeconds float64      `json:"wall_seconds"`
	Requests    int64        `json:"model_requests"`  // round trips to the model, all processes
	Procs       int          `json:"model_processes"` // copies of the model run
	// ModelError is the model process's failure, its standard error's
	// tail and exit status among it: the report shows it.
	ModelError string `json:"model_error,omitempty"`
	// StepRule and RunRule say how the plan chose the sampler and the run
	// length, Plan what it chose and, where it searched for modes, what
	// the search looked at (the report's verdict holds only within it).
	StepRule string                `json:"step_rule,omitempty"`
	RunRule  string                `json:"run_length_rule,omitempty"`
	Plan     *analysis.PlanSummary `json:"plan,omitempty"`
	analysis.SwapSummary
	// LadderTuning is the ladder's tuning under --levels auto.
	LadderTuning *exchange.Adapted `json:"ladder_tuning,omitempty"`
	analysis.Summary
}

// blameModel gives the chains' stop warnings of a run whose model failed
// their true cause: they stopped on what the failed model answered (a NaN,
// nothing), not on their step size, so the sampler's own account of the
// stop (a divergence, a variance, its Go types) is left out and the model
// named.
func blameModel(s *analysis.Summary, cmd string) {
	remedy := fmt.Sprintf("the model process %q failed: its error is printed last, and kept in summary.json (model_error) and report.html; the step size is not the cause", cmd)
	for i, w := range s.Details {
		if w.Code == "stopped" {
			s.Details[i].Message = fmt.Sprintf("chain %d stopped after %d steps: %s", w.Chain, int(w.Number), remedy)
			s.Details[i].Remedy = remedy
			s.Warnings[i] = s.Details[i].Message
		}
	}
}

// options are the analysis options the flags set (0 or analysis.Auto where
// automatic).
func (f *sampleFlags) options(cmd *cobra.Command, method exchange.Method) analysis.Options {
	o := analysis.DefaultOptions()
	o.Command, o.Method, o.Seed, o.Tau2, o.Levels, o.SwapEnergies = "sample", method, f.Seed, f.Tau2, f.Levels, f.SwapEnergies
	o.NUTS, o.AdaptDelta = f.Method == nutsMethod, f.AdaptDelta
	zeroIf(&o.Levels, f.LevelsAuto)
	o.Keep, o.Out, o.Log, o.Progress = f.Keep, f.Out, cmd.ErrOrStderr(), progressTo(cmd)
	o.SwapGaussian = f.SwapGaussian
	o.Chains, _ = f.chainFlags.ids()
	o.Single, o.CheckpointEvery = f.Chain > 0, f.Every
	o.Args, o.Cwd, o.Version, o.Resume = runArgs(cmd), workingDir(), buildVersion(), resuming
	o.Inputs = runInputs(cmd)
	if !f.EtaAuto {
		o.Eta = f.Eta
	}
	if !f.BatchAuto {
		o.Batch = f.Batch
	}
	if !f.BurnAuto {
		o.Burn = f.Burn
	}
	if !f.ThinAuto {
		o.Thin = f.Thin
	}
	if !cmd.Flags().Changed("swap-energies") {
		o.SwapEnergiesRule = "sample's default: the modes with anchors would ask the model for them example by example, a round trip each; --swap-energies chooses another"
	}
	o.Settings = f.settings
	return o
}

// settings are the chain CSVs' settings lines: the flags, the model command
// among them, with the values the run uses.
func (f *sampleFlags) settings(o analysis.Options) [][2]string {
	g := *f
	g.Eta, g.Batch, g.Burn, g.Thin = o.Eta, o.Batch, o.Burn, o.Thin
	s, _ := settingsOf(&g)
	if mode := o.SwapMode(); mode != "" {
		s = append(s, [2]string{"swap_energies_used", mode})
	}
	return s
}

// modelBusy is the progress note of a run on m: the share of the time
// since the last note that the model's process spent computing, which says
// whether the model or the sampler sets the pace.
func modelBusy(m *modelproc.Model) func() string {
	cpu0, _ := m.CPUTime()
	t0 := time.Now()
	return func() string {
		cpu, ok := m.CPUTime()
		now := time.Now()
		if !ok || !now.After(t0) {
			return ""
		}
		note := fmt.Sprintf("model busy %.0f%%", 100*float64(cpu-cpu0)/float64(now.Sub(t0)))
		cpu0, t0 = cpu, now
		return note
	}
}

// modelError puts the model's own failure, if it had one, before err: the
// sampler saw only the NaN or the silence that followed it, so err's account
// (a diverged level, a Hessian that is not positive definite, --eta) is not
// the cause and is left out; only the stage the run was in is said.
func modelError(m *modelproc.Model, cmd string, err error) error {
	merr := m.Err()
	switch {
	case merr == nil:
		return err
	case err == nil:
		return merr
	}
	stage := ""
	if s, _, ok := strings.Cut(err.Error(), ": "); ok && stageName.MatchString(s) {
		stage = " (in its " + s + ")"
	}
	// What err says of the files is kept: a chain file that keeps the
	// draws of the run a resume continued, one a full disk left short.
	var files []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if strings.Contains(l, analysis.ErrKeptEarlier.Error()) || strings.Contains(l, "holds only") {
			files = append(files, "\n"+l)
		}
	}
	return fmt.Errorf("%w\nthe run stopped on it%s: the model process %q failed, not the sampler: fix the model (run its command by hand on the request above) and run again%s", merr, stage, cmd, strings.Join(files, ""))
}

// stageName matches the name of a run's stage that an error begins with
// ("automatic step size"), not a file's or a chain's.
var stageName = regexp.MustCompile(`^[a-z][a-z ]{2,40}$`)
