package models

import (
	"math"
	"testing"
)

// TestMixtureFarFromModes checks U and U' where every component's log-term
// underflows to −Inf (|z|² overflows): U must be +Inf, not NaN, and U' must
// be the limit of the widest component, (θ − μ_k)/s_k², which dominates the
// tails. Nearer in, where the terms are finite, the log-sum-exp must agree
// with the widest component's own U to within the other's share.
func TestMixtureFarFromModes(t *testing.T) {
	m := PaperMixture() // widest: component 0, sd 0.7, mean −4
	g := []float64{0}
	for _, x := range []float64{1e200, -1e200, math.MaxFloat64, -math.MaxFloat64} {
		if u := m.U([]float64{x}); !math.IsInf(u, 1) {
			t.Errorf("U(%v) = %v, want +Inf", x, u)
		}
		m.Grad(g, []float64{x})
		want := (x - m.Means[0]) / (m.SDs[0] * m.SDs[0])
		if g[0] != want {
			t.Errorf("U'(%v) = %v, want the widest component's %v", x, g[0], want)
		}
	}
	// At θ = 10¹⁵⁰ the terms are finite: U is the widest component's
	// −log(w s⁻¹ (2π)^−½) + z²/2, the other's weight being exp(−10³⁰⁰)-small.
	x := 1e150
	z := (x - m.Means[0]) / m.SDs[0]
	want := 0.5*z*z - math.Log(m.Weights[0]) + math.Log(m.SDs[0]) + 0.5*math.Log(2*math.Pi)
	if u := m.U([]float64{x}); !(math.Abs(u-want) <= 1e-12*want) {
		t.Errorf("U(%v) = %v, want %v", x, u, want)
	}
}

// TestMixtureConstants checks that the precomputed constants change no bit
// of U or U' against a literal Mixture (which computes them on every call),
// and that a Mixture whose weights or sds changed after NewMixture does not
// use its stale constants.
func TestMixtureConstants(t *testing.T) {
	m := PaperMixture()
	lit := Mixture{Weights: []float64{0.4, 0.6}, Means: []float64{-4, 3}, SDs: []float64{0.7, 0.5}}
	g1, g2 := []float64{0}, []float64{0}
	for x := -12.0; x <= 12; x += 0.01 {
		th := []float64{x}
		m.Grad(g1, th)
		lit.Grad(g2, th)
		if u1, u2 := m.U(th), lit.U(th); u1 != u2 || g1[0] != g2[0] {
			t.Fatalf("θ = %v: precomputed U, U' = %v, %v; literal %v, %v", x, u1, g1[0], u2, g2[0])
		}
	}
	m.Weights[0], m.Weights[1] = 0.5, 0.5
	m.SDs[1] = 0.7
	lit = Mixture{Weights: []float64{0.5, 0.5}, Means: []float64{-4, 3}, SDs: []float64{0.7, 0.7}}
	if u1, u2 := m.U([]float64{1}), lit.U([]float64{1}); u1 != u2 {
		t.Errorf("after changing weights and sds, U(1) = %v, want %v", u1, u2)
	}
	if u := m.U([]float64{math.NaN()}); !math.IsNaN(u) {
		t.Errorf("U(NaN) = %v", u)
	}
	if _, err := NewMixture([]float64{1}, []float64{0}, []float64{-1}); err == nil {
		t.Error("NewMixture accepted sd −1")
	}
}

// refU is U as computed before the constants were precomputed and the
// small terms skipped: every term's log evaluated twice, every exponential
// taken.
func refU(m Mixture, x float64) float64 {
	term := func(k int) float64 {
		z := (x - m.Means[k]) / m.SDs[k]
		return math.Log(m.Weights[k]) - math.Log(m.SDs[k]) - 0.5*math.Log(2*math.Pi) - 0.5*z*z
	}
	mx := math.Inf(-1)
	for k := range m.Weights {
		mx = math.Max(mx, term(k))
	}
	var sum float64
	for k := range m.Weights {
		sum += math.Exp(term(k) - mx)
	}
	return -(mx + math.Log(sum))
}

// TestMixtureSameBitsAsBefore checks U bit for bit against refU on a fine
// grid reaching far into both tails, where the other terms are skipped as
// too small to change the sum, for the paper's mixture and for a
// three-component one whose small terms add up in different orders.
func TestMixtureSameBitsAsBefore(t *testing.T) {
	three, err := NewMixture([]float64{0.2, 0.5, 0.3}, []float64{-3, 0, 5}, []float64{0.4, 1.5, 0.6})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mixture{PaperMixture(), three} {
		skipped := 0
		for x := -80.0; x <= 80; x += 0.0037 {
			got, want := m.U([]float64{x}), refU(m, x)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%v: U(%v) = %v, before %v", m.Means, x, got, want)
			}
			if mx, sum, _ := m.logTerms(x, false); sum == 1 && !math.IsInf(mx, 0) {
				skipped++
			}
		}
		if skipped == 0 {
			t.Errorf("%v: no point of the grid took the shortcut: the test checks nothing of it", m.Means)
		}
	}
}

// TestMixtureTiedTerms checks U where two components tie for the largest
// term: 0.5 N(−1, 1) + 0.5 N(1, 1) at θ = 0 has density φ(1), so
// U = ½ + ½ log 2π exactly; a sum that counted one of the tied terms would
// be off by log 2.
func TestMixtureTiedTerms(t *testing.T) {
	for _, m := range []Mixture{
		{Weights: []float64{0.5, 0.5}, Means: []float64{-1, 1}, SDs: []float64{1, 1}},
		must(NewMixture([]float64{0.5, 0.5}, []float64{-1, 1}, []float64{1, 1})),
	} {
		want := 0.5 + 0.5*math.Log(2*math.Pi)
		if u := m.U([]float64{0}); !(math.Abs(u-want) <= 1e-15*want) {
			t.Errorf("U(0) = %v, want %v", u, want)
		}
	}
}

func must(m Mixture, err error) Mixture {
	if err != nil {
		panic(err)
	}
	return m
}
