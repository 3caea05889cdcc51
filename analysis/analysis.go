package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// Result is what an analysis found. A command prints it; a program
// inspects it.
type Result struct {
	// Options are those the run used, its automatic values filled in.
	Options Options
	// Rules say how the automatic values were chosen.
	StepRule, BatchRule, RunRule string
	// Notes say how the run was planned, one line each (the log-concave
	// plan's sampler and why it runs no ladder).
	Notes []string
	// SDBias bounds the relative error in the posterior sds that the
	// sampler carries at stationarity (0: exact in law), for the plan
	// (AutoMethod); NaN where it is not known.
	SDBias float64
	// Plan is what the plan chose (nil unless Options.Method is
	// AutoMethod).
	Plan *plan.PlanSummary
	// Occupancy is each chain's share of draws at each mode the plan's
	// search found (nil unless it found several).
	Occupancy *modes.Occupancy
	// Swap is the swap energies' choice and measured noise and cost (nil
	// without a ladder); SwapLines say it in words.
	Swap      *SwapSummary
	SwapLines []string
	// HotBatch are the automatic hot minibatches' statistics, per chain.
	HotBatch []*variance.AutoStats
	// Tuning is the ladder's tuning under --levels auto (nil without),
	// the same for every chain.
	Tuning *exchange.Adapted
	// Summary is the table: every variable's mean, sd, quantiles, ESS and
	// R̂, the swap acceptance, the clamped steps and the cost.
	Summary results.Summary
	// Warnings say what in the run not to trust, each with its remedy.
	Warnings []results.Warning
	Wall     time.Duration
	// Chains are the chains' draws, as their CSVs hold them.
	Chains []*results.Chain
	// Err is a chain's stopping error or a write error: the draws taken
	// are kept and summarised all the same.
	Err error

	dir *output.Dir
	ids []int
	run ChainRun
}

// Run fills in o's automatic values for m, runs the chains and streams
// each chain's draws to chain-<c>.csv in o.Out, then summarises them. An
// interrupted run (ctx cancelled) returns the draws taken with Err set.
func Run(ctx context.Context, m plan.Model, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := validateModel(m); err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := output.Check(o.Out); err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	res := &Result{SDBias: math.NaN()}
	var curv plan.Curvature
	var cp plan.ChainPlan
	var err error
	if o.Method == AutoMethod && m.Terms.Dim() > plan.PlanMaxDim {
		res.Notes = []string{fmt.Sprintf("sampler: corrected (one SGLD chain per --chains whose gradient noise counts toward its temperature): p = %d > %d, beyond which the plan's dense p×p preconditioner costs p² a step and p³ to factor", m.Terms.Dim(), plan.PlanMaxDim)}
		o.Method = exchange.CorrectedMethod
	}
	// The plan's run length, which may extend itself (ChainRun.Extend).
	planned := o.Extend && o.Method == AutoMethod && o.Thin == 0
	if o.Method == AutoMethod {
		// In φ every direction relaxes at the slowest one's rate: the
		// stuck-chain check reads the step as Rate at λ_min = 1.
		cp, err = planDefaults(ctx, m, &o, res)
		curv.Lmin = 1
	} else {
		curv, err = Defaults(ctx, m, &o, res)
	}
	if err != nil {
		return nil, err
	}
	if o.Before != nil {
		if err := o.Before(&o); err != nil {
			return nil, err
		}
	}
	res.Options = o
	names := modelNames(m)
	autos := map[int]*variance.AutoBatch{}
	var energies exchange.Energies
	if o.swap != nil {
		energies = o.swap.Energies
	}
	build := func(id int) (*exchange.Sampler, error) { return buildSampler(m, o, id, energies, autos) }
	var tuned *exchange.Adapted // under --levels auto, the chains' ladder
	var tuneWarn []results.Warning
	if o.Levels == AutoLevels {
		var once sync.Once
		var tuneErr error
		build = func(id int) (*exchange.Sampler, error) {
			once.Do(func() {
				if tuned, tuneErr = tuneLadder(ctx, m, o, energies); tuneErr == nil {
					tuneWarn = longTuning(o, tuned.Steps, energies)
					energies = tunedPeriod(m, o, energies, len(tuned.Taus))
				}
			})
			if tuneErr != nil {
				return nil, tuneErr
			}
			return tunedSampler(m, o, id, energies, autos, tuned)
		}
	}
	settings := o.settings()
	checkEta := o.Eta
	var algorithm string
	if cp != nil {
		build = func(id int) (*exchange.Sampler, error) { return cp.Sampler(o.Seed, id) }
		settings = append(planSettings(settings), [2]string{"sampler", cp.Note()})
		algorithm = cp.Algorithm()
		checkEta = cp.Rate()
	}
	run := ChainRun{
		Header:       results.ChainHeader{Command: o.Command, Algorithm: algorithm, Seed: o.Seed, Burn: o.Burn, Keep: o.Keep, Thin: o.Thin, Settings: settings},
		Names:        names,
		Plan:         exchange.Plan{Burn: o.Burn, Keep: o.Keep, Thin: o.Thin},
		New:          build,
		LogDensity:   logDensity(m.Terms, o.Seed),
		ExactLP:      m.Terms.Len()*m.Terms.Dim() <= lpWork, // logDensity's own rule
		Generated:    m.Generated,
		Generate:     m.Generate,
		Sample:       o.Sample,
		Out:          o.Out,
		Single:       o.Single,
		Label:        o.Command + " " + string(o.Method),
		Progress:     o.Progress,
		ProgressNote: o.ProgressNote,
		Every:        o.CheckpointEvery,
		Args:         o.Args,
		Cwd:          o.Cwd,
		Version:      o.Version,
		Inputs:       o.Inputs,
		Resume:       o.Resume,
		Extend:       planned,
	}
	before := res.Warnings
	sampled, err := Sample(ctx, run, o.Chains)
	if sampled == nil {
		return nil, err
	}
	res.Chains, res.Wall, res.Err, res.dir, res.ids, res.run, res.Summary = sampled.Chains, sampled.Wall, sampled.Err, sampled.dir, sampled.ids, sampled.run, sampled.Summary
	res.Notes = append(res.Notes, sampled.Notes...)
	if err != nil {
		return res, err
	}
	chains := res.Chains
	if tuned != nil {
		res.Tuning = tuned
		res.Notes = append(res.Notes, tuneNote(tuned))
	}
	extra := append(before, tuneWarn...) // those found before sampling
	var chosen []int
	for _, id := range o.Chains {
		if a := autos[id]; a != nil && o.Method != exchange.ReSGLDMethod && o.Method != exchange.SGLDMethod {
			st := a.Stats()
			res.HotBatch = append(res.HotBatch, &st)
			chosen = append(chosen, st.N)
			if w := a.Warning(); w != "" {
				extra = append(extra, results.Warning{Code: "hot-batch", Chain: id, Message: fmt.Sprintf("chain %d: %s", id, w)})
			}
		}
	}
	if len(chosen) > 0 {
		// The size the run ended with (the median over chains; each
		// chain's is in HotBatch), not the 0 that stands for automatic.
		slices.Sort(chosen)
		res.Options.HotBatch = chosen[len(chosen)/2]
	}
	for _, c := range chains {
		tr := c.Trace(names)
		if tr.Len() == 0 {
			continue
		}
		mean, sd := results.TraceMoments(tr)
		if m.NoChainChecks {
			continue
		}
		w := chainChecks{eta: checkEta, stats: c.Ladder, trace: tr, names: names, mean: mean, sd: sd, lmin: curv.Lmin}
		for _, x := range w.warnings() {
			x.Chain, x.Message = c.Header.ID, fmt.Sprintf("chain %d: %s", c.Header.ID, x.Message)
			extra = append(extra, x)
		}
		if m.Check != nil {
			for _, msg := range m.Check(mean) {
				extra = append(extra, results.Warning{Code: "model", Chain: c.Header.ID, Message: fmt.Sprintf("chain %d: %s", c.Header.ID, msg)})
			}
		}
	}
	if mp, ok := cp.(*plan.ModePlan); ok && len(mp.Search.Modes) > 1 {
		var ids []int
		for _, c := range chains {
			ids = append(ids, c.Header.ID)
		}
		res.Occupancy = mp.Search.Occupancy(chains, names[:m.Terms.Dim()])
		extra = append(extra, res.Occupancy.Warnings(mp.Search, ids)...)
	}
	if np, ok := cp.(*plan.NUTSPlan); ok {
		extra = append(extra, np.Warnings()...)
	}
	searched := ""
	if res.Plan != nil && res.Plan.Search != nil {
		searched = res.Plan.Search.Searched
	}
	extra = append(extra, results.ApartWarnings(chains, nil, searched)...)
	if o.swap != nil {
		res.Swap = &SwapSummary{Swap: o.swap}
		var ws []results.Warning
		res.SwapLines, ws = reportSwaps(chains, res.Swap)
		extra = append(extra, ws...)
	}
	res.AddWarnings(extra...)
	return res, nil
}

// buildSampler makes chain id's ladder: minibatches, variance models and
// random streams of its own, with the swap energies given. Under --levels
// auto it runs the starting ladder (AutoTune.Start levels), untuned: the
// pilots'.
func buildSampler(m plan.Model, o Options, id int, energies exchange.Energies, autos map[int]*variance.AutoBatch) (*exchange.Sampler, error) {
	setup, err := samplerSetup(m, o, id, energies, autos)
	if err != nil {
		return nil, err
	}
	cfg, err := o.Method.Config(setup)
	if err != nil {
		return nil, err
	}
	inits := make([][]float64, len(cfg.Levels))
	for l := range inits {
		inits[l] = make([]float64, m.Terms.Dim())
	}
	return exchange.New(cfg, inits)
}

// samplerSetup is chain id's ladder before it is built (buildSampler).
func samplerSetup(m plan.Model, o Options, id int, energies exchange.Energies, autos map[int]*variance.AutoBatch) (exchange.Setup, error) {
	lr := m.Terms
	hotStart := o.HotBatch
	if hotStart == 0 {
		hotStart = o.Batch // the automatic rule's pilot draw
	}
	cold, err := energy.NewMinibatch(lr, o.Batch)
	if err != nil {
		return exchange.Setup{}, fmt.Errorf("--batch: %w", err)
	}
	hot, err := energy.NewMinibatch(lr, hotStart)
	if err != nil {
		return exchange.Setup{}, fmt.Errorf("--hot-batch: %w", err)
	}
	if o.SwapBatch > 0 {
		for _, mb := range []*energy.Minibatch{cold, hot} {
			if err := mb.SetEnergySize(o.SwapBatch); err != nil {
				return exchange.Setup{}, fmt.Errorf("--swap-batch: %w", err)
			}
		}
	}
	levels := o.Levels
	if levels == AutoLevels {
		levels = AutoTune.Start
	}
	energies.Terms = lr
	var eta langevin.Schedule = langevin.Constant{Step: o.Eta}
	if o.Schedule != nil {
		eta = o.Schedule
	}
	setup := exchange.Setup{
		Tau1: 1, Tau2: o.Tau2, Levels: levels, Eta: eta, Cold: cold, Hot: hot,
		A: o.SwapRate / o.Eta, A1: 0.5, Seed: exchange.ChainSeed(o.Seed, id), Correction: o.Correction,
		Energies: energies,
	}
	if o.HotBatch == 0 {
		delete(autos, id)
		// Every hot level sizes its own minibatch at its own τ; the
		// summary reports the first hot level's.
		setup.HotVarAt = func(est energy.Estimator, tau float64) (variance.Model, error) {
			mb, ok := est.(*energy.Minibatch)
			if !ok {
				return nil, fmt.Errorf("hot estimator %T is not a minibatch", est)
			}
			a, err := variance.NewAutoBatch(mb, tau, eta, hotOptions(o.HotShare))
			if err != nil {
				return nil, fmt.Errorf("--hot-share: %w", err)
			}
			if autos != nil && autos[id] == nil {
				autos[id] = a
			}
			return a, nil
		}
	}
	return setup, nil
}

// Write writes summary.txt (the table), summary.json (full, or the
// Summary when full is nil) and the figures into the run's directory. It
// returns the figures' note (which variables they show, when not all).
func (r *Result) Write(full any) (note string, err error) {
	return results.WriteSummary(r.dir, r.Chains, r.Summary, full)
}

// AddWarnings puts ws before the summary's own warnings (in the Summary
// too, whose lines summary.json holds).
func (r *Result) AddWarnings(ws ...results.Warning) {
	r.Warnings = append(slices.Clone(ws), r.Summary.Details...)
	r.Summary.SetWarnings(r.Warnings)
}

// Finished removes the checkpoints of a run whose chains all completed and
// whose summaries are written: nothing is left to resume.
func (r *Result) Finished() error { return r.run.finished(r.ids) }

// SetExactDensity gives variable name's exact marginal density, where the
// command knows it: the marginals figure draws it over the chains'.
func (r *Result) SetExactDensity(name string, pdf func(float64) float64) {
	r.Summary.SetExactDensity(name, pdf)
}

// Dir is the output directory.
func (r *Result) Dir() *output.Dir { return r.dir }

// Stopped is the error of the chains that stopped early (their draws are
// kept), nil when every chain finished.
// ResumeCommand is the command that continues r where its chains left
// checkpoints (an interrupted run), or "" where none did.
func (r *Result) ResumeCommand() string {
	if r.dir == nil {
		return ""
	}
	for _, id := range r.ids {
		if _, err := os.Stat(r.dir.File(CheckpointName(id))); err == nil {
			if r.run.Single {
				return fmt.Sprintf("fresgld resume --chain %d %s", id, r.dir.Path())
			}
			return "fresgld resume " + r.dir.Path()
		}
	}
	return ""
}

func (r *Result) Stopped() error { return results.StoppedError(r.Summary, len(r.Chains), r.dir) }

// modelNames are m's names, or theta1, theta2, … where it has none.
func modelNames(m plan.Model) []string {
	if m.Names != nil {
		return m.Names
	}
	return results.CoordNames(m.Terms.Dim())
}

// validateModel checks m's shape before any work: its Terms, and names
// and a start of its dimension.
func validateModel(m plan.Model) error {
	if m.Terms == nil {
		return errors.New("analysis: a model needs its Terms")
	}
	if m.Names != nil && len(m.Names) != m.Terms.Dim() {
		return fmt.Errorf("analysis: %d names for %d coordinates", len(m.Names), m.Terms.Dim())
	}
	if m.Init != nil && len(m.Init) != m.Terms.Dim() {
		return fmt.Errorf("analysis: a start of %d values for %d coordinates", len(m.Init), m.Terms.Dim())
	}
	return nil
}

// writeLog writes a line to w, if w is set.
func writeLog(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
