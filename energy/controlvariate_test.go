package energy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/internal/subsets"
)

// enumerate returns the mean and variance of est over all n-subsets, and the
// mean of FPC·s² (the variance estimate): exact expectations under sampling
// without replacement, with no Monte Carlo error.
func enumerate(N, n int, est func(idx []int32) (float64, float64)) (mean, variance, meanVarEst float64) {
	var vals, vests []float64
	subsets.Each(N, n, func(idx []int32) {
		v, s2 := est(idx)
		vals = append(vals, v)
		vests = append(vests, FPC(N, n)*s2)
	})
	k := float64(len(vals))
	for i, v := range vals {
		mean += v / k
		meanVarEst += vests[i] / k
	}
	for _, v := range vals {
		variance += (v - mean) * (v - mean) / k
	}
	return mean, variance, meanVarEst
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// The exact expectations below are sums over all C(8, 3) = 56 subsets, so
// the tolerance is round-off only (1e-10 relative; the terms are O(10²)).
const enumTol = 1e-10

func TestControlVariateUnbiasedAndVariance(t *testing.T) {
	const N, n = 8, 3
	tr := newShiftTerms(N, 2, 5)
	a := NewAnchor(tr)
	anchor := []float64{0.4, -0.7}
	if err := a.Refresh(anchor); err != nil {
		t.Fatal(err)
	}
	if a.Passes() != 1 {
		t.Fatalf("passes = %d after one refresh", a.Passes())
	}
	if !near(a.U(), Sum(tr, anchor), enumTol) {
		t.Fatalf("anchor U = %v, full sum %v", a.U(), Sum(tr, anchor))
	}
	for _, theta := range [][]float64{{0.9, -0.2}, {-1.5, 2.0}} {
		res := make([]float64, N)
		for i := range res {
			res[i] = tr.Term(nil, theta, i) - tr.Term(nil, anchor, i)
		}
		want := FPC(N, n) * popVar(res)
		mean, variance, vest := enumerate(N, n, func(idx []int32) (float64, float64) { return EnergyOn(tr, a, theta, idx) })
		if u := Sum(tr, theta); !near(mean, u, enumTol) {
			t.Errorf("θ = %v: E Û = %.12g, U = %.12g", theta, mean, u)
		}
		if !near(variance, want, enumTol) || !near(vest, want, enumTol) {
			t.Errorf("θ = %v: Var Û = %.12g, E[FPC·s²] = %.12g, formula N(N−n)/n·S_r² = %.12g", theta, variance, vest, want)
		}
		// The control variate must help near the anchor: the plain
		// minibatch's variance at the same θ, from the same enumeration.
		_, plain, _ := enumerate(N, n, func(idx []int32) (float64, float64) { return EnergyOn(tr, nil, theta, idx) })
		if theta[0] == 0.9 && !(variance < plain/4) {
			t.Errorf("θ = %v near the anchor: control-variate variance %.4g not below a quarter of the plain %.4g", theta, variance, plain)
		}
	}
	// Exact at the anchor, whatever the draw.
	subsets.Each(N, n, func(idx []int32) {
		u, s2 := EnergyOn(tr, a, anchor, idx)
		if u != a.U() || s2 != 0 {
			t.Fatalf("at θ̂: Û = %v (want %v exactly), s² = %v (want 0)", u, a.U(), s2)
		}
	})
}

func TestPlainEnergyOnMatchesMinibatch(t *testing.T) {
	const N, n = 8, 3
	tr := newShiftTerms(N, 2, 6)
	theta := []float64{0.3, 1.1}
	mean, variance, vest := enumerate(N, n, func(idx []int32) (float64, float64) { return EnergyOn(tr, nil, theta, idx) })
	_, _, uVar, _ := exact(tr, theta, n)
	if u := Sum(tr, theta); !near(mean, u, enumTol) || !near(variance, uVar, enumTol) || !near(vest, uVar, enumTol) {
		t.Errorf("E Û = %.12g (U %.12g), Var %.12g, E var est %.12g (want %.12g)", mean, u, variance, vest, uVar)
	}
}

// diffStates are the two states of the pair-difference tests and their
// anchors on tr, made by newAnchor and refreshed at fixed points near them.
func diffStates(t *testing.T, tr Terms, newAnchor func(Terms) *Anchor) (x, y []float64, ax, ay *Anchor) {
	t.Helper()
	x, y = []float64{0.5, -0.3}, []float64{-0.8, 0.9}
	ax, ay = newAnchor(tr), newAnchor(tr)
	if err := ax.Refresh([]float64{0.6, -0.2}); err != nil {
		t.Fatal(err)
	}
	if err := ay.Refresh([]float64{-0.9, 1.0}); err != nil {
		t.Fatal(err)
	}
	return x, y, ax, ay
}

func TestDiffOnUnbiasedAndVariance(t *testing.T) {
	const N, n = 8, 3
	tr := newShiftTerms(N, 2, 7)
	x, y, ax, ay := diffStates(t, tr, NewAnchor)
	D := Sum(tr, x) - Sum(tr, y)
	for _, c := range []struct {
		name   string
		ax, ay *Anchor
	}{{"plain", nil, nil}, {"anchors", ax, ay}, {"x anchored", ax, nil}} {
		d := make([]float64, N)
		for i := range d {
			d[i] = tr.Term(nil, x, i) - tr.Term(nil, y, i)
			if c.ax != nil {
				d[i] -= c.ax.ui[i]
			}
			if c.ay != nil {
				d[i] += c.ay.ui[i]
			}
		}
		want := FPC(N, n) * popVar(d)
		mean, variance, vest := enumerate(N, n, func(idx []int32) (float64, float64) { return DiffOn(tr, c.ax, x, c.ay, y, idx) })
		if !near(mean, D, enumTol) || !near(variance, want, enumTol) || !near(vest, want, enumTol) {
			t.Errorf("%s: E D̂ = %.12g (D %.12g), Var %.12g, E var est %.12g, formula %.12g", c.name, mean, D, variance, vest, want)
		}
	}
	// At n = N the common draw is exact.
	idx := make([]int32, N)
	for i := range idx {
		idx[i] = int32(i)
	}
	if d, s2 := DiffOn(tr, ax, x, ay, y, idx); !near(d, D, enumTol) || FPC(N, N)*s2 != 0 {
		t.Errorf("n = N: D̂ = %v (D %v), variance %v", d, D, FPC(N, N)*s2)
	}
}

func TestIndicesDistinctAndUniform(t *testing.T) {
	// Each index is in a size-n draw with probability n/N; over T draws the
	// count is Binomial(T, n/N); tolerance 5 sd.
	const N, n, T = 40, 7, 20000
	d := NewIndices(N)
	rng := rand.New(rand.NewPCG(1, 2))
	count := make([]int, N)
	for range T {
		seen := map[int32]bool{}
		for _, i := range d.Draw(rng, n) {
			if seen[i] {
				t.Fatalf("index %d twice in one draw", i)
			}
			seen[i] = true
			count[i]++
		}
	}
	p := float64(n) / N
	sd := math.Sqrt(T * p * (1 - p))
	for i, c := range count {
		if !(math.Abs(float64(c)-T*p) <= 5*sd) {
			t.Errorf("index %d drawn %d times, want %.0f ± %.0f", i, c, T*p, 5*sd)
		}
	}
	if got := len(d.Draw(rng, N)); got != N {
		t.Errorf("a draw of N has %d indices", got)
	}
}
