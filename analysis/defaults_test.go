package analysis

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// TestColdSize checks the default cold minibatch against the rule computed
// from the exact population spread. At θ = 0 every per-example gradient is
// (1/2 − y_i)x_i, so S_j² is the population variance (divisor N − 1) of
// those values over all N examples. The pilot's s_j² from m = 2000 of them
// has relative sd about √(κ_j/m) (κ_j the kurtosis term Var((g − ḡ)²)/S⁴,
// computed here), so the S²_max it reports must lie within 5 such sd.
func TestColdSize(t *testing.T) {
	const N, p = 20_000, 5
	l, _, err := models.SyntheticLogistic(N, p, 1, 9)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]float64, p)
	S2, tol := 0.0, 0.0
	for j := range p {
		var mean float64
		g := make([]float64, N)
		for i := range N {
			g[i] = (0.5 - l.Y[i]) * l.Row(i)[j]
			mean += g[i] / N
		}
		var v, v4 float64
		for _, x := range g {
			v += (x - mean) * (x - mean) / (N - 1)
		}
		for _, x := range g {
			d := (x-mean)*(x-mean) - v
			v4 += d * d / N
		}
		if v > S2 {
			S2, tol = v, 5*math.Sqrt(v4/pilotSize)
		}
	}
	for _, eta := range []float64{1e-7, 1e-5, 1e-3} {
		n, nstar, s2, err := coldSize(l, [][]float64{zero}, eta, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s2-S2) > tol || math.IsNaN(s2) {
			t.Errorf("η = %v: S²_max %v, exact %v ± %v", eta, s2, S2, tol)
		}
		if want := variance.SizeFor(N, s2, eta, 1, coldShare); nstar != want {
			t.Errorf("η = %v: n* = %v, the rule gives %v", eta, nstar, want)
		}
		if want := min(max(int(math.Ceil(nstar)), ColdMin), ColdMax); n != want {
			t.Errorf("η = %v: n = %d, want ⌈n*⌉ = ⌈%v⌉ bounded to [%d, %d]", eta, n, nstar, ColdMin, ColdMax)
		}
		if n < int(math.Ceil(nstar)) {
			// The step size that makes n meet the rule gives back n.
			e := etaFor(N, n, s2, 1, coldShare)
			if got := variance.SizeFor(N, s2, e, 1, coldShare); math.Abs(got-float64(n)) > 1e-6*float64(n) {
				t.Errorf("η = %v lowered to %v: the rule then asks n* = %v, not n = %d", eta, e, got, n)
			}
		}
	}
	// The three η above span the bounds: n = 100 (n* small), n* itself,
	// and n = ColdMax (n* large), else the test checks less than it says.
	lo, _, _, _ := coldSize(l, [][]float64{zero}, 1e-7, 1, 3)
	hi, _, _, _ := coldSize(l, [][]float64{zero}, 1e-3, 1, 3)
	if lo != ColdMin || hi != ColdMax {
		t.Errorf("n at η = 1e-7 and 1e-3: %d and %d, want the bounds %d and %d", lo, hi, ColdMin, ColdMax)
	}
}

// TestLogDensity checks lp__: exactly −U(θ) on small data; on data past
// lpWork, −(U_0 + N/m Σ_S U_i) over a fixed subset, the same value on every
// call, within 5 standard errors of −U, the standard error of a size-m
// sample without replacement being N·√((N − m)/(N·m))·S_U, S_U the
// population sd of the U_i at θ.
func TestLogDensity(t *testing.T) {
	small, truth, _ := models.SyntheticLogistic(100, 5, 1, 2)
	if got, want := logDensity(small, 1)(truth), -small.U(truth); got != want {
		t.Errorf("small data: lp__ %v, want −U = %v", got, want)
	}
	const N, p = 40_000, 10
	l, truth, _ := models.SyntheticLogistic(N, p, 1, 3)
	lp := logDensity(l, 1)
	m := float64((lpWork + p - 1) / p)
	var s, s2 float64
	for i := range N {
		u := l.Term(nil, truth, i)
		s, s2 = s+u, s2+u*u
	}
	S := math.Sqrt((s2 - s*s/N) / (N - 1))
	se := N * math.Sqrt((N-m)/(N*m)) * S
	got, want := lp(truth), -l.U(truth)
	if math.Abs(got-want) > 5*se || math.IsNaN(got) {
		t.Errorf("lp__ %v, −U %v ± %v", got, want, se)
	}
	if got == want {
		t.Errorf("lp__ is exactly −U on data past the budget: no subset was used")
	}
	if again := lp(truth); again != got {
		t.Errorf("lp__ %v then %v at the same θ: the subset is not fixed", got, again)
	}
}

// TestHotOptions: the command's hot levels take --hot-share and report the
// window-averaged spread (what that does is pinned in ./variance,
// TestAutoBatchSmoothAfterFullWindow and TestAutoBatchTemperature).
func TestHotOptions(t *testing.T) {
	o := hotOptions(0.7)
	if !o.Smooth || o.Share != 0.7 || o.Min != 0 || o.Max != 0 || o.Every != 0 {
		t.Errorf("hot options %+v: want the share 0.7, smoothed, other settings at AutoBatch's defaults", o)
	}
}
