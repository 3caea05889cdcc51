package plan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// heavyReference is the heavy-tailed logistic regression of the clamp
// tests (testenergy.Logistic at ρ = 0.6), its mode, the default step
// η = 0.2/λ_max and 10⁵ MALA draws of it, the reference.
func heavyReference(t *testing.T) (l *models.Logistic, mode []float64, eta float64, ref exchange.Trace) {
	l = testenergy.Logistic(t, 0.6)
	mode, lmax := testenergy.Mode(t, l)
	r, err := mala.Run(l, mode, mala.Config{Step: 0.05, Burn: 2000, Keep: 100_000, Thin: 1, Seed: 1, Adapt: true})
	if err != nil {
		t.Fatal(err)
	}
	return l, mode, 0.2 / lmax, exchange.Trace{P: l.P, Data: r.Samples}
}

// TestNoiseForecastAgainstMALA checks the forecast of a corrected chain's
// sds on heavy-tailed, correlated gradient noise against what a chain
// measures, MALA (exact) the reference, at the default step η = 0.2/λ_max
// and three forced small batches:
//
//   - n = 64, diagonal: the covariances the diagonal correction leaves
//     make the chain colder (sds ≈ 0.93 of MALA's, though a quarter of the
//     steps clamp; the clamp alone would say hotter: issue 50's wrong sign);
//   - n = 16, diagonal: most steps clamp and the chain runs hotter (≈ 1.1);
//   - n = 64, full: the clamp alone, hotter (≈ 1.04).
//
// Each coordinate's measured sd ratio has a standard error from the MCSE of
// both sds (diag.MCSESd: kurtosis and ESS included); the forecast must lie
// within 3 of them plus 0.02, the linearisation's own error at these
// settings (it was 0.003–0.016 on every coordinate at n = 32–128 and with
// the full correction, but up to 0.045 at n = 16, where 85% of the steps
// clamp: that case gets 0.05). Its mean over the coordinates must have the
// measured side of 1 and lie within 0.02 of the measured mean.
//
// It fails for the clamp-only forecast the warning used to give (n = 64:
// sds ≈ 1.01, not 0.92), for a forecast without the off-diagonal noise,
// with its eigenbasis transposed, or without either correction's clamp.
// The finite-population factor is too small a change here to see
// (TestNoiseForecastExact sees it).
func TestNoiseForecastAgainstMALA(t *testing.T) {
	if testing.Short() {
		t.Skip("a MALA reference and three chains of 10⁵ steps")
	}
	l, mode, eta, refTr := heavyReference(t)
	for _, c := range []struct {
		n     int
		corr  exchange.Correction
		slack float64
		side  float64 // the measured mean sd ratio's side of 1
	}{
		{64, exchange.Diagonal, 0.02, -1},
		{16, exchange.Diagonal, 0.05, +1},
		{64, exchange.Full, 0.02, +1},
	} {
		f, err := ForecastNoise(l, mode, c.n, eta, 1, c.corr, 5)
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := energy.NewMinibatch(l, c.n)
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: c.corr.Policy()}}, Seed: 3}, [][]float64{mode})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := exchange.Collect(s, exchange.Plan{Burn: 5000, Keep: 100_000, Thin: 1})
		if err != nil {
			t.Fatal(err)
		}
		var meanGot, meanWant float64
		for j := range l.P {
			a, b := tr.Coord(j), refTr.Coord(j)
			sa, sb := sd(a), sd(b)
			got := sa / sb
			se := got * math.Hypot(diag.MCSESd([][]float64{a})/sa, diag.MCSESd([][]float64{b})/sb)
			want := math.Sqrt(f.VarRatio[j])
			meanGot += got / float64(l.P)
			meanWant += want / float64(l.P)
			if math.Abs(got-want) > 3*se+c.slack {
				t.Errorf("n = %d, %v: coordinate %d's sd %.4f ± %.4f of MALA's, forecast %.4f", c.n, c.corr, j, got, se, want)
			}
		}
		t.Logf("n = %d, %v: mean sd ratio %.4f measured, %.4f forecast; %.0f%% of draws over the budget", c.n, c.corr, meanGot, meanWant, 100*f.Over)
		if (meanGot-1)*c.side <= 0 || (meanWant-1)*c.side <= 0 || math.Abs(meanGot-meanWant) > 0.02 {
			t.Errorf("n = %d, %v: mean sd ratio %.4f measured, %.4f forecast: want both on the %+.0f side of 1, within 0.02", c.n, c.corr, meanGot, meanWant, c.side)
		}
	}
}

// shiftTerms is U(θ) = ½θᵀAθ + Σ_i b_iᵀθ with Σ_i b_i = 0: a Gaussian
// N(0, A⁻¹) whose per-example gradients b_i do not depend on θ, so that a
// minibatch step is exactly linear, θ' = (I − ηA)θ + w, and the gradient
// noise's covariance N(N − n)/n·S_b is the same at every state. The
// forecast's linearisation is then exact.
type shiftTerms struct {
	a [][]float64
	b [][]float64
}

func (s shiftTerms) Dim() int { return len(s.a) }
func (s shiftTerms) Len() int { return len(s.b) }
func (s shiftTerms) Term(grad, theta []float64, i int) float64 {
	var u float64
	for j, b := range s.b[i] {
		u += b * theta[j]
		if grad != nil {
			grad[j] = b
		}
	}
	return u
}
func (s shiftTerms) Prior(grad, theta []float64) float64 {
	var u float64
	for j, row := range s.a {
		var g float64
		for k, a := range row {
			g += a * theta[k]
		}
		u += 0.5 * g * theta[j]
		if grad != nil {
			grad[j] = g
		}
	}
	return u
}

// newShiftTerms makes a 3-dimensional shiftTerms with correlated
// coordinates (A tridiagonal, 2 on the diagonal, 0.6 beside it) and N
// per-example gradients lying mostly along (1, 1, −1): noise strongly
// correlated between coordinates, light-tailed, centred exactly.
func newShiftTerms(N int, scale float64) shiftTerms {
	s := shiftTerms{a: [][]float64{{2, 0.6, 0}, {0.6, 2, 0.6}, {0, 0.6, 2}}}
	rng := rand.New(rand.NewPCG(21, 1))
	mean := make([]float64, 3)
	for range N {
		z := rng.NormFloat64()
		b := []float64{z + 0.3*rng.NormFloat64(), z + 0.3*rng.NormFloat64(), -z + 0.3*rng.NormFloat64()}
		for j := range b {
			b[j] *= scale
			mean[j] += b[j] / float64(N)
		}
		s.b = append(s.b, b)
	}
	for _, b := range s.b {
		for j := range b {
			b[j] -= mean[j]
		}
	}
	return s
}

// TestNoiseForecastExact checks the forecast where it is exact: on
// shiftTerms the corrected chain is linear with noise that does not depend
// on the state (the clamp depends on the batch alone), so its stationary
// variances are the forecast's VarRatio times the posterior's (A⁻¹)_jj, the
// Euler step's bias included, whatever the noise's law. At η = 0.5/λ_max
// and n = 20 of N = 100, three cases:
//
//   - diagonal, gradient noise about 30% of the budget 2τη per coordinate
//     (no draw clamps): the covariances the diagonal correction leaves
//     (correlation ≈ 0.9) move the variances by −8% to +6%;
//   - full, the same noise: along (1, 1, −1) it is about 90% of the
//     budget, and 40% of the draws clamp there;
//   - diagonal, noise about 2.8 times larger: most draws clamp.
//
// The forecast takes 20,000 draws here, so that its clamp's own error is
// small beside the chain's. A chain of 2·10⁵ steps must match each
// coordinate's forecast variance within 3 standard errors (2·var·MCSE(sd)/
// sd, diag.MCSESd), at two seeds.
//
// It fails for a forecast that drops the off-diagonal noise, for Σ without
// the finite-population factor (N − n)/N (25% more off-diagonal noise
// here), for the Euler factor 1 − (1 − ηλ_a)(1 − ηλ_b) taken as
// η(λ_a + λ_b), for VᵀQV taken as VQVᵀ, for the full correction's clamp
// taken on the diagonal or dropped, and for the diagonal's clamp dropped.
func TestNoiseForecastExact(t *testing.T) {
	const N, n = 100, 20
	lmax := 2 + 0.6*math.Sqrt2
	eta := 0.5 / lmax
	// A⁻¹'s diagonal, by cofactors of the 3×3 tridiagonal A.
	a, b := 2.0, 0.6
	det := a*(a*a-b*b) - b*(b*a)
	inv := []float64{(a*a - b*b) / det, a * a / det, (a*a - b*b) / det}
	mode := make([]float64, 3)
	for _, c := range []struct {
		corr     exchange.Correction
		scale    float64
		clamping bool
	}{
		{exchange.Diagonal, 0.09, false},
		{exchange.Full, 0.09, true},
		{exchange.Diagonal, 0.15, true},
	} {
		s := newShiftTerms(N, c.scale)
		nm, err := NewNoiseModel(s, mode, 1)
		if err != nil {
			t.Fatal(err)
		}
		f, err := nm.Forecast(n, eta, 1, c.corr, 20_000)
		if err != nil {
			t.Fatal(err)
		}
		if (f.Over > 0.1) != c.clamping {
			t.Fatalf("%v, scale %v: %.4f of the draws clamp", c.corr, c.scale, f.Over)
		}
		for _, seed := range []uint64{3, 4} {
			mb, _ := energy.NewMinibatch(s, n)
			smp, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: c.corr.Policy()}}, Seed: seed}, [][]float64{mode})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := exchange.Collect(smp, exchange.Plan{Burn: 1000, Keep: 200_000, Thin: 1})
			if err != nil {
				t.Fatal(err)
			}
			for j := range 3 {
				x := tr.Coord(j)
				sdx := sd(x)
				got := sdx * sdx / inv[j]
				se := 2 * got * diag.MCSESd([][]float64{x}) / sdx
				t.Logf("%v, scale %v, seed %d, coordinate %d: variance %.4f ± %.4f of the posterior's, forecast %.4f (Euler's alone %.4f; %.0f%% of draws clamp)", c.corr, c.scale, seed, j, got, se, f.VarRatio[j], f.EulerRatio[j], 100*f.Over)
				if math.Abs(got-f.VarRatio[j]) > 3*se {
					t.Errorf("%v, scale %v, seed %d, coordinate %d: variance %.4f ± %.4f of the posterior's, forecast %.4f", c.corr, c.scale, seed, j, got, se, f.VarRatio[j])
				}
			}
		}
	}
}

// TestSubsetHessian checks the central differences that stand for the
// Hessian where N·p² is too large for every example: on the heavy-tailed
// logistic regression, over every example it must match the model's
// exact Hessian, and over the even examples its HessianOf (both scaled by
// N/m), each entry within 10⁻⁵ of the largest. A diagonal halved (the
// symmetric fill's slip) or a scale of 1 fails by far more.
func TestSubsetHessian(t *testing.T) {
	l := testenergy.Logistic(t, 0.6)
	mode, _ := testenergy.Mode(t, l)
	all, even := make([]int, l.Len()), []int{}
	for i := range all {
		all[i] = i
		if i%2 == 0 {
			even = append(even, i)
		}
	}
	for _, rows := range [][]int{all, even} {
		got, want := subsetHessian(l, mode, rows), l.HessianOf(mode, rows)
		var top float64
		for a := range l.P {
			top = max(top, math.Abs(want.At(a, a)))
		}
		for a := range l.P {
			for b := range l.P {
				if d := math.Abs(got.At(a, b) - want.At(a, b)); d > 1e-5*top {
					t.Errorf("%d rows: H[%d][%d] = %.6g, want %.6g", len(rows), a, b, got.At(a, b), want.At(a, b))
				}
			}
		}
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
