package analysis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/progress"
	"github.com/fresgld/fresgld/results"
)

// SummaryOutputs are the files finishChains writes.
func SummaryOutputs() []string {
	out := []string{"summary.txt", "summary.json", "report.html"}
	for _, f := range []string{"trace", "ranks", "marginals", "replicas"} {
		out = append(out, f+".png", f+".svg")
	}
	return out
}

// chainStale lists the files of an earlier run in dir that a run of the
// chains ids replaces: every chain CSV when it runs them all, only its own
// when it runs one (--chain), so that array tasks may share a directory;
// a single chain's run leaves the summaries too.
//
// Their checkpoints go too, but not while resuming: fresgld resume
// continues the chain files and checkpoints it finds.
func chainStale(dir string, ids []int, single bool, resuming *Resume, others ...string) []string {
	if single {
		// The summaries beside it are its sibling tasks' (an array job
		// sharing --out): each task replaces them whole when it ends.
		stale := slices.Clone(others)
		if resuming != nil {
			return stale
		}
		return append(stale, results.ChainName(ids[0]), CheckpointName(ids[0]))
	}
	stale := append(SummaryOutputs(), others...)
	if resuming != nil {
		return stale
	}
	for _, pat := range []string{"chain-*.csv", "chain-*.ckpt"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range m {
			stale = append(stale, filepath.Base(f))
		}
	}
	return stale
}

// ChainRun is a multi-chain run of a command.
type ChainRun struct {
	Header results.ChainHeader // its ID is set per chain
	Names  []string            // the parameters
	Plan   exchange.Plan
	// New builds chain id's sampler. Chains must share no mutable state
	// (each gets its own estimators) and seed their streams with
	// exchange.ChainSeed(Header.Seed, id).
	New func(id int) (*exchange.Sampler, error)
	// LogDensity is lp__: the log density of the target at θ, up to a
	// constant, evaluated exactly on every retained draw (not a sampler
	// cost: it is output).
	LogDensity func(theta []float64) float64
	// ExactLP says LogDensity is exactly −U: lp__ is then −U from the
	// sampler where its cold level holds U already (Sampler.ColdEnergy),
	// a full pass over the data saved per draw.
	ExactLP bool
	// Generated, when set, names quantities computed from every retained
	// draw (Stan's generated quantities), written after the parameters:
	// Generate(out, θ) fills out, one value per name. It must be safe
	// for concurrent use.
	Generated []string
	Generate  func(out, theta []float64)
	// Sample, when set, says which retained steps are samples (cyclical
	// SGLD's exploration stages are not): the others are not written.
	Sample func(step int) bool
	// Out is the output directory; Single says the chains are one chain
	// of a larger run (--chain c), whose other chains' files are left
	// alone; Stale are other files of an earlier run there to remove.
	Out    string
	Single bool
	Stale  []string
	Label  string // for the progress bar
	// Progress, when set, receives the run's progress while it runs
	// (stderr; nil: none), with ProgressNote's text, when set, on each line.
	Progress     io.Writer
	ProgressNote func() string
	// Extend lets the run grow its draws when the plan's run length
	// falls short of the verdict's ESS or R̂ (extension).
	Extend bool
	// Every is the seconds between checkpoints (0: none); Args and Cwd
	// are the command line they record, for fresgld resume.
	Every   float64
	Args    []string
	Cwd     string
	Version string
	// Inputs are the files the run reads (Input), which its checkpoints
	// record and a resume must find unchanged.
	Inputs []Input
	// Resume, when set, holds the checkpoints the chains continue from.
	Resume *Resume

	dir *output.Dir
	// later are the earlier outputs a resume removes once its chains are
	// restored: a refused resume leaves every file as it was.
	later []string
	// ctx cancelled (SIGINT, SIGTERM): every running chain stops before its
	// next step and keeps its draws, a chain still waiting for a core never
	// starts, and --levels auto tuning stops.
	ctx context.Context
}

// run builds every chain's sampler first, so that a setup error comes
// before any sampling, then runs the chains in parallel, each streaming its
// draws to chain-<id>.csv in r.dir. It returns the chains as the CSVs hold
// them; a chain's stopping error is in its Stats.Stopped, a write error is
// returned beside the chains.
func (r ChainRun) run(ids []int) ([]*results.Chain, time.Duration, string, error) {
	smps := make([]*exchange.Sampler, len(ids))
	defer func() {
		for _, s := range smps {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i, id := range ids {
		s, err := r.New(id)
		if err != nil {
			if errors.Is(err, exchange.ErrStopped) {
				return nil, 0, "", fmt.Errorf("%w while preparing chain %d (tuning its ladder), before any draw: nothing to keep", results.ErrInterrupted, id)
			}
			if i > 0 {
				err = fmt.Errorf("chain %d: %w", id, err)
			}
			return nil, 0, "", err
		}
		smps[i] = s
	}
	K := smps[0].Levels()
	for i, s := range smps {
		if s.Levels() != K {
			// One run's chains share their columns, one per level.
			return nil, 0, "", fmt.Errorf("chain %d's ladder has %d levels, chain %d's %d: the chains of one run need ladders of as many levels (a tuned ladder: tune once, for every chain)", ids[i], s.Levels(), ids[0], K)
		}
	}
	columns := []string{"lp__", results.ColSwaps, results.ColClamped}
	for l := range K {
		columns = append(columns, results.ReplicaCol(l+1))
	}
	columns = append(columns, r.Names...)
	columns = append(columns, r.Generated...)
	chains := make([]*results.Chain, len(ids))
	sinks := make([]exchange.Sink, len(ids))
	ws := make([]*results.StanWriter, len(ids))
	done := make([]int, len(ids))
	var errs []error
	closeAll := func(n int) {
		for _, w := range ws[:n] {
			w.Close(results.ChainStats{})
		}
	}
	cp := newCheckpointer(len(ids), r.Every)
	defer cp.close()
	for i, id := range ids {
		h := r.Header
		h.ID = id
		k := &chainSink{plan: r.Plan, lp: r.LogDensity, exactLP: r.ExactLP, gen: r.Generate, sample: r.Sample, row: make([]float64, len(columns)), levels: K, smp: smps[i], start: time.Now()}
		var ck *Checkpoint
		if r.Resume != nil {
			ck = r.Resume.ckpts[id]
		}
		var err error
		if ck != nil {
			chains[i], k.w, err = r.resumeChain(h, columns, ck, smps[i])
			if err == nil {
				done[i] = ck.Steps
				k.swaps, k.clamped, k.warm, k.prior = ck.Swaps, ck.Clamped, ck.Warmup, ck.Elapsed
				k.start = time.Now().Add(-ck.Elapsed)
			}
		} else {
			k.w, err = results.CreateStanCSV(r.dir, results.ChainName(id), h, columns)
			if err == nil {
				chains[i] = &results.Chain{Path: r.dir.File(results.ChainName(id)), Comments: h.Lines(), Header: h, Columns: columns, Cols: make([][]float64, len(columns))}
				for j := range chains[i].Cols {
					// Reserve no more than a run of modest length: --keep may be
					// far larger than what an interrupted run ever draws.
					chains[i].Cols[j] = make([]float64, 0, min(r.Plan.Keep, 1<<16))
				}
			}
		}
		if err == nil && r.Every > 0 {
			k.ck = &Checkpoint{Format: checkpointFormat, Version: r.Version, Command: h.Command, Args: r.Args, Cwd: r.Cwd, Inputs: r.Inputs, Header: h.Lines(), Chain: id}
			k.ckPath, k.due = r.dir.File(CheckpointName(id)), &cp.due[i]
			// A sampler whose state cannot be saved is refused before any
			// step, not at its first checkpoint.
			if _, e := smps[i].MarshalBinary(); e != nil {
				err = fmt.Errorf("chain %d: --checkpoint-every: %w (or run with --checkpoint-every 0)", id, e)
				k.w.Close(results.ChainStats{})
			}
		}
		if err != nil {
			closeAll(i)
			return nil, 0, "", err
		}
		ws[i], k.c, sinks[i] = k.w, chains[i], k
	}
	for _, name := range r.later {
		// Every chain is restored: the interrupted run's summaries, which
		// the resumed run writes again, go now.
		if err := os.Remove(r.dir.File(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			closeAll(len(ids))
			return nil, 0, "", fmt.Errorf("removing the earlier run's %s: %w", name, err)
		}
	}
	plan := r.Plan
	plan.Stop = r.ctx.Done()
	extended := ""
	if r.Resume != nil {
		// A run interrupted while it extended goes on to the length its
		// extension chose, read from the plan's draws, with its note: the
		// run it continues, not one whose extension reads the chains again
		// where the interrupt left them (resumed at 1192 draws a chain, a
		// run that went to 1553 ended at 1388).
		for _, id := range ids {
			if ck := r.Resume.ckpts[id]; ck != nil && ck.Extend > plan.Keep {
				plan.Keep, extended = ck.Extend, ck.ExtendNote
			}
		}
	}
	for _, k := range sinks {
		k.(*chainSink).plan.Keep, k.(*chainSink).extNote = plan.Keep, extended
	}
	meter := progress.NewMeter(r.Progress, r.Label, len(ids), plan.Burn, plan.Keep, plan.Thin, done)
	if meter != nil {
		meter.Extra = r.ProgressNote
	}
	for i := range sinks {
		sinks[i].(*chainSink).meter, sinks[i].(*chainSink).index = meter, i
	}
	start := time.Now()
	meter.Start()
	res := exchange.ResumeChains(smps, plan, done, sinks, 0)
	meter.Stop()
	r.stats(chains, smps, res, sinks)
	keep, note := 0, ""
	if extended == "" { // a resumed extension goes only to its own length
		keep, note = r.extension(chains, res)
	}
	if keep > 0 {
		// The plan's run length fell short of the verdict's ESS or R̂:
		// every chain runs on with its frozen kernel.
		extended = note
		writeLog(r.Progress, "%s: %s\n", r.Label, note)
		prior := make([]time.Duration, len(smps))
		for i, s := range smps {
			k := sinks[i].(*chainSink)
			k.plan.Keep, k.extNote, done[i], prior[i] = keep, note, s.Steps(), res[i].Wall
		}
		plan.Keep = keep
		meter = progress.NewMeter(r.Progress, r.Label, len(ids), plan.Burn, plan.Keep, plan.Thin, done)
		if meter != nil {
			meter.Extra = r.ProgressNote
		}
		for i := range sinks {
			sinks[i].(*chainSink).meter = meter
		}
		meter.Start()
		res = exchange.ResumeChains(smps, plan, done, sinks, 0)
		meter.Stop()
		for i := range res {
			res[i].Wall += prior[i]
		}
		r.stats(chains, smps, res, sinks)
	}
	wall := time.Since(start)
	for i, s := range smps {
		k := sinks[i].(*chainSink)
		if r.Every > 0 && errors.Is(res[i].Err, exchange.ErrStopped) {
			// Interrupted: the state after the last step taken, before the
			// trailing statistics, for fresgld resume. A chain stopped by
			// a failure keeps its last periodic checkpoint: the failed
			// step's draw is not written, and its state would fail again.
			errs = append(errs, k.writeCheckpoint(s.Steps()))
		}
		errs = append(errs, ws[i].Close(chains[i].Stats))
	}
	if extended != "" && !slices.ContainsFunc(res, func(c exchange.ChainResult) bool { return c.Err != nil }) {
		// An interrupted run keeps the header its checkpoints hold, for
		// fresgld resume, which says the draws at its end.
		errs = append(errs, sayExtended(chains, plan.Keep))
	}
	return chains, wall, extended, errors.Join(errs...)
}

// stats sets each chain's statistics from its sampler and its result.
func (r ChainRun) stats(chains []*results.Chain, smps []*exchange.Sampler, res []exchange.ChainResult, sinks []exchange.Sink) {
	K := smps[0].Levels()
	for i, s := range smps {
		k := sinks[i].(*chainSink)
		st := results.ChainStats{Steps: s.Steps(), Cost: s.Units(), Wall: k.prior + res[i].Wall, Warmup: k.warm, Frozen: results.FrozenNote(res[i].Stats.Frozen)}
		accepted, adjusted := make([]int64, K), false
		jumps, jumpsAcc, jumped := make([]int64, K), make([]int64, K), false
		for l := range K {
			st.Clamped = append(st.Clamped, s.ClampedSteps(l))
			n, mh := s.Accepted(l)
			accepted[l] = -1
			if mh {
				accepted[l], adjusted = n, true
			}
			jumps[l], jumpsAcc[l] = -1, -1
			if n, a, on := s.Jumps(l); on {
				jumps[l], jumpsAcc[l], jumped = n, a, true
			}
		}
		if adjusted {
			st.Accepted = accepted
		}
		if jumped {
			st.Jumps, st.JumpsAccepted = jumps, jumpsAcc
		}
		for l := 0; l+1 < K; l++ {
			st.Attempts, st.Accepts = append(st.Attempts, s.Attempts(l)), append(st.Accepts, s.Accepts(l))
		}
		switch {
		case errors.Is(res[i].Err, exchange.ErrStopped):
			st.Stopped = results.ErrInterrupted.Error()
		case res[i].Err != nil:
			st.Stopped = res[i].Err.Error()
		}
		chains[i].Stats, chains[i].Ladder = st, res[i].Stats
	}
}

// finished removes the checkpoints of a run whose chains all completed and
// whose summaries are written: nothing is left to resume. Until then (a
// kill while the figures are drawn) the last steps' checkpoints let
// fresgld resume write the summaries again.
func (r ChainRun) finished(ids []int) error {
	if r.Every == 0 {
		return nil
	}
	return removeCheckpoints(r.dir, ids)
}

// headLines is the comment lines at the top of a chain's CSV.
func headLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var l []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "#") {
		l = append(l, sc.Text())
	}
	return l
}

// resumeChain restores chain h.ID from its checkpoint: the sampler's state,
// and its CSV cut back to the checkpoint's length and read back, so that
// the chain's draws in memory are those of the uninterrupted run.
func (r ChainRun) resumeChain(h results.ChainHeader, columns []string, ck *Checkpoint, s *exchange.Sampler) (*results.Chain, *results.StanWriter, error) {
	name := CheckpointName(h.ID)
	if err := sameHeader(name, ck.Header, h.Lines()); err != nil {
		return nil, nil, err
	}
	if most := r.mostSteps(); ck.Steps > most {
		return nil, nil, fmt.Errorf("%s: %d steps taken, the plan has %d", name, ck.Steps, most)
	}
	if err := s.UnmarshalBinary(ck.Sampler); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Steps() != ck.Steps {
		return nil, nil, fmt.Errorf("%s: the sampler took %d steps, the checkpoint counts %d", name, s.Steps(), ck.Steps)
	}
	// The file's settings are checked before it is cut: a refused resume
	// changes nothing.
	if err := sameHeader(results.ChainName(h.ID), headLines(r.dir.File(results.ChainName(h.ID))), h.Lines()); err != nil {
		return nil, nil, err
	}
	st, err := r.dir.AppendStream(results.ChainName(h.ID), ck.Offset)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	w := results.AppendStanCSV(results.ChainName(h.ID), st)
	c, err := results.ReadStanCSV(r.dir.File(results.ChainName(h.ID)))
	if err == nil {
		err = sameHeader(results.ChainName(h.ID), c.Comments, h.Lines())
	}
	if err == nil && !slices.Equal(c.Columns, columns) {
		err = fmt.Errorf("%s: columns %v, this run writes %v", results.ChainName(h.ID), c.Columns, columns)
	}
	want := 0
	if ck.Steps > r.Plan.Burn {
		want = (ck.Steps - r.Plan.Burn) / r.Plan.Thin
	}
	if err == nil && len(c.Cols[0]) != want {
		err = fmt.Errorf("%s: %d draws before the checkpoint's offset, its %d steps make %d", results.ChainName(h.ID), len(c.Cols[0]), ck.Steps, want)
	}
	if err != nil {
		w.Close(results.ChainStats{})
		return nil, nil, err
	}
	c.Path, c.Header, c.Stats, c.NoStats, c.Partial = r.dir.File(results.ChainName(h.ID)), h, results.ChainStats{}, false, false
	return c, w, nil
}

// chainSink writes a chain's retained draws to its CSV and keeps them.
type chainSink struct {
	smp     *exchange.Sampler
	plan    exchange.Plan
	w       *results.StanWriter
	c       *results.Chain
	lp      func([]float64) float64
	exactLP bool // lp is exactly −U: read it from the sampler when it has it
	gen     func(out, theta []float64)
	sample  func(step int) bool
	row     []float64
	levels  int
	swaps   int
	clamped int64
	start   time.Time
	warm    time.Duration
	prior   time.Duration // wall time before a resume
	extNote string        // the extension's note, once the run extends

	// Checkpoints (nil ck: none): due is raised by the run's checkpointer.
	ck     *Checkpoint
	ckPath string
	due    *atomic.Bool

	// The run's progress meter (nil: none) and this chain's index in it.
	meter *progress.Meter
	index int
}

// Observe records the draw of a retained step. An interrupt is the plan's
// Stop: the run ends before the next step, so every step taken is recorded.
// A due checkpoint, and the last step's, is written after the step's draw.
func (k *chainSink) Observe(step int, s *exchange.Sampler) error {
	if step%progressBatch == 0 || step == k.plan.Steps() {
		k.meter.Set(k.index, step)
	}
	if err := k.record(step, s); err != nil {
		return err
	}
	if k.ck != nil && (step == k.plan.Steps() || k.due.Load()) {
		k.due.Store(false)
		return k.writeCheckpoint(step)
	}
	return nil
}

// record writes the draw of a retained step. A draw whose lp__ is not
// finite stops the chain unwritten: the model's energy failed there (a
// model process that died on the request), and one NaN would spoil the
// summary of every draw before it.
func (k *chainSink) record(step int, s *exchange.Sampler) error {
	// The clock is read twice a chain, at its first step and at the end
	// of burn-in: the first step's own time is not counted as warm-up.
	if step == 1 && k.prior == 0 {
		k.start = time.Now()
	}
	if step == k.plan.Burn {
		k.warm = time.Since(k.start)
	}
	if _, ok := k.plan.Retained(step); !ok || k.sample != nil && !k.sample(step) {
		return nil
	}
	theta := s.State(0)
	swaps := 0
	for l := 0; l+1 < k.levels; l++ {
		swaps += s.Accepts(l)
	}
	clamped := s.ClampedSteps(0)
	k.row[0] = 0
	if k.lp != nil {
		if u, ok := s.ColdEnergy(); ok && k.exactLP {
			k.row[0] = -u
		} else {
			k.row[0] = k.lp(theta)
		}
		if math.IsNaN(k.row[0]) || math.IsInf(k.row[0], 0) {
			return fmt.Errorf("lp__ of the draw at step %d is %v: the model's energy is not finite there", step, k.row[0])
		}
	}
	k.row[1], k.row[2] = float64(swaps-k.swaps), float64(clamped-k.clamped)
	k.swaps, k.clamped = swaps, clamped
	for l := range k.levels {
		k.row[3+l] = float64(s.Replica(l) + 1)
	}
	copy(k.row[3+k.levels:], theta)
	if k.gen != nil {
		k.gen(k.row[3+k.levels+len(theta):], theta)
	}
	k.w.Row(k.row)
	for j, x := range k.row {
		k.c.Cols[j] = append(k.c.Cols[j], x)
	}
	return nil
}

// progressBatch is the steps between a chain's reports to its meter: one
// atomic store per 16 steps costs nothing beside a step, and a meter that
// reads 4 times a second sees counts fresh to well within a second.
const progressBatch = 16

// Sample runs the chains ids of r, each streaming its draws to
// chain-<id>.csv in r.Out, and summarises them. The run stops, keeping
// every draw taken, when ctx is cancelled. Run uses it for a Model; a
// program with samplers of its own calls it directly.
func Sample(ctx context.Context, r ChainRun, ids []int) (*Result, error) {
	stale := chainStale(r.Out, ids, r.Single, r.Resume, r.Stale...)
	if foreign := notWritten(r.Out, stale); len(foreign) > 0 {
		return nil, refuseForeign(r.Out, foreign)
	}
	if r.Resume != nil {
		if err := r.Resume.sameInputs(r.Inputs); err != nil {
			return nil, err
		}
		// Removed once the chains are restored (run): a resume refused
		// on a checkpoint deletes nothing.
		r.later, stale = stale, nil
	}
	out, err := output.Prepare(r.Out, stale...)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	for _, id := range ids {
		// A run killed while writing a checkpoint leaves its temporary.
		out.RemoveTemps(CheckpointName(id))
	}
	r.dir, r.ctx = out, ctx
	chains, wall, extended, writeErr := r.run(ids)
	if chains == nil {
		return nil, writeErr
	}
	res := &Result{Chains: chains, Wall: wall, Err: writeErr, dir: out, ids: ids, run: r}
	if extended != "" {
		res.Notes = append(res.Notes, "run length: "+extended)
	}
	s, err := results.SummarizeChains(chains)
	if err != nil {
		return res, errors.Join(writeErr, err)
	}
	res.Summary, res.Warnings = s, s.Details
	return res, nil
}
