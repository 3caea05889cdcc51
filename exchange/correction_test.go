package exchange

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// shiftTerms is U_i(θ) = ½|θ − x_i|², i < N, with no prior: U is
// N/2·|θ − x̄|² + const, the posterior at τ is N(x̄, τ/N·I), and the
// per-example gradients θ − x_i have the covariance S of the x_i whatever θ.
// A size-n minibatch gradient N(θ − x̄_I) then has noise −N(x̄_I − x̄) of
// covariance f·S exactly, f = N(N − n)/n (sampling without replacement),
// independent of θ.
type shiftTerms struct{ x [][]float64 }

func (s shiftTerms) Dim() int { return len(s.x[0]) }
func (s shiftTerms) Len() int { return len(s.x) }
func (s shiftTerms) Term(grad, theta []float64, i int) float64 {
	var u float64
	for j, v := range s.x[i] {
		d := theta[j] - v
		if grad != nil {
			grad[j] = d
		}
		u += d * d / 2
	}
	return u
}
func (s shiftTerms) Prior(grad, _ []float64) float64 {
	for j := range grad {
		grad[j] = 0
	}
	return 0
}

// newShiftTerms draws N points whose first two coordinates have
// correlation 0.95 and whose others are independent with a third of their
// sd, all scaled by c, and returns them with their mean and covariance S
// (divisor N − 1). The top direction of S is then nearly (1, 1, 0, …)/√2,
// whatever p, and S_01 is half its eigenvalue: a large off-diagonal entry.
func newShiftTerms(N, p int, c float64, seed uint64) (shiftTerms, []float64, *mat.SymDense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float64, N)
	mean := make([]float64, p)
	for i := range x {
		x[i] = make([]float64, p)
		z := rng.NormFloat64()
		for j := range x[i] {
			x[i][j] = c * rng.NormFloat64() / 3
			if j < 2 {
				x[i][j] = c * (0.95*z + math.Sqrt(1-0.95*0.95)*rng.NormFloat64())
			}
			mean[j] += x[i][j] / float64(N)
		}
	}
	S := mat.NewSymDense(p, nil)
	for _, xi := range x {
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				S.SetSym(a, b, S.At(a, b)+(xi[a]-mean[a])*(xi[b]-mean[b])/float64(N-1))
			}
		}
	}
	return shiftTerms{x}, mean, S
}

// topEigen is the largest eigenvalue of S.
func topEigen(t *testing.T, S *mat.SymDense) float64 {
	var es mat.EigenSym
	if !es.Factorize(S, false) {
		t.Fatal("eigen-decomposition failed")
	}
	v := es.Values(nil)
	return v[len(v)-1]
}

// chainCov runs one level with policy pol on a size-n minibatch of st and
// returns the sample covariance of its states about the exact mean x̄ over
// steps states after a burn-in, and the level's stats.
func chainCov(t *testing.T, st shiftTerms, xbar []float64, n int, tau, eta float64, pol langevin.Policy, steps int) (*mat.Dense, LevelStats) {
	t.Helper()
	mb, err := energy.NewMinibatch(st, n)
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, Config{Levels: []Level{{Tau: tau, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: pol}}, Seed: 3}, [][]float64{xbar})
	p := len(xbar)
	sum := mat.NewDense(p, p, nil)
	d := make([]float64, p)
	burn := int(20 / (eta * float64(st.Len()))) // 20 relaxation times 1/a
	for k := 0; k < burn+steps; k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k < burn {
			continue
		}
		for j, x := range s.State(0) {
			d[j] = x - xbar[j]
		}
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				sum.Set(a, b, sum.At(a, b)+d[a]*d[b])
			}
		}
	}
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			sum.Set(a, b, sum.At(a, b)/float64(steps))
			sum.Set(b, a, sum.At(a, b))
		}
	}
	return sum, s.Stats().Levels[0]
}

// TestFullCorrectionStationaryCovariance checks the full correction against
// the exact stationary covariance of the chain, off-diagonal entries
// included, where the diagonal correction measurably fails, in both of the
// forms the full correction takes.
//
// With a = ηN the chain is θ' − x̄ = (1 − a)(θ − x̄) + ε, ε of covariance Q
// independent of θ, so its stationary covariance is V = Q/(a(2 − a)):
//
//   - full: Q = 2τη·I − η²E[Σ̂] + η²fS = 2τη·I, since the draw's Σ̂ =
//     f/(n − 1)·G_cᵀG_c is unbiased for fS (no direction is ever over
//     budget here: checked), so V = τ/N·I/(1 − a/2), the posterior up to
//     the Langevin discretisation;
//   - diagonal: Q = 2τη·I + η²f·offdiag(S).
//
// The entry (j, k) of the sample covariance of n states of such a Gaussian
// AR(1) process (coefficient ρ = 1 − a in every direction) has standard
// error √((V_jj V_kk + V_jk²)(1 + ρ²)/(n(1 − ρ²))); the tolerance is 5 of
// them (a false alarm below 1e-6 per entry). The minibatch part of ε is not
// exactly Gaussian, a mean of n draws; it is 40% of the budget at most. The
// settings make the checks sensitive: τ = 2.5 (a step at τ = 1 would be 60%
// too cold); the top direction's gradient noise is 20–40% of the budget (no
// correction: that much too hot there; f without the finite-population
// correction, N²/n = 1.5f (n = 20) or 1.2f (n = 10): 20% or 4% too cold
// there); and the diagonal correction's off-diagonal bias must exceed 8
// standard errors.
func TestFullCorrectionStationaryCovariance(t *testing.T) {
	const tau, a = 2.5, 0.05
	for _, c := range []struct {
		N, n, p int
		share   float64 // of the budget 2τη taken by the top direction's gradient noise
		steps   int
	}{
		{60, 20, 3, 0.4, 300_000}, // n > p: the dense p×p form
		// n ≤ p: the low-rank n×n form. A draw's Σ̂ has rank n − 1 = 9 and
		// scatters more: a smaller share keeps every draw within budget.
		{60, 10, 10, 0.2, 300_000},
	} {
		t.Run(fmt.Sprintf("N=%d/n=%d/p=%d", c.N, c.n, c.p), func(t *testing.T) {
			_, _, S0 := newShiftTerms(c.N, c.p, 1, 11)
			f := energy.FPC(c.N, c.n)
			// η = a/N; scale the data so that η²f·λ_top(S) = share·2τη.
			eta := a / float64(c.N)
			scale := math.Sqrt(c.share * 2 * tau / (eta * f * topEigen(t, S0)))
			st, xbar, S := newShiftTerms(c.N, c.p, scale, 11)
			rho := 1 - a
			fac := (1 + rho*rho) / (float64(c.steps) * (1 - rho*rho))
			base := 2 * tau * eta / (a * (2 - a))
			for _, pol := range []langevin.Policy{langevin.CorrectedFull, langevin.Corrected} {
				V, stats := chainCov(t, st, xbar, c.n, tau, eta, pol, c.steps)
				if stats.Clamped != 0 {
					t.Fatalf("%v: %d clamped directions: the prediction assumes none", pol, stats.Clamped)
				}
				worst := 0.0 // the largest |error|/se against the exact target
				for j := 0; j < c.p; j++ {
					for k := j; k < c.p; k++ {
						want, exact := 0.0, 0.0
						if j == k {
							want, exact = base, base
						} else if pol == langevin.Corrected {
							want = eta * eta * f * S.At(j, k) / (a * (2 - a))
						}
						se := math.Sqrt((base*base + want*want) * fac)
						got := V.At(j, k)
						if !(math.Abs(got-want) <= 5*se) {
							t.Errorf("%v: V[%d,%d] = %.4g, predicted %.4g (tolerance %.2g)", pol, j, k, got, want, 5*se)
						}
						worst = math.Max(worst, math.Abs(got-exact)/se)
					}
				}
				t.Logf("%v: largest deviation from the exact stationary covariance: %.1f standard errors", pol, worst)
				if pol == langevin.Corrected && !(worst > 8) {
					t.Errorf("diagonal correction within %.1f standard errors of the exact covariance: the test has no power", worst)
				}
			}
		})
	}
}

// TestFullCorrectionCountsClampedDirections recounts, at every step, the
// eigen-directions of the injected covariance 2τη·I − η²Σ̂ that are over
// budget, with Σ̂ = f/(n − 1)·G_cᵀG_c built densely from the step's own
// per-example gradients and decomposed by gonum's mat.EigenSym, and checks
// the level's counts against the recount, in both forms of the correction.
// The data give a varying number of such directions a step, up to several
// (the histogram is logged).
func TestFullCorrectionCountsClampedDirections(t *testing.T) {
	const tau, steps = 1.0, 400
	for _, c := range []struct{ N, n, p int }{{60, 20, 3}, {60, 8, 12}} {
		t.Run(fmt.Sprintf("N=%d/n=%d/p=%d", c.N, c.n, c.p), func(t *testing.T) {
			// η = 0.05/N, and the data scaled so that the top direction's
			// gradient noise is 20 budgets; the coordinates' independent
			// parts, about 1/20 of it, are near one budget each: over
			// budget on some draws, under on others.
			f, eta := energy.FPC(c.N, c.n), 0.05/float64(c.N)
			_, _, S0 := newShiftTerms(c.N, c.p, 1, 5)
			st, xbar, _ := newShiftTerms(c.N, c.p, math.Sqrt(20*2*tau/(eta*f*topEigen(t, S0))), 5)
			mb, err := energy.NewMinibatch(st, c.n)
			if err != nil {
				t.Fatal(err)
			}
			s := mustNew(t, Config{Levels: []Level{{Tau: tau, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: langevin.CorrectedFull}}, Seed: 9}, [][]float64{xbar})
			var want, wantSteps int64
			hist := map[int]int{}
			for k := 0; k < steps; k++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				rows, n := mb.Rows()
				g := mat.NewDense(n, c.p, append([]float64(nil), rows...))
				for j := 0; j < c.p; j++ {
					m := mat.Sum(g.ColView(j)) / float64(n)
					for i := 0; i < n; i++ {
						g.Set(i, j, g.At(i, j)-m)
					}
				}
				var cov mat.SymDense
				cov.SymOuterK(eta*eta*f/float64(n-1), g.T())
				var es mat.EigenSym
				if !es.Factorize(&cov, false) {
					t.Fatal("eigen-decomposition failed")
				}
				over := 0
				for _, v := range es.Values(nil) {
					if v > 2*tau*eta {
						over++
					}
				}
				hist[over]++
				want += int64(over)
				if over > 0 {
					wantSteps++
				}
			}
			got := s.Stats().Levels[0]
			t.Logf("steps by number of over-budget directions: %v", hist)
			if got.Clamped != want || got.ClampedSteps != wantSteps {
				t.Errorf("clamped %d direction-steps in %d steps, recount %d in %d", got.Clamped, got.ClampedSteps, want, wantSteps)
			}
			most := 0
			for k := range hist {
				most = max(most, k)
			}
			if len(hist) < 2 || most < 2 {
				t.Errorf("over-budget directions a step: %v; the test needs counts that vary and exceed 1", hist)
			}
		})
	}
}

// TestFullCorrectionNeedsRows: a level with the full correction on an
// estimator that does not expose its per-example gradients is an error
// naming the level and the estimator's type.
func TestFullCorrectionNeedsRows(t *testing.T) {
	est := energy.NewNoisy(energy.Quadratic{Lambda: []float64{1}}, 0, 1)
	_, err := New(Config{Levels: []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.1}, Noise: langevin.CorrectedFull}}}, [][]float64{{0}})
	if err == nil || !strings.Contains(err.Error(), "level 0") || !strings.Contains(err.Error(), "per-example gradients") || !strings.Contains(err.Error(), "*energy.Noisy") {
		t.Errorf("error %v, want one naming level 0, the per-example gradients and *energy.Noisy", err)
	}
}

// TestFullCorrectionNoAlloc: after the first step sizes the workspace, a
// step with the full correction allocates nothing, in both forms.
func TestFullCorrectionNoAlloc(t *testing.T) {
	for _, c := range []struct{ N, n, p int }{{60, 20, 3}, {60, 8, 12}} {
		st, xbar, _ := newShiftTerms(c.N, c.p, 1, 5)
		mb, _ := energy.NewMinibatch(st, c.n)
		s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: mb, Eta: langevin.Constant{Step: 1e-3}, Noise: langevin.CorrectedFull}}, Seed: 9}, [][]float64{xbar})
		s.Step()
		if a := testing.AllocsPerRun(100, func() { s.Step() }); a != 0 {
			t.Errorf("n = %d, p = %d: %v allocations a step", c.n, c.p, a)
		}
	}
}

// TestSetupCorrection: f-reSGLD's levels take the chosen correction; the
// methods with uncorrected noise keep plain SGLD noise whatever is chosen.
func TestSetupCorrection(t *testing.T) {
	st, _, _ := newShiftTerms(60, 3, 1, 5)
	for _, m := range Methods {
		for _, c := range Corrections {
			cold, _ := energy.NewMinibatch(st, 20)
			hot, _ := energy.NewMinibatch(st, 5)
			cfg, err := m.Config(Setup{Tau1: 1, Tau2: 4, Eta: langevin.Constant{Step: 1e-3}, Cold: cold, Hot: hot, Correction: c, Levels: 3})
			if err != nil {
				t.Fatal(err)
			}
			want := langevin.SGLD
			if m == FReSGLDMethod {
				want = c.Policy()
			}
			for l, L := range cfg.Levels {
				if L.Noise != want {
					t.Errorf("%v, %v correction: level %d has noise %v, want %v", m, c, l, L.Noise, want)
				}
			}
		}
	}
	if c, err := ParseCorrection("full"); err != nil || c != Full || Full.Policy() != langevin.CorrectedFull || Diagonal.Policy() != langevin.Corrected {
		t.Errorf(`ParseCorrection("full") = %v, %v`, c, err)
	}
	if _, err := ParseCorrection("dense"); err == nil || !strings.Contains(err.Error(), `"dense"`) {
		t.Errorf(`ParseCorrection("dense"): error %v, want one naming "dense"`, err)
	}
}

// TestFullCorrectionConcurrent: a three-level f-reSGLD ladder with the full
// correction gives bit-identical states stepping its levels concurrently or
// not (each level owns its estimator's rows and its workspace).
func TestFullCorrectionConcurrent(t *testing.T) {
	st, xbar, _ := newShiftTerms(60, 4, 1, 5)
	var states [2][]float64
	for i, conc := range []bool{false, true} {
		cold, _ := energy.NewMinibatch(st, 20)
		hot, _ := energy.NewMinibatch(st, 5)
		cfg, err := FReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 4, Levels: 3, Eta: langevin.Constant{Step: 1e-3}, Cold: cold, Hot: hot, PerStep: true, Seed: 2, Correction: Full, Concurrent: conc, Energies: Energies{Gaussian: true}})
		if err != nil {
			t.Fatal(err)
		}
		s := mustNew(t, cfg, [][]float64{xbar, xbar, xbar})
		stepN(t, s, 300)
		for l := 0; l < 3; l++ {
			states[i] = append(states[i], s.State(l)...)
		}
		s.Close()
	}
	for j := range states[0] {
		if states[0][j] != states[1][j] {
			t.Fatalf("coordinate %d: %v sequentially, %v concurrently", j, states[0][j], states[1][j])
		}
	}
}

// TestFullCorrectionStepByHand replays a level's steps by hand, from the
// same random stream: the minibatch gradient, then langevin.LowRank.Step
// with f = N(N − n)/n, the level's own η and τ. The driver must give the
// same states bit for bit, so any other factor, temperature or step size
// (as small as f·n/(n − 1), which the stationary test cannot resolve) fails.
func TestFullCorrectionStepByHand(t *testing.T) {
	const N, n, tau, eta, seed = 60, 20, 2.5, 1e-3, 4
	for _, p := range []int{3, 30} { // the dense and the low-rank form
		st, xbar, _ := newShiftTerms(N, p, 3, 5)
		mb, _ := energy.NewMinibatch(st, n)
		s := mustNew(t, Config{Levels: []Level{{Tau: tau, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: langevin.CorrectedFull}}, Seed: seed}, [][]float64{xbar})
		hand, _ := energy.NewMinibatch(st, n)
		hand.KeepRows()
		rng := rand.New(rand.NewPCG(seed, 0)) // level 0's stream
		theta := append([]float64(nil), xbar...)
		grad := make([]float64, p)
		var lr langevin.LowRank
		for k := range 50 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			hand.Grad(grad, nil, theta, rng)
			rows, m := hand.Rows()
			lr.Step(theta, grad, rows, m, float64(N)*float64(N-n)/float64(n), eta, tau, rng)
			for j, x := range s.State(0) {
				if x != theta[j] {
					t.Fatalf("p = %d, step %d, coordinate %d: driver %v, by hand %v", p, k, j, x, theta[j])
				}
			}
		}
	}
}
