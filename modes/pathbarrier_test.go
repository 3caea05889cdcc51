package modes

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// valley is U(x, y) = h(x² − 1)² + (y − c(1 − x²))²/(2s²): two modes at
// (±1, 0), U = 0, joined by the curved valley y = c(1 − x²), along which
// U = h(x² − 1)². The lowest path's barrier is exactly h, at (0, c); the
// straight segment crosses x = 0 at y = 0, h + c²/(2s²) high.
type valley struct{ h, c, s float64 }

func (v valley) Dim() int { return 2 }

func (v valley) U(t []float64) float64 {
	x, y := t[0], t[1]
	r := y - v.c*(1-x*x)
	return v.h*(x*x-1)*(x*x-1) + r*r/(2*v.s*v.s)
}

func (v valley) Grad(g, t []float64) {
	x, y := t[0], t[1]
	r := y - v.c*(1-x*x)
	g[0] = 4*v.h*x*(x*x-1) + r*2*v.c*x/(v.s*v.s)
	g[1] = r / (v.s * v.s)
}

// hess is ∇²U at a mode (r = 0).
func (v valley) hess(x float64) *mat.SymDense {
	s2 := v.s * v.s
	return mat.NewSymDense(2, []float64{v.h*(12*x*x-4) + 4*v.c*v.c*x*x/s2, 2 * v.c * x / s2, 2 * v.c * x / s2, 1 / s2})
}

// scaled is U in the coordinates (x, k·y): the same barriers, its
// Hessians D·H·D with D = diag(1, 1/k).
type scaled struct {
	valley
	k float64
}

func (v scaled) U(t []float64) float64 { return v.valley.U([]float64{t[0], t[1] / v.k}) }
func (v scaled) Grad(g, t []float64) {
	v.valley.Grad(g, []float64{t[0], t[1] / v.k})
	g[1] /= v.k
}
func (v scaled) hess(x float64) *mat.SymDense {
	h := v.valley.hess(x)
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
	v := valley{h: 5, c: 2, s: 0.3}
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
		if got < v.h-1e-9 || got > v.h+0.01 {
			t.Errorf("y stretched %g times: path barrier %.4f, exact %g (the segment's %.4g)", k, got, v.h, v.h+v.c*v.c/(2*v.s*v.s))
		}
	}
	// Where the valley is straight (c = 0), the segment is the lowest
	// path and both read h.
	flat := valley{h: 5, s: 0.3}
	got, err := PathBarrier(flat, a, b, mat.NewSymDense(2, []float64{1, 0, 0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-flat.h) > 1e-3 {
		t.Errorf("straight valley: %.4f, exact %g", got, flat.h)
	}
}

// Bad input: ends of other lengths, a metric that is not positive
// definite, NaN energies.
func TestPathBarrierErrors(t *testing.T) {
	v := valley{h: 5, c: 2, s: 0.3}
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
	v := valley{h: 5, c: 2, s: 0.3}
	terms := EnergyTerms(v)
	s, err := SearchModes(terms, []float64{0.5, 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Modes) != 2 {
		t.Fatalf("%d modes, want the valley's 2: %s", len(s.Modes), s.Line())
	}
	seg := v.h + v.c*v.c/(2*v.s*v.s)
	if got := s.Barrier(); math.Abs(got-seg) > 0.01 {
		t.Errorf("segment barrier %.4f, want %.4f", got, seg)
	}
	got, err := s.PathBarrier(terms)
	if err != nil {
		t.Fatal(err)
	}
	if got < v.h-1e-9 || got > v.h+0.01 { // as TestPathBarrierValley
		t.Errorf("path barrier %.4f, exact %g", got, v.h)
	}
	bs, err := s.PathBarriers(terms)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0] != 0 || bs[1] != got {
		t.Errorf("PathBarriers %v, want [0 %g]: the heaviest mode's own, then the other's", bs, got)
	}
}
