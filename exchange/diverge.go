package exchange

import (
	"math"

	"github.com/fresgld/fresgld/internal/pad"
)

// A Langevin step θ' = θ − η∇U(θ) + noise is unstable where η exceeds 2/λ
// for a curvature λ of U: the step overshoots the minimum by more than it
// started from, so each move reverses the last and grows by |1 − ηλ| > 1.
// Left alone the state reaches ±Inf only after hundreds of steps (about 300
// at η = 5 on the paper's mixture, |1 − ηλ| ≈ 9), and every one of them is
// returned as a sample. A watch stops the run after divergeRun such moves
// in a row, once the last is divergeGrowth times longer than the replica's
// moves were before the run (their root mean square over about the last
// scaleWindow moves).
//
// A stable chain does not trip it. Its moves are bounded in distribution:
// where the drift dominates, a stable step contracts them (|1 − ηλ| < 1);
// where the noise does, their length has a Gaussian tail at the noise scale,
// so a move 1000 times the typical length is out of reach, however often the
// moves reverse (near ηλ = 2 they reverse nearly always: TestWatchQuietOnStableChain
// runs 10^6 steps at ηλ = 1.9). The run of divergeRun reversals guards against
// a single long move (a heavy-tailed gradient draw, a sudden drop into a
// well). An unstable chain trips it after about max(divergeRun,
// 3/log10|1 − ηλ|) steps once its moves outgrow the noise.
const (
	divergeRun    = 10
	divergeGrowth = 1e3
	scaleWindow   = 100
)

// watch follows one replica's moves. Swaps exchange levels, not states, so
// a replica's path is continuous and its moves are measured across swaps.
type watch struct {
	// prev is the state before the last move, where the step does not
	// measure its own move (langevin.StepMove); last is the last move.
	prev, last []float64
	lastN2     float64 // |last|²
	scale      float64 // mean |move|² over about the last scaleWindow moves
	base       float64 // scale when the run began
	run        int     // moves in a row that reversed and grew
	rate       float64 // weight of a new move in scale: 1 for the first
}

func newWatch(theta []float64) watch {
	return watch{prev: append(pad.Slice[float64](len(theta))[:0], theta...), last: pad.Slice[float64](len(theta)), lastN2: math.Inf(1), rate: 1}
}

// observe records the move to theta from prev, the state before the move,
// and reports whether the replica is diverging.
func (w *watch) observe(theta []float64) bool {
	var dot, n2 float64
	for j, x := range theta {
		d := x - w.prev[j]
		dot += d * w.last[j]
		n2 += d * d
		w.last[j], w.prev[j] = d, x
	}
	return w.judge(dot, n2)
}

// judge records a move whose product with the last move is dot and whose
// squared length is n2 (the caller has stored it in last), and reports
// whether the replica is diverging.
//
// It does not branch on the move: in a few dimensions whether a move
// reversed and grew is a coin toss, and a branch on it would be
// mispredicted about every other step.
func (w *watch) judge(dot, n2 float64) bool {
	// base is read only within a run, so it may take the scale at every
	// move that could start one: those where no run is going on.
	m := -uint64(b2i(w.run == 0)) // all ones where no run is going on
	b, sc := math.Float64bits(w.base), math.Float64bits(w.scale)
	w.base = math.Float64frombits(b ^ (b^sc)&m)
	// The run goes on (or starts) where the move reversed and grew. The
	// first move cannot: it has no last move (lastN2 starts at +Inf).
	w.run = (w.run + 1) * (b2i(dot < 0) & b2i(n2 > w.lastN2))
	// The first move sets the scale (rate starts at 1), later ones move it.
	w.scale += (n2 - w.scale) * w.rate
	w.rate, w.lastN2 = 1.0/scaleWindow, n2
	return w.run >= divergeRun && n2 >= divergeGrowth*divergeGrowth*w.base
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// growth is the length of the last move over the moves' typical length
// before the run.
func (w *watch) growth() float64 { return math.Sqrt(w.lastN2 / w.base) }
