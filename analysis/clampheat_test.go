package analysis

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// heavyLogistic is a logistic regression of 500 examples and 3 features
// whose first 2% are gross outliers, features ×4 and labels flipped: their
// per-example gradients are far larger than the others', so a small
// minibatch's gradient noise is heavy-tailed (λ_max of the Hessian at the
// mode ≈ 123).
func heavyLogistic(t *testing.T) *models.Logistic {
	const N, p = 500, 3
	l0, _, err := models.SyntheticLogistic(N, p, 5, 11)
	if err != nil {
		t.Fatal(err)
	}
	x, y := append([]float64(nil), l0.X...), append([]float64(nil), l0.Y...)
	for i := range N / 50 {
		for j := range p {
			x[i*p+j] *= 4
		}
		y[i] = 1 - y[i]
	}
	l, err := models.NewLogistic(x, y, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestClampHeatPredictsVariance checks the warning given before sampling
// on heavy-tailed gradients: a corrected chain on minibatches of 50 at
// η = 0.05/λ_max runs hotter than τ = 1 on the coordinate where outliers
// push the noise over the budget, by the share clampHeat predicts at the
// mode. Chain (4·10⁵ steps) and MALA reference (10⁵ steps) give each
// coordinate's variance ratio; its standard error is 2·ratio·√(Σ (MCSE of
// the sd / sd)²), and the prediction (plus the Euler step's own excess, at
// most ηλ_max/2 = 2.5%) must lie within 3 of them of the measured excess.
// At n = 250 no draw exceeds the budget and no warning is given. A share
// computed without the clamp (the mean of ηŝ²/(2τ) − 1, negative) misses.
func TestClampHeatPredictsVariance(t *testing.T) {
	l := heavyLogistic(t)
	ref, err := mala.Run(l, make([]float64, l.P), mala.Config{Step: 0.1, Burn: 2000, Keep: 100_000, Thin: 1, Seed: 1, Adapt: true})
	if err != nil {
		t.Fatal(err)
	}
	refTr := exchange.Trace{P: l.P, Data: ref.Samples}
	mode := make([]float64, l.P)
	for j := range mode {
		mode[j] = mean(refTr.Coord(j))
	}
	const lmax, n = 123.0, 50
	eta := 0.05 / lmax
	o := DefaultOptions()
	o.Method, o.Batch, o.Eta = exchange.CorrectedMethod, n, eta
	m := Model{Terms: l}
	w, err := heatWarning(m, o, mode)
	if err != nil || w == nil {
		t.Fatalf("n = %d: warning %v, error %v: want a warning", n, w, err)
	}
	t.Log(w.Message)
	mb, _ := energy.NewMinibatch(l, n)
	s, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: langevin.Corrected}}, Seed: 3}, [][]float64{mode})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := exchange.Collect(s, exchange.Plan{Burn: 5000, Keep: 400_000, Thin: 1})
	if err != nil {
		t.Fatal(err)
	}
	share, j, _, _ := clampHeat(l, n, eta, 1, mode, heatDraws, o.Seed)
	a, b := tr.Coord(j), refTr.Coord(j)
	sa, sb := sd(a), sd(b)
	ratio := sa * sa / (sb * sb)
	se := 2 * ratio * math.Hypot(diag.MCSESd([][]float64{a})/sa, diag.MCSESd([][]float64{b})/sb)
	t.Logf("coordinate %d: variance ratio %.4f ± %.4f, predicted excess %.4f (Euler's own at most %.3f)", j, ratio, se, share, eta*lmax/2)
	if got := ratio - 1; !(got >= share-3*se && got <= share+eta*lmax/2+3*se) {
		t.Errorf("coordinate %d: variance %.4f of MALA's, predicted excess %.4f (+ up to %.3f of Euler's) ± 3·%.4f", j, ratio, share, eta*lmax/2, se)
	}
	o.Batch = 250
	if w, err := heatWarning(m, o, mode); w != nil || err != nil {
		t.Errorf("n = 250: warning %v, error %v: want neither", w, err)
	}
}

func mean(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	return m
}

func sd(xs []float64) float64 {
	m := mean(xs)
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m) / float64(len(xs))
	}
	return math.Sqrt(v)
}
