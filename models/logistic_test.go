package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogisticGradFiniteDifferences compares each per-example gradient, the
// prior's, and the full gradient with central differences. The step h = 1e-5
// leaves a truncation error of order h² times the third derivative ≈ 1e-10 and a rounding error
// of order ε|U|/h ≈ 1e-11·|U|; the tolerance 1e-6·(1 + |g|) is well above both.
func TestLogisticGradFiniteDifferences(t *testing.T) {
	l, _, err := SyntheticLogistic(50, 4, 1.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	const h = 1e-5
	rng := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, 4)
	grad := make([]float64, 4)
	check := func(what string, f func([]float64) float64, g func([]float64, []float64)) {
		g(grad, theta)
		for j := range theta {
			if want := centralDiff(f, theta, j, h); !(math.Abs(grad[j]-want) <= 1e-6*(1+math.Abs(want))) {
				t.Errorf("%s at θ = %v: ∂_%d = %v, finite difference %v", what, theta, j, grad[j], want)
			}
		}
	}
	for rep := 0; rep < 5; rep++ {
		for j := range theta {
			theta[j] = 3 * rng.NormFloat64() // large |z| too
		}
		for _, i := range []int{0, 17, 49} {
			check("U_i", func(th []float64) float64 { return l.Term(nil, th, i) },
				func(g, th []float64) { l.Term(g, th, i) })
		}
		check("U_0", func(th []float64) float64 { return l.Prior(nil, th) },
			func(g, th []float64) { l.Prior(g, th) })
		check("U", l.U, l.Grad)
	}
}

// UGrad gives U and ∇U bit for bit as U and Grad do, at states near and far
// from the mode (both signs of every logit).
func TestLogisticUGrad(t *testing.T) {
	l, _, err := SyntheticLogistic(300, 7, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	g1, g2 := make([]float64, 7), make([]float64, 7)
	for _, theta := range [][]float64{make([]float64, 7), {3, -2, 1, 0.5, -4, 2, 1}} {
		u := l.UGrad(g1, theta)
		l.Grad(g2, theta)
		if w := l.U(theta); math.Float64bits(u) != math.Float64bits(w) {
			t.Errorf("at %v: UGrad's energy %v, U's %v", theta, u, w)
		}
		for j := range g1 {
			if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) {
				t.Errorf("at %v: coordinate %d: UGrad %v, Grad %v", theta, j, g1[j], g2[j])
			}
		}
	}
}

// EnergyOn is the sum of Term over the listed rows, to rounding, whatever
// their number modulo four.
func TestLogisticEnergyOn(t *testing.T) {
	l, _, err := SyntheticLogistic(300, 7, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{3, -2, 1, 0.5, -4, 2, 1}
	for _, rows := range [][]int32{{5}, {0, 1, 2, 3}, {299, 7, 7, 100, 42, 3, 250}} {
		var want float64
		for _, i := range rows {
			want += l.Term(nil, theta, int(i))
		}
		if got := l.EnergyOn(theta, rows); !(math.Abs(got-want) <= 1e-12*math.Abs(want)) {
			t.Errorf("rows %v: %v, Σ Term %v", rows, got, want)
		}
	}
}

// TestLogisticTermValues checks U_i against the direct formula where it is
// safe and against its asymptotes where the direct formula overflows.
func TestLogisticTermValues(t *testing.T) {
	l, err := NewLogistic([]float64{1, 2}, []float64{1}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 2)
	for _, z := range []float64{-3, -0.5, 0, 0.25, 4} {
		theta := []float64{z, 0}
		want := math.Log(1+math.Exp(z)) - z
		if got := l.Term(g, theta, 0); !(math.Abs(got-want) <= 1e-14) {
			t.Errorf("z = %v: U_i = %v, want %v", z, got, want)
		}
		if want := 1/(1+math.Exp(-z)) - 1; math.Abs(g[0]-want) > 1e-15 || math.Abs(g[1]-2*want) > 1e-15 {
			t.Errorf("z = %v: ∇U_i = %v, want (%v, %v)", z, g, want, 2*want)
		}
	}
	// y = 1: U_i = log(1 + e^{−z}) ≈ e^{−z} for large z, ≈ −z for very negative z.
	if got := l.Term(g, []float64{800, 0}, 0); got != 0 || g[0] != 0 {
		t.Errorf("z = 800: U_i = %v, ∂ = %v; want 0, 0", got, g[0])
	}
	if got := l.Term(g, []float64{40, 0}, 0); !(math.Abs(got-math.Exp(-40)) <= 1e-16*math.Exp(-40)*10) {
		t.Errorf("z = 40: U_i = %v, want e^−40 = %v", got, math.Exp(-40))
	}
	if got := l.Term(g, []float64{-800, 0}, 0); got != 800 || g[0] != -1 {
		t.Errorf("z = −800: U_i = %v, ∂ = %v; want 800, −1", got, g[0])
	}
}

func TestLogisticErrors(t *testing.T) {
	cases := []struct {
		x, y  []float64
		p     int
		sigma float64
	}{
		{[]float64{1, 2}, []float64{1}, 0, 1},
		{[]float64{1, 2}, nil, 2, 1},
		{[]float64{1, 2, 3}, []float64{1}, 2, 1},
		{[]float64{1, 2}, []float64{2}, 2, 1},
		{[]float64{1, math.NaN()}, []float64{0}, 2, 1},
		{[]float64{1, 2}, []float64{0}, 2, 0},
		{[]float64{1, 2}, []float64{0}, 2, math.Inf(1)},
	}
	for k, c := range cases {
		if _, err := NewLogistic(c.x, c.y, c.p, c.sigma); err == nil {
			t.Errorf("case %d: no error", k)
		}
	}
	if _, _, err := SyntheticLogistic(0, 3, 1, 1); err == nil {
		t.Error("N = 0: no error")
	}
	if _, _, err := SyntheticLogistic(MaxSyntheticValues, 2, 1, 1); err == nil {
		t.Error("N·p too large: no error")
	}
}

// TestSyntheticLogistic checks the generator is deterministic in its seed and
// that its labels follow the true model: the mean of y_i − σ(x_i·θ*) is zero
// with standard error √(Σσ(1−σ))/N; 4.5 standard errors.
func TestSyntheticLogistic(t *testing.T) {
	const N, p = 20000, 10
	l, truth, err := SyntheticLogistic(N, p, 1, 42)
	if err != nil {
		t.Fatal(err)
	}
	l2, truth2, _ := SyntheticLogistic(N, p, 1, 42)
	for j := range truth {
		if truth[j] != truth2[j] {
			t.Fatal("same seed, different θ*")
		}
	}
	for k := range l.X {
		if l.X[k] != l2.X[k] {
			t.Fatal("same seed, different features")
		}
	}
	var resid, v float64
	for i, y := range l.Y {
		_, sig := logit(dot(l.X[i*p:(i+1)*p], truth))
		resid += y - sig
		v += sig * (1 - sig)
	}
	if se := math.Sqrt(v); !(math.Abs(resid) <= 4.5*se) {
		t.Errorf("Σ(y − σ(x·θ*)) = %v, want 0 ± %v", resid, se)
	}
}
