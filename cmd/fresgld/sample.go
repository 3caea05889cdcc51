package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/sampling"
	"github.com/fresgld/fresgld/usermodel"
)

// sampleFlags are the settings of a run on a model in another process.
type sampleFlags struct {
	ModelCmd   string        `json:"model_cmd,omitempty"`
	Stan       string        `json:"stan,omitempty"`
	Data       string        `json:"data,omitempty"`
	Init       string        `json:"init,omitempty"`
	Timeout    time.Duration `json:"-"` // changes no draw
	Procs      int           `json:"-"` // changes no draw
	Method     string        `json:"method"`
	AdaptDelta float64       `json:"adapt_delta"`
	Seed       uint64        `json:"seed"`
	Tau2       float64       `json:"tau2"`
	levelFlags
	stepFlags
	SwapEnergies string `json:"swap_energies"`
	SwapGaussian bool   `json:"swap_gaussian"`
	runFlags
}

// sampler binds the shared flags to f's fields.
func (f *sampleFlags) sampler() samplerFlags {
	return samplerFlags{seed: &f.Seed, tau2: &f.Tau2, levels: &f.levelFlags, step: &f.stepFlags, swapEnergies: &f.SwapEnergies, swapGaussian: &f.SwapGaussian, run: &f.runFlags}
}

func init() {
	f := &sampleFlags{}
	cmd := addCommand("sample", "sample the posterior of a model in any language, run as a process", func(cmd *cobra.Command) error { return runSample(cmd, f) })
	fl := cmd.Flags()
	fl.StringVar(&f.ModelCmd, "model-cmd", "", "command that runs the model process, e.g. 'python3 model.py data.csv' (this or --stan)")
	fl.StringVar(&f.Stan, "stan", "", "a Stan model (.stan), compiled once (needs rstan, StanHeaders, g++)")
	fl.StringVar(&f.Data, "data", "", "with --stan: the model's data, JSON as CmdStan reads it, or an R dump (.R)")
	fl.StringVar(&f.Init, "init", "", "with --stan: a start, JSON or an R dump, as CmdStan's --init")
	fl.DurationVar(&f.Timeout, "model-timeout", modelproc.DefaultTimeout, "longest wait for any one reply of the model, its handshake included")
	fl.IntVar(&f.Procs, "model-procs", 0, "copies of the model process (0: one per chain; 1: a model that cannot run twice)")
	fl.StringVar(&f.Method, "method", string(analysis.AutoMethod), "auto, nuts, or "+methodHelp)
	fl.Float64Var(&f.AdaptDelta, "adapt-delta", 0.8, "NUTS's target acceptance, Stan's adapt_delta (raise where it diverges)")
	f.sampler().add(cmd, "exact")
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
	if f.Method != nutsMethod {
		var err error
		if m, err = parseMethod(f.Method); err != nil {
			return "", err
		}
	}
	if m != analysis.AutoMethod && cmd.Flags().Changed("adapt-delta") {
		// Only the plan (auto) and nuts run NUTS: the flag would change
		// nothing, and the user would believe it had.
		return "", fmt.Errorf("--adapt-delta: --method %s runs no NUTS (only auto, where the plan chooses NUTS, and nuts do)", f.Method)
	}
	f.sampler().planKeep(cmd, m)
	if m == analysis.AutoMethod {
		if err := checkAuto(cmd); err != nil {
			return "", err
		}
	}
	return m, f.sampler().validate(cmd, f.options(cmd, m))
}

func runSample(cmd *cobra.Command, f *sampleFlags) error {
	method, err := f.validate(cmd)
	if err != nil {
		return err
	}
	o := f.options(cmd, method)
	ctx, stop := interrupt.Context(cmd.Context())
	defer stop()
	command := f.ModelCmd
	var sm *usermodel.Stan
	if f.Stan != "" {
		if sm, err = usermodel.OpenStan(ctx, f.Stan, f.Data, f.Init, f.Seed, cmd.ErrOrStderr()); err != nil {
			return err
		}
		defer sm.Close()
		if sm.Native != nil {
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
	o.ProgressNote = usermodel.Busy(m)
	model := plan.Model{Terms: m, Names: m.Names()}
	if sm != nil {
		if model, err = sm.PlanModel(m, f.Seed); err != nil {
			return err
		}
	} else if err := plan.CheckGradient(m, m.Names(), nil, f.Seed); err != nil {
		// A Stan model's gradient is its autodiff's; a model of the
		// user's own is checked before it is sampled.
		return fmt.Errorf("--model-cmd %q: %w", f.ModelCmd, err)
	}
	return usermodel.Failure(m, command, runSampling(cmd, sampling.Run{Model: model, Options: o, Ctx: ctx, Stop: stop,
		Headline: func(res *analysis.Result) string {
			if sm != nil {
				sm.Notes(res, m.Rejected)
			}
			if m.Err() != nil {
				usermodel.Blame(&res.Summary, command)
			}
			if sm != nil {
				return fmt.Sprintf("%s on the Stan model %s (%d unconstrained parameters), %d chain(s) in %.1fs, %d requests to %d model process(es):", f.Method, f.Stan, m.Dim(), len(o.Chains), res.Wall.Seconds(), m.Requests(), m.Procs())
			}
			return fmt.Sprintf("%s on %q (%d examples, %d parameters), %d chain(s) in %.1fs, %d requests to %d model process(es):", f.Method, f.ModelCmd, m.Len(), m.Dim(), len(o.Chains), res.Wall.Seconds(), m.Requests(), m.Procs())
		},
		Summary: func(res *analysis.Result) any {
			var modelErr string
			if m.Err() != nil {
				modelErr = m.Err().Error()
			}
			return &sampleSummary{Settings: f, N: m.Len(), Names: m.Names(), WallSeconds: res.Wall.Seconds(), Requests: m.Requests(), Procs: m.Procs(), ModelError: modelErr,
				StepRule: res.StepRule, RunRule: res.RunRule, Plan: res.Plan, Result: sampling.ResultOf(res)}
		}}))
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
	StepRule string            `json:"step_rule,omitempty"`
	RunRule  string            `json:"run_length_rule,omitempty"`
	Plan     *plan.PlanSummary `json:"plan,omitempty"`
	sampling.Result
}

// options are the analysis options the flags set (0 or analysis.Auto where
// automatic).
func (f *sampleFlags) options(cmd *cobra.Command, method exchange.Method) analysis.Options {
	o := f.sampler().options(cmd, method)
	o.NUTS, o.AdaptDelta = f.Method == nutsMethod, f.AdaptDelta
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
	g.sampler().resolved(o)
	return settingsLines(&g, o)
}
