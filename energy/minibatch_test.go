package energy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/internal/meanvar"
)

// shiftTerms is U_i(θ) = ½|θ − x_i|² + c_i θ_0⁴/4 and U_0 = ½λ|θ|²: per-example
// gradients θ − x_i + c_i θ_0³ e_0 whose spread is known exactly from the data.
type shiftTerms struct {
	x      [][]float64
	c      []float64
	lambda float64
}

func (s shiftTerms) Dim() int { return len(s.x[0]) }
func (s shiftTerms) Len() int { return len(s.x) }

func (s shiftTerms) Term(grad, theta []float64, i int) float64 {
	var u float64
	for j, t := range theta {
		d := t - s.x[i][j]
		u += 0.5 * d * d
		if grad != nil {
			grad[j] = d
		}
	}
	t3 := theta[0] * theta[0] * theta[0]
	if grad != nil {
		grad[0] += s.c[i] * t3
	}
	return u + s.c[i]*t3*theta[0]/4
}

func (s shiftTerms) Prior(grad, theta []float64) float64 {
	var u float64
	for j, t := range theta {
		u += 0.5 * s.lambda * t * t
		if grad != nil {
			grad[j] = s.lambda * t
		}
	}
	return u
}

func newShiftTerms(N, p int, seed uint64) shiftTerms {
	rng := rand.New(rand.NewPCG(seed, 99))
	s := shiftTerms{x: make([][]float64, N), c: make([]float64, N), lambda: 0.5}
	for i := range s.x {
		s.x[i] = make([]float64, p)
		for j := range s.x[i] {
			// Skewed, with unequal spreads per coordinate and a large offset
			// on coordinate 1 to exercise the shifted moments.
			s.x[i][j] = float64(j+1)*rng.ExpFloat64() + 100*float64(j%2)
		}
		s.c[i] = rng.NormFloat64()
	}
	return s
}

// exact returns the full U and ∇U, and the exact variances of the size-n
// estimates: N(N − n)/n · S² with S² the population variance (divisor N − 1)
// of the per-example terms.
func exact(t Terms, theta []float64, n int) (u float64, grad []float64, uVar float64, gVar []float64) {
	N, p := t.Len(), t.Dim()
	grad = make([]float64, p)
	u = t.Prior(grad, theta)
	us := make([]float64, N)
	gs := make([][]float64, N)
	for i := range us {
		gs[i] = make([]float64, p)
		us[i] = t.Term(gs[i], theta, i)
		u += us[i]
		for j := range grad {
			grad[j] += gs[i][j]
		}
	}
	f := float64(N*N) * (1 - float64(n)/float64(N)) / float64(n) // written out, not FPC
	uVar = f * popVar(us)
	gVar = make([]float64, p)
	col := make([]float64, N)
	for j := range gVar {
		for i := range col {
			col[i] = gs[i][j]
		}
		gVar[j] = f * popVar(col)
	}
	return
}

func popVar(x []float64) float64 {
	_, v := meanvar.Of(x)
	return v
}

func TestMinibatchExactAtFullBatch(t *testing.T) {
	const N, p = 37, 3
	ts := newShiftTerms(N, p, 1)
	theta := []float64{0.3, -1.2, 2}
	u, g, _, _ := exact(ts, theta, N)
	mb, err := NewMinibatch(ts, N)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	grad, gv := make([]float64, p), make([]float64, p)
	for rep := 0; rep < 3; rep++ {
		mb.Grad(grad, gv, theta, rng)
		for j := range g {
			// Only the summation order differs from the direct sum.
			if !(math.Abs(grad[j]-g[j]) <= 1e-12*(1+math.Abs(g[j]))*N) {
				t.Errorf("n = N: ∂_%dÛ = %v, want ∂_%dU = %v", j, grad[j], j, g[j])
			}
			if gv[j] != 0 {
				t.Errorf("n = N: gradient variance %d = %v, want exactly 0", j, gv[j])
			}
		}
		uh, uv := mb.Energy(theta, rng)
		if !(math.Abs(uh-u) <= 1e-12*(1+math.Abs(u))*N) {
			t.Errorf("n = N: Û = %v, want U = %v", uh, u)
		}
		if uv != 0 {
			t.Errorf("n = N: energy variance %v, want exactly 0", uv)
		}
	}
}

// TestMinibatchUnbiased checks by Monte Carlo over many minibatches on a fixed
// data set that Û and ∇Û are unbiased, that their variance is N(N − n)/n·S²,
// and that the reported variances are unbiased for it. Each check allows 4.5
// standard errors of its Monte Carlo mean (about 1 in 150,000 per check to
// fail by chance; the seeds are fixed).
func TestMinibatchUnbiased(t *testing.T) {
	const N, p, M = 40, 2, 40000
	ts := newShiftTerms(N, p, 7)
	theta := []float64{0.7, 1.5}
	for _, n := range []int{2, 5, 31} {
		u, g, uVar, gVar := exact(ts, theta, n)
		mb, err := NewMinibatch(ts, n)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		grad, gv := make([]float64, p), make([]float64, p)
		// Per draw: the estimate, its squared error about the exact mean
		// (whose average is unbiased for the variance), the reported variance.
		est, sqErr, rep := make([][]float64, p+1), make([][]float64, p+1), make([][]float64, p+1)
		for k := 0; k < M; k++ {
			mb.Grad(grad, gv, theta, rng)
			for j := 0; j < p; j++ {
				est[j] = append(est[j], grad[j])
				sqErr[j] = append(sqErr[j], (grad[j]-g[j])*(grad[j]-g[j]))
				rep[j] = append(rep[j], gv[j])
			}
			uh, uv := mb.Energy(theta, rng)
			est[p] = append(est[p], uh)
			sqErr[p] = append(sqErr[p], (uh-u)*(uh-u))
			rep[p] = append(rep[p], uv)
		}
		wantMean := append(append([]float64(nil), g...), u)
		wantVar := append(append([]float64(nil), gVar...), uVar)
		for j := 0; j <= p; j++ {
			name := "∂Û"
			if j == p {
				name = "Û"
			}
			check := func(what string, x []float64, want float64) {
				m, se := meanvar.MeanSE(x)
				if !(math.Abs(m-want) <= 4.5*se) {
					t.Errorf("n = %d, %s coordinate %d: %s = %v ± %v, want %v", n, name, j, what, m, se, want)
				}
			}
			check("mean", est[j], wantMean[j])
			check("variance", sqErr[j], wantVar[j])
			check("reported variance", rep[j], wantVar[j])
		}
	}
}

// TestMinibatchInclusion checks, on both sampling paths (rejection for
// n ≤ N/4, Fisher–Yates above), that the draws have no repeats and include
// each example with probability n/N, and each pair with probability
// n(n − 1)/(N(N − 1)) (which the variance formula rests on). Counts are
// binomial; 5 standard deviations each. The Fisher–Yates state must stay a
// permutation.
func TestMinibatchInclusion(t *testing.T) {
	for _, c := range []struct{ N, n, M int }{{23, 6, 20000}, {23, 5, 20000}, {200, 3, 200000}, {12, 12, 10}} {
		mb, err := NewMinibatch(newShiftTerms(c.N, 1, 2), c.n)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, uint64(c.n)))
		count := make([]int, c.N)
		pair := make([]int, c.N*c.N)
		for k := 0; k < c.M; k++ {
			seen := make(map[int32]bool)
			idx := mb.draw(rng)
			if len(idx) != c.n {
				t.Fatalf("N = %d, n = %d: draw of %d", c.N, c.n, len(idx))
			}
			for _, i := range idx {
				if seen[i] || i < 0 || int(i) >= c.N {
					t.Fatalf("N = %d, n = %d: draw %d repeats or strays: %v", c.N, c.n, k, idx)
				}
				seen[i] = true
				count[i]++
				for _, j := range idx {
					if j != i {
						pair[int(i)*c.N+int(j)]++
					}
				}
			}
		}
		check := func(what string, got int, pi float64) {
			mean, sd := float64(c.M)*pi, math.Sqrt(float64(c.M)*pi*(1-pi))
			if !(math.Abs(float64(got)-mean) <= 5*sd+1e-9) {
				t.Errorf("N = %d, n = %d: %s drawn %d times in %d, want %v ± %v", c.N, c.n, what, got, c.M, mean, sd)
			}
		}
		for i := 0; i < c.N; i++ {
			check(fmt.Sprintf("example %d", i), count[i], float64(c.n)/float64(c.N))
			for j := i + 1; j < c.N && c.N <= 23; j++ {
				check(fmt.Sprintf("pair (%d, %d)", i, j), pair[i*c.N+j], float64(c.n*(c.n-1))/float64(c.N*(c.N-1)))
			}
		}
		if mb.s.perm != nil {
			seen := make([]bool, c.N)
			for _, i := range mb.s.perm {
				seen[i] = true
			}
			for i, s := range seen {
				if !s {
					t.Fatalf("N = %d, n = %d: index %d lost from the permutation", c.N, c.n, i)
				}
			}
		}
	}
}

func TestMinibatchSizeErrors(t *testing.T) {
	ts := newShiftTerms(10, 2, 1)
	for _, n := range []int{-1, 0, 1, 11} {
		if _, err := NewMinibatch(ts, n); err == nil {
			t.Errorf("n = %d of N = 10: no error", n)
		}
	}
	if _, err := NewMinibatch(newShiftTerms(1, 2, 1), 1); err != nil {
		t.Errorf("n = N = 1: %v", err)
	}
	mb, _ := NewMinibatch(ts, 4)
	rng := rand.New(rand.NewPCG(1, 1))
	theta, g := make([]float64, 2), make([]float64, 2)
	mb.Grad(g, nil, theta, rng)
	mb.SetSize(6)
	mb.Energy(theta, rng)
	mb.SetSize(4)
	if mb.GradCost() != 4 || mb.EnergyCost() != 6 {
		t.Errorf("costs of draws of 4 and 6: %v, %v", mb.GradCost(), mb.EnergyCost())
	}
	if err := mb.SetSize(12); err == nil || mb.Size() != 4 {
		t.Errorf("SetSize(12) of N = 10: err %v, size %d", err, mb.Size())
	}
}

func TestMinibatchSpread(t *testing.T) {
	const N, p, M = 30, 2, 20000
	ts := newShiftTerms(N, p, 4)
	theta := []float64{0.2, 0.1}
	_, _, _, gVar := exact(ts, theta, 1) // N(N − 1) · S²
	mb, _ := NewMinibatch(ts, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	grad, gv := make([]float64, p), make([]float64, p)
	// The per-draw s_j² have mean S_j²; the average over M draws has a
	// standard error we estimate from the reported variances, which are
	// FPC(N, 3)·s_j².
	rep := make([][]float64, p)
	for k := 0; k < M; k++ {
		mb.Grad(grad, gv, theta, rng)
		for j := range rep {
			rep[j] = append(rep[j], gv[j]/FPC(N, 3))
		}
	}
	got := make([]float64, p)
	mb.Grad(grad, nil, theta, rng) // no variance asked: not counted ...
	if d := mb.Spread(got); d != M {
		t.Fatalf("Spread counted %d draws, want %d (a draw without variances counts only under TrackSpread)", d, M)
	}
	mb.TrackSpread()
	mb.Grad(grad, nil, theta, rng) // ... unless tracked
	if d := mb.Spread(got); d != M+1 {
		t.Fatalf("Spread counted %d draws under TrackSpread, want %d", d, M+1)
	}
	for j := range got {
		S2 := gVar[j] / (N * (N - 1))
		_, se := meanvar.MeanSE(rep[j])
		if !(math.Abs(got[j]-S2) <= 4.5*se) {
			t.Errorf("coordinate %d: spread %v ± %v, want S² = %v", j, got[j], se, S2)
		}
	}
	mb.ResetSpread()
	if mb.Spread(got) != 0 {
		t.Error("Spread after ResetSpread counts draws")
	}
}

func TestMinibatchNoAlloc(t *testing.T) {
	const N, p = 1000, 5
	mb, _ := NewMinibatch(newShiftTerms(N, p, 1), 10)
	rng := rand.New(rand.NewPCG(1, 1))
	theta, grad, gv := make([]float64, p), make([]float64, p), make([]float64, p)
	if a := testing.AllocsPerRun(100, func() {
		mb.Grad(grad, gv, theta, rng)
		mb.Grad(grad, nil, theta, rng)
		mb.Energy(theta, rng)
	}); a != 0 {
		t.Errorf("%v allocations per draw", a)
	}
	for _, ne := range []int{50, 400, N} { // rejection, shuffle, all
		mb.SetEnergySize(ne)
		if a := testing.AllocsPerRun(20, func() {
			mb.Grad(grad, gv, theta, rng)
			mb.Energy(theta, rng)
		}); a != 0 {
			t.Errorf("energy size %d: %v allocations per draw", ne, a)
		}
	}
}

// TestMinibatchRows checks the kept per-example gradients are those of the
// drawn examples, and that the estimate is their scaled sum plus the prior's.
func TestMinibatchRows(t *testing.T) {
	const N, p, n = 30, 3, 7
	ts := newShiftTerms(N, p, 6)
	mb, _ := NewMinibatch(ts, n)
	if r, _ := mb.Rows(); r != nil {
		t.Fatal("Rows without KeepRows")
	}
	mb.KeepRows()
	rng := rand.New(rand.NewPCG(2, 2))
	theta := []float64{0.5, -0.5, 1}
	grad, g := make([]float64, p), make([]float64, p)
	mb.Grad(grad, nil, theta, rng)
	rows, m := mb.Rows()
	if m != n || len(rows) != n*p {
		t.Fatalf("Rows: %d rows, %d values; want %d, %d", m, len(rows), n, n*p)
	}
	want := make([]float64, p)
	ts.Prior(want, theta)
	for k, i := range mb.s.cur {
		ts.Term(g, theta, int(i))
		for j := range g {
			if rows[k*p+j] != g[j] {
				t.Fatalf("row %d (example %d), coordinate %d: %v, want %v", k, i, j, rows[k*p+j], g[j])
			}
			want[j] += float64(N) / n * g[j]
		}
	}
	for j := range want {
		if !(math.Abs(grad[j]-want[j]) <= 1e-12*(1+math.Abs(want[j]))) {
			t.Errorf("coordinate %d: ∇Û = %v, from the rows %v", j, grad[j], want[j])
		}
	}
}

// TestMinibatchEnergySize checks energy draws of their own size: exact at
// N, unbiased with unbiased variance reports at other sizes (4.5 Monte Carlo
// standard errors, as in TestMinibatchUnbiased), costed at their own size,
// and unaffected by later SetSize calls.
func TestMinibatchEnergySize(t *testing.T) {
	const N, p, M = 40, 2, 40000
	ts := newShiftTerms(N, p, 3)
	theta := []float64{0.4, -0.3}
	mb, _ := NewMinibatch(ts, 3)
	if err := mb.SetEnergySize(41); err == nil {
		t.Error("energy size 41 of N = 40: no error")
	}
	if err := mb.SetEnergySize(N); err != nil {
		t.Fatal(err)
	}
	mb.SetSize(5)
	rng := rand.New(rand.NewPCG(8, 8))
	u, _, _, _ := exact(ts, theta, N)
	uh, v := mb.Energy(theta, rng)
	if math.Abs(uh-u) > 1e-12*(1+math.Abs(u))*N || v != 0 || mb.EnergyCost() != N || mb.EnergySize() != N {
		t.Errorf("energy size N: Û = %v (U = %v), variance %v, cost %v", uh, u, v, mb.EnergyCost())
	}
	grad := make([]float64, p)
	mb.Grad(grad, nil, theta, rng)
	if mb.GradCost() != 5 {
		t.Errorf("gradient cost %v, want 5", mb.GradCost())
	}
	for _, ne := range []int{9, 31} {
		mb.SetEnergySize(ne)
		_, _, uVar, _ := exact(ts, theta, ne)
		est, rep := make([]float64, M), make([]float64, M)
		for k := range est {
			uh, v := mb.Energy(theta, rng)
			est[k], rep[k] = (uh-u)*(uh-u), v
		}
		for _, c := range []struct {
			what string
			x    []float64
		}{{"squared error", est}, {"reported variance", rep}} {
			m, se := meanvar.MeanSE(c.x)
			if !(math.Abs(m-uVar) <= 4.5*se) {
				t.Errorf("energy size %d: mean %s %v ± %v, want Var(Û) = %v", ne, c.what, m, se, uVar)
			}
		}
	}
	mb.SetEnergySize(0)
	if mb.EnergySize() != 5 {
		t.Errorf("energy size after reset %d, want n = 5", mb.EnergySize())
	}
}
