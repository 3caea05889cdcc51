package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slabTiny is an intercept and two features of correlation 0.9, N = 50,
// labels from θ* = (0.3, 0.8, 0): a posterior undecided between patterns.
func slabTiny(t *testing.T, pr SlabPrior) *Logistic { return slabRows(t, 50, 0, pr, false) }

// slabRows is slabTiny's model on N examples drawn from PCG stream
// stream; heavy draws the first feature from a Cauchy law (a normal over
// the modulus of another), whose high-leverage rows make a second-order
// expansion's remainder bounds large.
func slabRows(t *testing.T, N int, stream uint64, pr SlabPrior, heavy bool) *Logistic {
	t.Helper()
	const p = 3
	rng := rand.New(rand.NewPCG(7, stream))
	x, y := make([]float64, N*p), make([]float64, N)
	for i := range N {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		if heavy {
			z1 /= math.Abs(rng.NormFloat64())
		}
		row := x[i*p : (i+1)*p]
		row[0], row[1], row[2] = 1, z1, 0.9*z1+math.Sqrt(1-0.81)*z2
		if rng.Float64() < sigmoid(0.3+0.8*row[1]) {
			y[i] = 1
		}
	}
	l, err := NewSlabLogistic(x, y, p, 1, pr, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// gridPosterior integrates the posterior exp(−U) of a 3-coefficient model
// on a product grid: the intercept uniform on [−2, 3] (51 points; its
// posterior is 0.35 ± 0.3, so the grid spans ±8 sds at a third of an sd),
// each slab-and-spike coefficient θ = c·sinh(t), c = s0/2, t uniform with
// step 0.125 out to |θ| = 4 (≥ 6 posterior sds and 4 prior slab sds out;
// spacing s0/16 in the spike, |θ|/8 beyond), so that both the spike (sd s0)
// and the slab's posterior (sd ≈ 0.3–0.5) are resolved by ≥ 6 points per
// sd in t. The trapezoid rule on a smooth
// integrand decaying to 0 at both ends errs by far less than 10⁻⁶ at such
// steps. It returns the inclusion probabilities E[P(γ_j = 1 | θ_j)] of
// coefficients 1 and 2 and the posterior means.
func gridPosterior(l *Logistic) (incl, mean [3]float64) { return gridPosteriorOf(l, l.U) }

// gridPosteriorOf is gridPosterior of the density exp(−U).
func gridPosteriorOf(l *Logistic, U func([]float64) float64) (incl, mean [3]float64) {
	c := l.Slab.Spike / 2
	var tg, wt []float64 // θ and dθ/dt·dt
	const dt = 0.125
	tmax := math.Asinh(4 / c)
	for t := -tmax; t <= tmax+1e-9; t += dt {
		tg = append(tg, c*math.Sinh(t))
		wt = append(wt, c*math.Cosh(t)*dt)
	}
	var b0 []float64
	for k := range 51 {
		b0 = append(b0, -2+0.1*float64(k))
	}
	// U at the grid's centre sets the scale: exp(−(U − u0)) cannot overflow.
	th := []float64{0, 0, 0}
	var ws []float64
	var pts [][3]float64
	u0 := math.Inf(1)
	for _, a := range b0 {
		for i, b := range tg {
			for k, d := range tg {
				th[0], th[1], th[2] = a, b, d
				u := U(th)
				u0 = math.Min(u0, u)
				ws = append(ws, -u+math.Log(wt[i]*wt[k]))
				pts = append(pts, [3]float64{a, b, d})
			}
		}
	}
	var total float64
	for n, lw := range ws {
		w := math.Exp(lw + u0)
		total += w
		for j := range 3 {
			mean[j] += w * pts[n][j]
		}
		incl[1] += w * l.Slab.Inclusion(pts[n][1])
		incl[2] += w * l.Slab.Inclusion(pts[n][2])
	}
	for j := range 3 {
		mean[j] /= total
		incl[j] /= total
	}
	incl[0] = 1
	return incl, mean
}

// TestSlabExactAgainstGrid checks the reference (Laplace + importance
// sampling) against brute-force quadrature of the posterior's own energy
// U (the one the samplers use) on a tiny problem. The grid is accurate to
// far below 10⁻⁶; the reference's error is Monte Carlo, so each inclusion
// and mean must be within 4 of its own standard errors (a 4-sigma band
// fails by chance with probability 6·10⁻⁵ per value at a fixed seed) plus
// the light patterns' weight and 10⁻⁶. The MCSEs themselves must be
// positive and finite: a reference whose error reads 0 or NaN fails.
func TestSlabExactAgainstGrid(t *testing.T) {
	for _, spike := range []float64{0.02} {
		l := slabTiny(t, SlabPrior{W: 0.3, Spike: spike, Slab: 1}) // w ≠ 1/2: swapping spike and slab with their weights changes the density
		e, err := l.SlabExact(16000, 1)
		if err != nil {
			t.Fatal(err)
		}
		incl, mean := gridPosterior(l)
		for j := range 3 {
			t.Logf("s0 %g coef %d: inclusion %.5f ± %.5f grid %.5f; mean %.5f ± %.5f grid %.5f", spike, j, e.Inclusion[j], e.InclSE[j], incl[j], e.Mean[j], e.MeanSE[j], mean[j])
			if j > 0 {
				if !(e.InclSE[j] > 0 && e.InclSE[j] < 0.01) {
					t.Errorf("s0 %g coef %d: inclusion MCSE %v: want positive and below 0.01", spike, j, e.InclSE[j])
				}
				if d := math.Abs(e.Inclusion[j] - incl[j]); !(d <= 4*e.InclSE[j]+e.Light+1e-6) {
					t.Errorf("s0 %g coef %d: inclusion %v, grid %v: off by %.3g > 4·MCSE %.3g", spike, j, e.Inclusion[j], incl[j], d, 4*e.InclSE[j])
				}
			}
			if d := math.Abs(e.Mean[j] - mean[j]); !(d <= 4*e.MeanSE[j]+e.Light+1e-6) || !(e.MeanSE[j] > 0) {
				t.Errorf("s0 %g coef %d: mean %v ± %v, grid %v: off by %.3g", spike, j, e.Mean[j], e.MeanSE[j], mean[j], d)
			}
		}
		if !(incl[1] > 0.2 && incl[1] < 0.98 && incl[2] > 0.05 && incl[2] < 0.8) {
			t.Errorf("s0 %g: grid inclusions %v: the problem is not undecided between patterns, a weak test", spike, incl)
		}
		t.Log(e.Cost())
	}
}

// TestSlabPriorAllocatesNothing: the spike-and-slab prior's energy and
// gradient, which every step of every sampler pays, allocate nothing, and
// the gradient is the energy's derivative (central differences, step 1e-6,
// agree to 1e-6 relative: the truncation error is O(h²·U‴) ≈ 10⁻¹²·1/s0⁴).
func TestSlabPriorAllocatesNothing(t *testing.T) {
	l := slabTiny(t, SlabPrior{W: 0.3, Spike: 0.02, Slab: 1})
	theta, grad := []float64{0.2, 0.03, -0.5}, make([]float64, 3)
	if a := testing.AllocsPerRun(100, func() { l.Prior(grad, theta) }); a != 0 {
		t.Errorf("Prior allocates %v times a call", a)
	}
	l.Prior(grad, theta)
	for j := range theta {
		const h = 1e-6
		fd := centralDiff(func(x []float64) float64 { return l.Prior(nil, x) }, theta, j, h)
		if !(math.Abs(fd-grad[j]) <= 1e-6*(1+math.Abs(fd))) {
			t.Errorf("coefficient %d: gradient %v, central difference %v", j, grad[j], fd)
		}
	}
	// The intercept keeps N(0, σ₀²): its prior energy is θ₀²/(2σ₀²).
	if g0 := grad[0]; g0 != theta[0] {
		t.Errorf("intercept's prior gradient %v, want θ₀/σ₀² = %v", g0, theta[0])
	}
}
