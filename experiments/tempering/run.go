package tempering

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/results"
)

// Method is a sampler as a user runs it: analysis.Run's defaults with the
// options a command line would change.
type Method struct {
	Name string
	// Plan marks the plan's samplers, whose run length is their own rule;
	// the others run for a length set from the default's CPU time.
	Plan bool
	set  func(*analysis.Options)
}

// Methods are the study's samplers, the default first: its CPU time
// per run sets every other method's.
var Methods = []Method{
	{Name: "default", Plan: true},
	{Name: "one level", Plan: true, set: func(o *analysis.Options) { o.Levels = 1 }},
	{Name: "csgld", set: cyclical},
	{Name: "resgld", set: func(o *analysis.Options) { o.Method = exchange.ReSGLDMethod }},
	{Name: "fresgld", set: func(o *analysis.Options) { o.Method = exchange.FReSGLDMethod }},
	{Name: "fresgld ladder", set: func(o *analysis.Options) { o.Method, o.Levels = exchange.FReSGLDMethod, analysis.AutoLevels }},
}

// cyclical is regress's --method csgld: 20 cycles in the run, η0 = 2η,
// half of each cycle exploring.
func cyclical(o *analysis.Options) {
	o.Method = exchange.CSGLDMethod
	o.Before = func(o *analysis.Options) error {
		c := langevin.Cyclical{Eta0: 2 * o.Eta, Cycle: max(2, (o.Burn+o.Keep*o.Thin+19)/20), Explore: 0.5}
		o.Schedule, o.Sample = c, func(step int) bool { return !c.Exploring(step - 1) }
		return nil
	}
}

// Point is a run's estimate after some of its CPU time: the largest
// inclusion error of the draws up to then.
type Point struct {
	CPU, Err float64
}

// Run is one run (one seed, 4 chains) of one method on one workload.
type Run struct {
	Seed uint64
	// CPU is the process's CPU seconds for the whole run (planning,
	// pilots, sampling, every chain); Setup those before sampling.
	CPU, Setup float64
	Burn, Thin int       // as run
	Incl       []float64 // the run's inclusion estimates, pooled over chains
	Err        float64   // largest |Incl − Ref|
	Curve      []Point   // the estimate on prefixes of the draws
	// AtTarget is the estimate at the target CPU time, of the draws
	// InclAtTarget.
	AtTarget     Point
	InclAtTarget []float64
	Levels       int
	// Swap: the coldest pair's acceptance (NaN without a ladder); round
	// trips summed over chains and replicas, and the cold steps.
	SwapAccept float64
	RoundTrips int
	ColdSteps  int
	// SwapShare is the share of the run's cost (in its units, per-example
	// evaluations, every level's) spent on swap energies and anchor
	// refreshes.
	SwapShare float64
	// TuneShare is the share of the run's cost, in the same units, spent
	// tuning the ladder before the burn-in (--levels auto).
	TuneShare float64
	// Modes and Barrier (nats) are the plan's mode search's (0 when the
	// run had no plan).
	Modes    int
	Barrier  float64
	Warnings []string // warning codes
	Note     string
}

// prefixes are the shares of a run's draws at which its estimate is
// scored (Run.Curve).
var prefixes = []float64{1.0 / 8, 1.0 / 4, 1.0 / 2, 1}

// Length is a run's length where it is not the method's own: burn-in,
// draws kept and thinning (a zero field: the method's own rule).
type Length struct{ Burn, Keep, Thin int }

// runOnce runs m on w with seed at length l, and scores its draws at
// their prefixes and at target CPU seconds (AtTarget; the whole run's if
// it ended sooner, 0: not scored).
func runOnce(ctx context.Context, w *Workload, m Method, seed uint64, l Length, target float64) (*Run, error) {
	dir, err := os.MkdirTemp("", "fresgld-tempering-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	o := analysis.DefaultOptions()
	o.Command, o.Seed, o.Out, o.CheckpointEvery = "tempering "+w.Name, seed, dir, 0
	if m.set != nil {
		m.set(&o)
	}
	if l.Burn > 0 {
		o.Burn = l.Burn
	}
	if l.Keep > 0 {
		o.Keep = l.Keep
	}
	if l.Thin > 0 {
		o.Thin = l.Thin
	}
	start := cputime.Process()
	var setup float64
	before := o.Before
	o.Before = func(o *analysis.Options) error {
		setup = (cputime.Process() - start).Seconds()
		if before != nil {
			return before(o)
		}
		return nil
	}
	res, err := analysis.Run(ctx, w.Model, o)
	cpu := (cputime.Process() - start).Seconds()
	if ctx.Err() != nil { // a run cut short is no score
		return nil, fmt.Errorf("%s, %s, seed %d: %w", w.Name, m.Name, seed, results.ErrInterrupted)
	}
	if err != nil {
		return nil, fmt.Errorf("%s, %s, seed %d: %w", w.Name, m.Name, seed, err)
	}
	if res.Err != nil {
		return nil, fmt.Errorf("%s, %s, seed %d: %w", w.Name, m.Name, seed, res.Err)
	}
	r := &Run{Seed: seed, CPU: cpu, Setup: setup, Levels: 1, SwapAccept: math.NaN()}
	for _, wn := range res.Warnings {
		if !slices.Contains(r.Warnings, wn.Code) {
			r.Warnings = append(r.Warnings, wn.Code)
		}
	}
	draws := len(res.Chains[0].Cols[0])
	burn, thin := res.Options.Burn, res.Options.Thin
	r.Burn, r.Thin = burn, thin
	steps := burn + draws*thin
	// The CPU time after k draws, sampling's share of it in proportion to
	// the steps taken (every chain runs at once, at the same pace).
	cpuAt := func(k int) float64 { return setup + float64(burn+k*thin)/float64(steps)*(cpu-setup) }
	for _, f := range prefixes {
		k := max(1, int(f*float64(draws)))
		incl, err := w.inclusion(res.Chains, k)
		if err != nil {
			return nil, err
		}
		r.Curve = append(r.Curve, Point{CPU: cpuAt(k), Err: w.err(incl)})
		r.Incl = incl
	}
	r.Err = r.Curve[len(r.Curve)-1].Err
	r.AtTarget, r.InclAtTarget = r.Curve[len(r.Curve)-1], r.Incl
	if target > 0 && target < cpu {
		k := int((target-setup)/(cpu-setup)*float64(steps)-float64(burn)) / thin
		if k < 1 {
			return nil, fmt.Errorf("%s, %s, seed %d: no draw by %.3g CPU s (setup %.3g s, burn-in %d steps)", w.Name, m.Name, seed, target, setup, burn)
		}
		if r.InclAtTarget, err = w.inclusion(res.Chains, k); err != nil {
			return nil, err
		}
		r.AtTarget = Point{CPU: cpuAt(k), Err: w.err(r.InclAtTarget)}
	}
	var swap, cost float64
	for _, c := range res.Chains {
		st := c.Ladder
		r.Levels = max(r.Levels, len(st.Levels))
		r.ColdSteps += st.Steps
		r.RoundTrips += exchange.Sum(st.Replicas).RoundTrips
		for _, l := range st.Levels {
			cost += l.Cost.Total()
			swap += l.Cost.TotalEnergy().Units + l.Cost.Anchor.Units
		}
	}
	if cost > 0 {
		r.SwapShare = swap / cost
	}
	var tune float64
	if res.Tuning != nil {
		for _, rd := range res.Tuning.Rounds {
			tune += rd.Units()
		}
	}
	if tune > 0 {
		r.TuneShare = tune / (tune + cost)
	}
	if res.Plan != nil {
		r.Modes, r.Barrier = res.Plan.Modes, res.Plan.Barrier
	}
	if sw := res.Summary.Swaps; len(sw) > 0 && sw[0].Rate != nil {
		r.SwapAccept = *sw[0].Rate
	}
	return r, nil
}

// inclusion is the estimate of each of w's quantities, the mean of its
// column's value over the first k draws of every chain: the
// Rao–Blackwellised inclusion probability E[P(γ_j = 1 | θ_j)], or the
// mixture's E[P(K+ = k | θ)].
func (w *Workload) inclusion(chains []*results.Chain, k int) ([]float64, error) {
	incl := make([]float64, len(w.Names))
	n := 0
	for _, c := range chains {
		for j, name := range w.Names {
			col := slices.Index(c.Columns, name)
			if col < 0 {
				return nil, fmt.Errorf("%s: no column %q in chain %d", w.Name, name, c.Header.ID)
			}
			for _, b := range c.Cols[col][:min(k, len(c.Cols[col]))] {
				incl[j] += w.value(b)
			}
		}
		n += min(k, len(c.Cols[0]))
	}
	for j := range incl {
		incl[j] /= float64(n)
	}
	return incl, nil
}

// err is the largest |incl_j − Ref_j|; NaN (never a pass) if any is.
func (w *Workload) err(incl []float64) float64 {
	e := 0.0
	for j, v := range incl {
		d := math.Abs(v - w.Ref[j])
		if math.IsNaN(d) {
			return math.NaN()
		}
		e = max(e, d)
	}
	return e
}
