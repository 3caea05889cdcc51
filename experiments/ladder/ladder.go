// Package ladder is the study of temperature ladders for f-reSGLD: a fixed
// geometric ladder with the reversible sweep, the same ladder with DEO
// (non-reversible) swaps, and DEO on a ladder tuned to equal rejection, all
// at the same cost, on targets with exact answers.
package ladder

import (
	"fmt"
	"math"
	"time"

	"github.com/fresgld/fresgld/exchange"
)

// Problem is a target with its noisy estimators and its exact answer.
type Problem struct {
	Name  string
	Setup exchange.Setup // Tau1, Tau2, Eta, Cold, Hot; the ladder is set per run
	Init  []float64
	// Score compares the retained cold-level states with the exact answer.
	Score func(tr exchange.Trace) map[string]float64
	// Metrics names Score's metrics in the order the tables show them.
	Metrics []string
}

// Ladder is one way of building the ladder.
type Ladder struct {
	Name   string
	Scheme exchange.Scheme
	Window int
	// Levels is the fixed K, or the starting K when Adapt.
	Levels int
	Adapt  bool
	// Rounds and First set the tuning (see exchange.AdaptOptions); the
	// ladder grows to the recommended K ≈ 2Λ̂, at most MaxLevels.
	Rounds, First, MaxLevels int
}

// Row is one run.
type Row struct {
	Problem    string             `json:"problem"`
	Ladder     string             `json:"ladder"`
	Seed       uint64             `json:"seed"`
	Levels     int                `json:"levels"`
	Taus       []float64          `json:"taus"`
	Rejection  []float64          `json:"rejection"`
	Lambda     float64            `json:"lambda"`
	RoundTrips int                `json:"round_trips"`
	Restarts   int                `json:"restarts"`
	Rounds     int                `json:"rounds"` // DEO rounds (steps under sweep) of the sampling run
	TripRate   float64            `json:"round_trip_rate"`
	Bound      float64            `json:"rate_bound"`
	Steps      int                `json:"steps"`
	TuneUnits  float64            `json:"tune_units"`
	Units      float64            `json:"units"` // tuning and sampling together
	Samples    int                `json:"samples"`
	Metrics    map[string]float64 `json:"metrics"`
	Wall       float64            `json:"wall_seconds"`
}

// Run is one seed of one ladder on p with the given budget of cost units
// (gradient and energy evaluations of every level, tuning included). The
// cold level's states are retained once BurnFrac of the budget is spent.
// Round trips are counted in the sampling run only, never in the tuning
// rounds, which only the adaptive ladder has (a conservative count for it).
func Run(p Problem, l Ladder, seed uint64, budget, burnFrac float64) (Row, error) {
	row := Row{Problem: p.Name, Ladder: l.Name, Seed: seed}
	start := time.Now()
	s := p.Setup
	s.Seed, s.Scheme, s.Window, s.Levels, s.PerStep = seed, l.Scheme, l.Window, l.Levels, true
	inits := make([][]float64, l.Levels)
	for i := range inits {
		inits[i] = p.Init
	}
	if l.Adapt {
		taus, err := exchange.Geometric(s.Tau1, s.Tau2, l.Levels)
		if err != nil {
			return row, err
		}
		ad, err := exchange.Adapt(exchange.FReSGLDMethod.Build(s), taus, inits,
			exchange.AdaptOptions{Rounds: l.Rounds, First: l.First, Grow: true, MaxLevels: l.MaxLevels})
		if err != nil {
			return row, err
		}
		for _, r := range ad.Rounds {
			row.TuneUnits += r.Units()
		}
		s.Taus, inits = ad.Taus, ad.States
	}
	if row.TuneUnits >= budget {
		return row, fmt.Errorf("%s: tuning spent %.0f units, the whole budget of %.0f", l.Name, row.TuneUnits, budget)
	}
	cfg, err := exchange.FReSGLDMethod.Config(s)
	if err != nil {
		return row, err
	}
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return row, err
	}
	defer smp.Close()
	burn := burnFrac*budget - row.TuneUnits
	tr := exchange.Trace{P: smp.Dim()}
	keep := exchange.SinkFunc(func(_ int, s *exchange.Sampler) error {
		if s.Units() >= burn {
			tr.Data = append(tr.Data, s.State(0)...)
		}
		return nil
	})
	plan := exchange.Plan{Keep: math.MaxInt32, Thin: 1, Budget: budget - row.TuneUnits}
	if err := exchange.Run(smp, plan, keep); err != nil {
		return row, err
	}
	st := smp.Stats()
	row.Steps, row.Units, row.Samples = st.Steps, row.TuneUnits+smp.Units(), tr.Len()
	for _, lv := range cfg.Levels {
		row.Taus = append(row.Taus, lv.Tau)
	}
	row.Levels = len(row.Taus)
	for _, pr := range st.Pairs {
		r := pr.Rejection()
		if math.IsNaN(r) {
			r = 1 // never attempted: no communication
		}
		row.Rejection = append(row.Rejection, r)
		row.Lambda += r
	}
	t := exchange.Sum(st.Replicas)
	row.RoundTrips, row.Restarts = t.RoundTrips, t.Restarts
	row.Rounds = cfg.Swap.Round(st.Steps-1) + 1
	row.TripRate = float64(row.RoundTrips) / float64(row.Rounds)
	row.Bound = 1 / (2 + 2*row.Lambda)
	if tr.Len() == 0 {
		return row, fmt.Errorf("%s seed %d: no samples retained", l.Name, seed)
	}
	row.Metrics = p.Score(tr)
	row.Wall = time.Since(start).Seconds()
	return row, nil
}
