package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/energy"
)

// expansionCase is a logistic regression of N examples and 3 features with
// its expansion about its mode, and two states at about twice the
// posterior's width from it, one on either side.
func expansionCase(t *testing.T, N int) (*Logistic, *energy.Expansion, []float64, []float64) {
	t.Helper()
	l, _, err := SyntheticLogistic(N, 3, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	mode, _, err := l.Mode(make([]float64, 3), nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	e, err := energy.NewExpansion(l, mode)
	if err != nil {
		t.Fatal(err)
	}
	s := 2 / math.Sqrt(float64(N))
	x, y := make([]float64, 3), make([]float64, 3)
	for j := range mode {
		x[j] = mode[j] + s*float64(j+1)/2
		y[j] = mode[j] - s*float64(3-j)/2
	}
	return l, e, x, y
}

// TestExpansionSplitsTheDifference checks that the expansion's part and the
// examples' remainders add up to the exact data difference Σ U_i(x) − U_i(y)
// (to rounding: 10⁻⁹ of the sum's size), and that every remainder lies
// within its bound (M/6)·w_i·(‖Δ_x‖³_A + ‖Δ_y‖³_A), with the largest ratio
// to it above 1/1000 (a bound a thousand times too loose would make the
// thinning a thousand times dearer). With a remainder of the wrong sign or
// the Hessian's half missing the sum is off by far more than rounding.
func TestExpansionSplitsTheDifference(t *testing.T) {
	l, e, x, y := expansionCase(t, 500)
	var sum, full, largest float64
	rx, ry := e.Radius(x), e.Radius(y)
	for i := range l.Len() {
		r := e.Remainder(i, x, y)
		sum += r
		full += l.Term(nil, x, i) - l.Term(nil, y, i)
		b := l.ThirdBound() / 6 * e.RowWeight(i) * (rx*rx*rx + ry*ry*ry)
		if !(math.Abs(r) <= b) {
			t.Fatalf("example %d: remainder %v exceeds its bound %v", i, r, b)
		}
		largest = max(largest, math.Abs(r)/b)
	}
	got := e.QuadDiff(x, y) + sum
	if !(math.Abs(got-full) <= 1e-9*math.Abs(full)) {
		t.Errorf("expansion %v + remainders %v = %v, exact difference %v", e.QuadDiff(x, y), sum, got, full)
	}
	if !(largest > 1e-3) {
		t.Errorf("largest remainder is %v of its bound: the bound is too loose", largest)
	}
	t.Logf("exact difference %.6g, expansion %.6g, remainders %.3g; largest remainder/bound %.3f; Λ/|c| = %.3g",
		full, e.QuadDiff(x, y), sum, largest, e.Rate(1, x, y))
}

// TestThinPassesWithTheFactorsProduct checks Expansion.Thin's law: it must
// pass with probability Π_i min(1, e^{c·ρ_i}) = exp(−Σ_i max(0, −c·ρ_i)),
// computed here by a pass over every example, for both signs of c (one
// makes the negative remainders count, the other the positive ones). The
// rate c is set so that the probability is near 1/2, where 20,000 draws
// give it a binomial standard error of 0.0035; the pass rate must lie
// within 4 of them. Thinning with φ_i/b_i inverted in sign, or without the
// max, gives the probability of the other sign, off by tens of errors.
func TestThinPassesWithTheFactorsProduct(t *testing.T) {
	l, e, x, y := expansionCase(t, 500)
	var pos, neg float64
	for i := range l.Len() {
		r := e.Remainder(i, x, y)
		pos += max(0, r)
		neg += max(0, -r)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 20_000
	for _, sign := range []float64{1, -1} {
		// c·ρ_i < 0 counts: c > 0 takes the negative remainders.
		phi := neg
		if sign < 0 {
			phi = pos
		}
		c := sign * math.Ln2 / phi
		want := math.Exp(-math.Abs(c) * phi)
		passed, events := 0, 0
		for range draws {
			ok, n, err := e.Thin(rng, c, x, y)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				passed++
			}
			events += n
		}
		got := float64(passed) / draws
		se := math.Sqrt(want * (1 - want) / draws)
		t.Logf("c = %+.4g: pass rate %.4f, exact %.4f (%.1f se); %.1f examples an attempt, Λ = %.3g", c, got, want, (got-want)/se, float64(events)/draws, e.Rate(c, x, y))
		if !(math.Abs(got-want) <= 4*se) {
			t.Errorf("c = %+.4g: pass rate %.4f, want %.4f ± %.4f", c, got, want, 4*se)
		}
	}
	if !(math.Abs(pos-neg) > 0.2*(pos+neg)) {
		t.Errorf("remainders %.4g above and %.4g below zero: too alike to tell the signs apart", pos, neg)
	}
}

// TestMeanRateIsRatesMean checks Expansion.MeanRate, which prices thinned
// swaps for auto, against the mean of Rate over 20,000 pairs of states
// drawn from the Laplace approximation tempered to τ_x = 1 and τ_y = 4,
// x − θ̂ ~ N(0, τ_x A⁻¹), A read back from Radius by polarisation. The mean
// must lie within 4 standard errors of the draws' mean (its own sd/√n).
// With τ in place of τ^{3/2}, or E[χ]³ in place of E[χ³], it is off by far
// more.
func TestMeanRateIsRatesMean(t *testing.T) {
	_, e, _, _ := expansionCase(t, 500)
	at := e.Point()
	p := len(at)
	v := make([]float64, p)
	r2 := func(j, k int) float64 { // ‖e_j + e_k‖²_A (k < 0: e_j alone)
		copy(v, at)
		v[j]++
		if k >= 0 {
			v[k]++
		}
		r := e.Radius(v)
		return r * r
	}
	a := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			if j == k {
				a.SetSym(j, j, r2(j, -1))
			} else {
				a.SetSym(j, k, (r2(j, k)-r2(j, -1)-r2(k, -1))/2)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("A read back from Radius is not positive definite")
	}
	var u mat.TriDense
	ch.UTo(&u) // A = UᵀU, so U⁻¹z ~ N(0, A⁻¹)
	rng := rand.New(rand.NewPCG(3, 4))
	draw := func(tau float64) []float64 {
		z := mat.NewVecDense(p, nil)
		for j := range p {
			z.SetVec(j, rng.NormFloat64())
		}
		if err := z.SolveVec(&u, z); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, p)
		for j := range x {
			x[j] = at[j] + math.Sqrt(tau)*z.AtVec(j)
		}
		return x
	}
	const n, c, tx, ty = 20_000, 0.75, 1.0, 4.0
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = e.Rate(c, draw(tx), draw(ty))
	}
	mean, sd := stat.MeanStdDev(rates, nil)
	se := sd / math.Sqrt(n)
	want := e.MeanRate(c, tx, ty)
	t.Logf("mean Λ over %d draws %.5g ± %.2g, MeanRate %.5g (%.1f se)", n, mean, se, want, (mean-want)/se)
	if !(math.Abs(mean-want) <= 4*se) {
		t.Errorf("MeanRate %.5g, the draws' mean Λ %.5g ± %.2g", want, mean, se)
	}
}

// TestLogisticThirdBound checks ThirdBound against f‴ = σ(1 − σ)(1 − 2σ)
// on a fine grid: no value above it, the largest within 10⁻⁶ of it, and
// Derivs' f″ the derivative of its f' to finite-difference accuracy.
func TestLogisticThirdBound(t *testing.T) {
	l, _, err := SyntheticLogistic(2, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var largest float64
	for z := -10.0; z <= 10; z += 1e-4 {
		_, _, f2 := l.Derivs(0, z)
		sig := 1 / (1 + math.Exp(-z))
		f3 := sig * (1 - sig) * (1 - 2*sig)
		largest = max(largest, math.Abs(f3))
		if z > -1 && z < 1 {
			h := 1e-5
			_, a, _ := l.Derivs(0, z+h)
			_, b, _ := l.Derivs(0, z-h)
			if d := (a - b) / (2 * h); math.Abs(d-f2) > 1e-8 {
				t.Fatalf("z = %v: f'' = %v, finite difference of f' %v", z, f2, d)
			}
		}
	}
	if b := l.ThirdBound(); !(largest <= b && largest > b-1e-6) {
		t.Errorf("largest |f'''| on the grid %v, bound %v", largest, b)
	}
}
