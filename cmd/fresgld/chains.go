package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
)

// chainFlags are the multi-chain settings of a sampling command.
type chainFlags struct {
	Chains int `json:"chains"`
	Chain  int `json:"chain,omitempty"` // run only this chain
}

func addChainFlags(fl *pflag.FlagSet, c *chainFlags) {
	fl.IntVar(&c.Chains, "chains", 4, "independent chains, run in parallel")
	fl.IntVar(&c.Chain, "chain", 0, "run only chain c (numbered from 1), e.g. as one task of an array job; pool the outputs with fresgld merge")
}

// maxChains bounds --chains: each chain holds its ladder and draws in
// memory and its CSV open while it runs, all at once, so that 10⁵ chains
// ran out of file descriptors and 10¹² out of memory (a crash no error
// handler sees). R̂ and ESS need four; a cluster runs more as separate
// tasks (--chain c) pooled by merge.
const maxChains = 256

// ids are the chains to run, numbered from 1.
func (c chainFlags) ids() ([]int, error) {
	switch {
	case c.Chain < 0:
		return nil, fmt.Errorf("--chain = %d: chains are numbered from 1", c.Chain)
	case c.Chain > 0:
		return []int{c.Chain}, nil
	case c.Chains < 1:
		return nil, fmt.Errorf("--chains = %d: must be ≥ 1", c.Chains)
	case c.Chains > maxChains:
		return nil, fmt.Errorf("--chains = %d: at most %d run in one process (each holds its draws in memory and its file open); run more as separate tasks with --chain c and pool them with fresgld merge", c.Chains, maxChains)
	}
	ids := make([]int, c.Chains)
	for i := range ids {
		ids[i] = i + 1
	}
	return ids, nil
}

// chainOutputs lists the files a sampling command writes.
const chainOutputs = "chain-<c>.csv (CmdStan layout), summary.txt, summary.json, {trace,ranks,marginals,replicas}.{png,svg}"

// chainName is the CSV of chain id.
func chainName(id int) string { return "chain-" + strconv.Itoa(id) + ".csv" }

// chainFile is the CSV of chain id in dir.
func chainFile(dir string, id int) string { return filepath.Join(dir, chainName(id)) }

// summaryOutputs are the files finishChains writes.
func summaryOutputs() []string {
	out := []string{"summary.txt", "summary.json"}
	for _, f := range []string{"trace", "ranks", "marginals", "replicas"} {
		out = append(out, f+".png", f+".svg")
	}
	return out
}

// chainStale lists the files of an earlier run in dir that a run of the
// chains ids replaces: every chain CSV when it runs them all, only its own
// when it runs one (--chain), so that array tasks may share a directory.
func chainStale(dir string, ids []int, single bool, others ...string) []string {
	stale := append(summaryOutputs(), others...)
	if single {
		return append(stale, chainName(ids[0]))
	}
	m, _ := filepath.Glob(filepath.Join(dir, "chain-*.csv"))
	for _, f := range m {
		stale = append(stale, filepath.Base(f))
	}
	return stale
}

// chainRun is a multi-chain run of a command.
type chainRun struct {
	Header chainHeader // its ID is set per chain
	Names  []string    // the parameters
	Plan   exchange.Plan
	// New builds chain id's sampler. Chains must share no mutable state
	// (each gets its own estimators) and seed their streams with
	// exchange.ChainSeed(Header.Seed, id).
	New func(id int) (*exchange.Sampler, error)
	// LogDensity is lp__: the log density of the target at θ, up to a
	// constant, evaluated exactly on every retained draw (not a sampler
	// cost: it is output).
	LogDensity func(theta []float64) float64
	// Generated, when set, names quantities computed from every retained
	// draw (Stan's generated quantities), written after the parameters:
	// Generate(out, θ) fills out, one value per name. It must be safe
	// for concurrent use.
	Generated []string
	Generate  func(out, theta []float64)
	// Sample, when set, says which retained steps are samples (cyclical
	// SGLD's exploration stages are not): the others are not written.
	Sample func(step int) bool
	Dir    *output.Dir
	// Ctx cancelled (SIGINT, SIGTERM): every running chain stops before its
	// next step and keeps its draws, a chain still waiting for a core never
	// starts, and --levels auto tuning stops.
	Ctx   context.Context
	Label string // for the progress bar
}

// run builds every chain's sampler first, so that a setup error comes
// before any sampling, then runs the chains in parallel, each streaming its
// draws to chain-<id>.csv in r.Dir. It returns the chains as the CSVs hold
// them; a chain's stopping error is in its Stats.Stopped, a write error is
// returned beside the chains.
func (r chainRun) run(ids []int) ([]*stanChain, time.Duration, error) {
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
				return nil, 0, fmt.Errorf("%w while preparing chain %d (tuning its ladder), before any draw: nothing to keep", errInterrupted, id)
			}
			if i > 0 {
				err = fmt.Errorf("chain %d: %w", id, err)
			}
			return nil, 0, err
		}
		smps[i] = s
	}
	K := smps[0].Levels()
	columns := []string{"lp__", colSwaps, colClamped}
	for l := range K {
		columns = append(columns, replicaCol(l+1))
	}
	columns = append(columns, r.Names...)
	columns = append(columns, r.Generated...)
	chains := make([]*stanChain, len(ids))
	sinks := make([]exchange.Sink, len(ids))
	ws := make([]*stanWriter, len(ids))
	var errs []error
	for i, id := range ids {
		h := r.Header
		h.ID = id
		w, err := createStanCSV(r.Dir, chainName(id), h, columns)
		if err != nil {
			for _, w := range ws[:i] {
				w.close(chainStats{})
			}
			return nil, 0, err
		}
		ws[i] = w
		chains[i] = &stanChain{Path: r.Dir.File(chainName(id)), Comments: h.lines(), Header: h, Columns: columns, Cols: make([][]float64, len(columns))}
		for j := range chains[i].Cols {
			// Reserve no more than a run of modest length: --keep may be
			// far larger than what an interrupted run ever draws.
			chains[i].Cols[j] = make([]float64, 0, min(r.Plan.Keep, 1<<16))
		}
		sinks[i] = &chainSink{plan: r.Plan, w: w, c: chains[i], lp: r.LogDensity, gen: r.Generate, sample: r.Sample, row: make([]float64, len(columns)), levels: K}
	}
	plan := r.Plan
	plan.Stop = r.Ctx.Done()
	plan.Progress = newProgress(r.Label, plan.Steps()*len(ids)).callback()
	start := time.Now()
	res := exchange.RunChains(smps, plan, sinks, 0)
	wall := time.Since(start)
	for i, s := range smps {
		st := chainStats{Steps: s.Steps(), Cost: s.Units(), Wall: res[i].Wall, Warmup: sinks[i].(*chainSink).warm}
		for l := range K {
			st.Clamped = append(st.Clamped, s.ClampedSteps(l))
		}
		for l := 0; l+1 < K; l++ {
			st.Attempts, st.Accepts = append(st.Attempts, s.Attempts(l)), append(st.Accepts, s.Accepts(l))
		}
		switch {
		case errors.Is(res[i].Err, exchange.ErrStopped):
			st.Stopped = errInterrupted.Error()
		case res[i].Err != nil:
			st.Stopped = res[i].Err.Error()
		}
		chains[i].Stats, chains[i].Ladder = st, res[i].Stats
		errs = append(errs, ws[i].close(st))
	}
	return chains, wall, errors.Join(errs...)
}

// chainSink writes a chain's retained draws to its CSV and keeps them.
type chainSink struct {
	plan    exchange.Plan
	w       *stanWriter
	c       *stanChain
	lp      func([]float64) float64
	gen     func(out, theta []float64)
	sample  func(step int) bool
	row     []float64
	levels  int
	swaps   int
	clamped int64
	start   time.Time
	warm    time.Duration
}

// Observe records the draw of a retained step. An interrupt is the plan's
// Stop: the run ends before the next step, so every step taken is recorded.
func (k *chainSink) Observe(step int, s *exchange.Sampler) error {
	k.record(step, s)
	return nil
}

func (k *chainSink) record(step int, s *exchange.Sampler) {
	// The clock is read twice a chain, at its first step and at the end
	// of burn-in: the first step's own time is not counted as warm-up.
	if step == 1 {
		k.start = time.Now()
	}
	if step == k.plan.Burn {
		k.warm = time.Since(k.start)
	}
	if _, ok := k.plan.Retained(step); !ok || k.sample != nil && !k.sample(step) {
		return
	}
	theta := s.State(0)
	swaps := 0
	for l := 0; l+1 < k.levels; l++ {
		swaps += s.Accepts(l)
	}
	clamped := s.ClampedSteps(0)
	k.row[0] = 0
	if k.lp != nil {
		k.row[0] = k.lp(theta)
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
	k.w.row(k.row)
	for j, x := range k.row {
		k.c.Cols[j] = append(k.c.Cols[j], x)
	}
}
