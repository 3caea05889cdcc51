package modes

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/internal/testenergy"
)

// valleyHess is the valley's ∇²U at a mode (r = 0).
func valleyHess(v testenergy.Valley, x float64) *mat.SymDense {
	s2 := v.S * v.S
	return mat.NewSymDense(2, []float64{v.H*(12*x*x-4) + 4*v.C*v.C*x*x/s2, 2 * v.C * x / s2, 2 * v.C * x / s2, 1 / s2})
}

// scaled is U in the coordinates (x, k·y): the same barriers, its
// Hessians D·H·D with D = diag(1, 1/k).
type scaled struct {
	testenergy.Valley
	k float64
}

func (v scaled) U(t []float64) float64 { return v.Valley.U([]float64{t[0], t[1] / v.k}) }
func (v scaled) Grad(g, t []float64) {
	v.Valley.Grad(g, []float64{t[0], t[1] / v.k})
	g[1] /= v.k
}
func (v scaled) hess(x float64) *mat.SymDense {
	h := valleyHess(v.Valley, x)
	d := mat.NewDiagDense(2, []float64{1, 1 / v.k})
	var out mat.Dense
	out.Mul(d, h)
	out.Mul(&out, d)
	return mat.NewSymDense(2, []float64{out.At(0, 0), out.At(0, 1), out.At(1, 0), out.At(1, 1)})
}

// The string finds the valley's pass, h, where the segment reads h +
// c²/(2s²), in the metric of the modes' mean Hessian; and again after y
// is stretched 100 times, where a step that ignored the metric would
// take a step in x for a step in y 10⁴ times stiffer.
// The tolerance: the string's chords, Δ ≈ 0.1 long in x near the pass,
// leave the valley by its sagitta c·Δ²/4 ≈ 0.005 at most, which adds
// (0.005)²/(2s²) < 0.001 nats; the string's own stopping rule moves the
// barrier by under 10⁻⁴ an iteration. Within 0.01 nats, then, and never
// below h: every reading is of U on some path between the modes.
func TestPathBarrierValley(t *testing.T) {
	v := testenergy.Valley{H: 5, C: 2, S: 0.3}
	a, b := []float64{-1, 0}, []float64{1, 0}
	for _, k := range []float64{1, 100} {
		w := scaled{v, k}
		mean := mat.NewSymDense(2, nil)
		mean.AddSym(w.hess(-1), w.hess(1))
		mean.ScaleSym(0.5, mean)
		got, err := PathBarrier(w, a, b, mean)
		if err != nil {
			t.Fatal(err)
		}
		if got < v.H-1e-9 || got > v.H+0.01 {
			t.Errorf("y stretched %g times: path barrier %.4f, exact %g (the segment's %.4g)", k, got, v.H, v.Segment())
		}
	}
	// Where the valley is straight (c = 0), the segment is the lowest
	// path and both read h.
	flat := testenergy.Valley{H: 5, S: 0.3}
	got, err := PathBarrier(flat, a, b, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-flat.H) > 1e-3 {
		t.Errorf("straight valley: %.4f, exact %g", got, flat.H)
	}
}

// Bad input: ends of other lengths, a metric that is not positive
// definite, NaN energies.
func TestPathBarrierErrors(t *testing.T) {
	v := testenergy.Valley{H: 5, C: 2, S: 0.3}
	id := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	if _, err := PathBarrier(v, []float64{-1, 0}, []float64{1}, id); err == nil {
		t.Error("ends of 2 and 1 coordinates: no error")
	}
	if _, err := PathBarrier(v, []float64{-1, 0}, []float64{1, 0}, mat.NewSymDense(2, []float64{1, 0, 0, -1})); err == nil {
		t.Error("indefinite metric: no error")
	}
	if _, err := PathBarrier(v, []float64{math.NaN(), 0}, []float64{1, 0}, id); err == nil {
		t.Error("NaN end: no error")
	}
}

// The mode search's barrier between the valley's two modes is the
// segment's; its path barrier is the pass's, h.
func TestModeSearchPathBarrier(t *testing.T) {
	v := testenergy.Valley{H: 5, C: 2, S: 0.3}
	terms := EnergyTerms(v)
	s, err := SearchModes(terms, []float64{0.5, 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Modes) != 2 {
		t.Fatalf("%d modes, want the valley's 2: %s", len(s.Modes), s.Line())
	}
	seg := v.Segment()
	if got := s.Barrier(); math.Abs(got-seg) > 0.01 {
		t.Errorf("segment barrier %.4f, want %.4f", got, seg)
	}
	got, err := s.PathBarrier(terms)
	if err != nil {
		t.Fatal(err)
	}
	if got < v.H-1e-9 || got > v.H+0.01 { // as TestPathBarrierValley
		t.Errorf("path barrier %.4f, exact %g", got, v.H)
	}
	bs, err := s.PathBarriers(terms)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0] != 0 || bs[1] != got {
		t.Errorf("PathBarriers %v, want [0 %g]: the heaviest mode's own, then the other's", bs, got)
	}
}
