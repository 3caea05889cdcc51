package multimodal

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/exchange"
)

// The residual sd from the sufficient statistics equals the one from the
// least-squares residuals themselves, on diabetes.
func TestResidualSD(t *testing.T) {
	pr, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	N, p := pr.LR.Len(), pr.LR.P
	X := mat.NewDense(N, p, pr.LR.X)
	var b mat.VecDense
	var qr mat.QR
	qr.Factorize(X)
	if err := qr.SolveVecTo(&b, false, mat.NewVecDense(N, pr.LR.Y)); err != nil {
		t.Fatal(err)
	}
	var rss float64
	for i := range N {
		r := pr.LR.Y[i] - mat.Dot(X.RowView(i), &b)
		rss += r * r
	}
	want := math.Sqrt(rss / float64(N-p-1))
	// Two routes to one number: they agree to rounding.
	if got := pr.LR.Sigma; math.Abs(got-want) > 1e-10*want {
		t.Errorf("σ = %.15g from XᵀX, %.15g from the residuals", got, want)
	}
}

// The generated data have the diabetes features' correlation and the
// least-squares fit recovers β* to within its standard errors; the noise
// sd grows as √N. Tolerances: 5 standard errors of each estimate
// ((1 − ρ²)/√N for a correlation, √(2/N) for a unit variance, σ_N √((XᵀX)⁻¹)_jj for a coefficient).
func TestSynthetic(t *testing.T) {
	const N = 20000
	d, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Synthetic(N, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := d.LR.Sigma * math.Sqrt(N/442.0); math.Abs(s.LR.Sigma-want) > 1e-12*want {
		t.Errorf("σ_N = %v, want σ_d √(N/442) = %v", s.LR.Sigma, want)
	}
	p := d.LR.P
	ds, ss := sufficient(d.LR.X, d.LR.Y, p), sufficient(s.LR.X, s.LR.Y, p)
	for j := range p {
		// Unit variances: a sample variance has se √(2/N).
		if v := ss.xtx[j*p+j] / N; math.Abs(v-1) > 5*math.Sqrt(2.0/N) {
			t.Errorf("feature %d: variance %.4f, want 1", j, v)
		}
		for k := range j {
			want := ds.xtx[j*p+k] / 442
			got := ss.xtx[j*p+k] / math.Sqrt(ss.xtx[j*p+j]*ss.xtx[k*p+k])
			if tol := 5 * (1 - want*want) / math.Sqrt(N); math.Abs(got-want) > tol {
				t.Errorf("correlation (%d, %d): %.4f, diabetes %.4f (tolerance %.4f)", j, k, got, want, tol)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(p, ss.xtx)) {
		t.Fatal("XᵀX singular")
	}
	var b mat.VecDense
	if err := ch.SolveVecTo(&b, mat.NewVecDense(p, ss.xty)); err != nil {
		t.Fatal(err)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	for j := range p {
		se := s.LR.Sigma * math.Sqrt(inv.At(j, j))
		if math.Abs(b.AtVec(j)-TrueBeta[j]) > 5*se {
			t.Errorf("β̂_%d = %.4f, β* = %.4f, se %.4f", j, b.AtVec(j), TrueBeta[j], se)
		}
	}
	// TrueBeta is diabetes' least-squares fit rounded, the two below 0.05 zeroed.
	var fit mat.Cholesky
	fit.Factorize(mat.NewSymDense(p, ds.xtx))
	var bd mat.VecDense
	if err := fit.SolveVecTo(&bd, mat.NewVecDense(p, ds.xty)); err != nil {
		t.Fatal(err)
	}
	for j := range p {
		want := math.Round(bd.AtVec(j)*100) / 100
		if math.Abs(bd.AtVec(j)) < 0.05 {
			want = 0
		}
		if math.Abs(TrueBeta[j]-want) > 1e-12 {
			t.Errorf("TrueBeta[%d] = %v, diabetes' rule gives %v (fit %.4f)", j, TrueBeta[j], want, bd.AtVec(j))
		}
	}
}

// syntheticSetup is the generated problem of n rows (seed 1) and its
// sampler setup under st (seed 1).
func syntheticSetup(t *testing.T, n int, st Settings) (*Problem, exchange.Setup) {
	t.Helper()
	pr, err := Synthetic(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pr.setup(st, 1)
	if err != nil {
		t.Fatal(err)
	}
	return pr, s
}

// runSteps is the sampler of cfg from inits after n steps; its error, or
// a step's, fails the test.
func runSteps(t *testing.T, cfg exchange.Config, inits [][]float64, n int) *exchange.Sampler {
	t.Helper()
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := smp.Step(); err != nil {
			t.Fatal(err)
		}
	}
	return smp
}

// No per-step work grows with N: on generated data of 2000 and 20000 rows
// every method's gradient cost is 2n per level and step (control-variate
// draws of n examples), the same at both sizes; only the swap energies
// (screens, confirmations, anchor refreshes) touch N, and they are counted.
func TestGradientCostIndependentOfN(t *testing.T) {
	st := SettingsFor(Smoke)
	st.Budget = 4e5
	for _, m := range []exchange.Method{exchange.SGLDMethod, exchange.FReSGLDMethod, exchange.ReSGLDMethod} {
		var per []float64
		for _, n := range []int{2000, 20000} {
			pr, s := syntheticSetup(t, n, st)
			if m == exchange.SGLDMethod {
				s.Energies = exchange.Energies{}
			}
			cfg, err := m.Config(s)
			if err != nil {
				t.Fatal(err)
			}
			inits := make([][]float64, len(cfg.Levels))
			for l := range inits {
				inits[l] = append([]float64(nil), pr.Anchor...)
			}
			const steps = 500
			smp := runSteps(t, cfg, inits, steps)
			var g float64
			for _, l := range smp.Stats().Levels {
				g += l.Cost.Grad.Units
			}
			smp.Close()
			per = append(per, g/steps)
		}
		want := 2.0 * float64(st.NCold)
		switch m {
		case exchange.FReSGLDMethod:
			want += 2 * float64(st.NHot)
		case exchange.ReSGLDMethod:
			want *= 2
		}
		for i, g := range per {
			if g != want {
				t.Errorf("%s: %.1f gradient evaluations a step at size %d, want %v", m, g, []int{2000, 20000}[i], want)
			}
		}
	}
}

// The Rao–Blackwellised pattern weights of a draw are P(γ | β) =
// Π_j r_j^γ_j (1 − r_j)^(1 − γ_j): over all 2^p patterns they sum to 1,
// and each coefficient's inclusion is the sum over the patterns that
// include it.
func TestPatternWeights(t *testing.T) {
	pr, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	p := pr.LR.P
	a := &accum{b: make([]float64, p), r: make([]float64, p), prob: make([]float64, p)}
	for mask := range 1 << p {
		g := make([]bool, p)
		for j := range p {
			g[j] = mask>>j&1 == 1
		}
		a.pats = append(a.pats, g)
	}
	a.pat = make([]float64, len(a.pats))
	beta := []float64{0.01, -0.05, 0.3, 0.06, -0.1, 0.04, 0.055, 0, 0.4, -0.02}
	a.add(beta)
	e := a.estimate(0)
	var sum float64
	incl := make([]float64, p)
	for k, w := range e.Pattern {
		sum += w
		for j, in := range a.pats[k] {
			if in {
				incl[j] += w
			}
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("pattern weights sum to %.15g, want 1", sum)
	}
	for j := range p {
		if want := Prior.Inclusion(beta[j]); math.Abs(incl[j]-want) > 1e-12 || math.Abs(e.Incl[j]-want) > 1e-12 {
			t.Errorf("coefficient %d: inclusion %v from the patterns, %v from the accumulator, want %v", j, incl[j], e.Incl[j], want)
		}
	}
}

// Pool's estimate is the runs' mean, its MCSE their sd over √runs, and its
// error the largest over coefficients; CostFor interpolates the error
// curve in log cost.
func TestPool(t *testing.T) {
	pr, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(shift float64) Result {
		e := Estimate{Mean: append([]float64(nil), pr.Exact.Mean...), Incl: append([]float64(nil), pr.Exact.Inclusion...), Pattern: make([]float64, Patterns)}
		e.Incl[4] += shift
		e.Cost = 100
		half := e
		half.Cost, half.Incl = 50, append([]float64(nil), e.Incl...)
		half.Incl[4] += 0.1
		return Result{At: []Estimate{half, e}, Cost: 100}
	}
	r := Pool(pr, "x", []Result{mk(0.01), mk(0.03)})
	if r.InclVar != pr.Names[4] || math.Abs(r.InclErr-0.02) > 1e-12 {
		t.Errorf("largest error %v on %s, want 0.02 on %s", r.InclErr, r.InclVar, pr.Names[4])
	}
	// Two runs 0.02 apart: sd 0.02/√2, MCSE sd/√2 = 0.01.
	if math.Abs(r.InclMCSE-0.01) > 1e-12 {
		t.Errorf("MCSE %v, want 0.01", r.InclMCSE)
	}
	if math.Abs(r.Curve[0]-0.12) > 1e-12 || math.Abs(r.Curve[1]-0.02) > 1e-12 {
		t.Errorf("curve %v, want [0.12 0.02]", r.Curve)
	}
	// 0.07 is halfway from 0.12 to 0.02: halfway from log 50 to log 100.
	if got, want := r.CostFor(0.07), math.Sqrt(50*100); math.Abs(got-want) > 1e-9 {
		t.Errorf("CostFor(0.07) = %v, want %v", got, want)
	}
	if !math.IsInf(r.CostFor(0.01), 1) {
		t.Errorf("CostFor below the curve = %v, want +Inf", r.CostFor(0.01))
	}
}

// readNUTS scores rstan's files as the SG runs are scored: draws all at
// one β give that β's inclusion probabilities, and the MCSE is read from
// R (NA for a constant column).
func TestReadNUTS(t *testing.T) {
	pr, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := pr.LR.P
	beta := make([]string, p)
	mcse := make([]string, p)
	for j := range p {
		beta[j] = "0.1"
		mcse[j] = "0.001,NA"
	}
	draw := strings.Join(beta, ",") + "\n"
	for name, body := range map[string]string{
		"draws_default.csv": strings.Repeat(draw, 8),
		"mcse_default.csv":  strings.Join(mcse, "\n") + "\n",
		"info_default.csv":  "2000,1.5,2.5,1.01,12345\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readNUTS(dir, "default", pr)
	if err != nil {
		t.Fatal(err)
	}
	want := -1.0
	for j := range p {
		want = math.Max(want, math.Abs(Prior.Inclusion(0.1)-pr.Exact.Inclusion[j]))
	}
	if math.Abs(r.Row.InclErr-want) > 1e-12 || r.Warmup != 1.5 || r.Sample != 2.5 || r.Row.CPU != 1 || r.Row.Cost != 12345*442/4.0 {
		t.Errorf("read %+v, want inclusion error %v, CPU 1 a chain, cost 12345·442/4 a chain", r, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcse_default.csv"), []byte("0.1,0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readNUTS(dir, "default", pr); err == nil {
		t.Error("an MCSE file of 1 row for 10 coefficients was accepted")
	}
}

// The mixture's 25 components sit on the 5×5 grid 2/√0.03 apart with
// equal weights; a ladder run at smoke size finds more modes than SGLD,
// which stays in the central one (16.7 nats from its neighbours).
func TestMixture(t *testing.T) {
	m := Mixture25()
	if len(m.Means) != 25 {
		t.Fatalf("%d components", len(m.Means))
	}
	s := 2 / math.Sqrt(0.03)
	if d := m.Means[1][1] - m.Means[0][1]; math.Abs(d-s) > 1e-12 {
		t.Errorf("spacing %v, want %v", d, s)
	}
	if u0, u1 := m.U(m.Means[0]), m.U(m.Means[12]); math.Abs(u0-u1) > 1e-9 {
		t.Errorf("U at two means: %v and %v, want equal", u0, u1)
	}
	ms := MixSettingsFor(Smoke)
	sg, err := RunMixture(SGLD, ms, 1)
	if err != nil {
		t.Fatal(err)
	}
	re, err := RunMixture(FReSGLD, ms, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sg.Found != 1 || re.Found <= sg.Found {
		t.Errorf("modes found: SGLD %d (want 1), f-reSGLD %d (want more)", sg.Found, re.Found)
	}
}

// The study runs end to end at the smoke size: every problem has a row per
// method, every metric is a number, and the goals table is written.
func TestStudySmoke(t *testing.T) {
	sz := Smoke
	res, err := Measure(sz, 2, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2+len(sz.Large) {
		t.Fatalf("%d problems, want %d", len(res.Rows), 2+len(sz.Large))
	}
	for i, rows := range res.Rows {
		if len(rows) != len(Methods) {
			t.Errorf("%s: %d rows, want %d", res.Problems[i].Name, len(rows), len(Methods))
		}
		for _, r := range rows {
			for _, v := range []float64{r.InclErr, r.InclMCSE, r.MeanErr, r.PatternErr, r.Cost} {
				if math.IsNaN(v) || v < 0 {
					t.Errorf("%s %s: a metric is %v", r.Problem, r.Method, v)
				}
			}
			if r.Cost < sz.Budget {
				t.Errorf("%s %s: cost %v below the budget %v", r.Problem, r.Method, r.Cost, sz.Budget)
			}
			// The breakdown accounts for the whole cost: its shares sum to 1
			// up to rounding (7 shares of a double each).
			var sum float64
			for _, v := range r.Parts {
				sum += v
			}
			if r.Parts != nil && !(math.Abs(sum-1) <= 1e-12) {
				t.Errorf("%s %s: the cost's parts %v sum to %v, want 1", r.Problem, r.Method, r.Parts, sum)
			}
			if r.Levels > 1 && !(r.HotCPU > 0 && r.HotCPU < math.Inf(1) && r.TripsPerM >= 0) {
				t.Errorf("%s %s: hot/cold CPU per step %v, round trips %v: want a positive ratio and a count", r.Problem, r.Method, r.HotCPU, r.TripsPerM)
			}
			// On the generated data f-reSGLD's hot level draws 10
			// examples a step to the cold level's 100 (measured 0.13–0.26×
			// the time): a ratio above 1 is the ratio turned over, not
			// noise. (On uscrime the cold level's batch is all 47 rows,
			// and the ratio, 0.6–1.1, tells nothing.)
			if r.Method == string(FReSGLD) && res.Problems[i].LR.Len() >= 1000 && !(r.HotCPU < 1) {
				t.Errorf("%s fresgld: hot/cold CPU per step %v, want below 1 (10 examples a step against 100)", r.Problem, r.HotCPU)
			}
		}
	}
	var b strings.Builder
	res.Write(&b)
	for _, want := range []string{"**diabetes**", "**uscrime**", "| fresgld-adaptive |", "Goals:", "modes found"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the tables lack %q", want)
		}
	}
}

// A run whose budget is gone before its first draw (the adaptive ladder's
// tuning outspends it) is a row that says so, and its goals are missed,
// not an error that loses the study.
func TestNoDraws(t *testing.T) {
	pr, err := Diabetes()
	if err != nil {
		t.Fatal(err)
	}
	st := SettingsFor(Smoke)
	st.Budget = 2 * pr.SetupCost
	r, err := Run(pr, Adaptive, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	row := Pool(pr, string(Adaptive), []Result{r, r})
	if !math.IsNaN(row.InclErr) {
		t.Fatalf("inclusion error %v without draws, want NaN", row.InclErr)
	}
	var b strings.Builder
	Markdown(&b, pr, []Row{row})
	if !strings.Contains(b.String(), "no draws") {
		t.Errorf("the table does not say the row has no draws:\n%s", b.String())
	}
}

// Exact swaps cost p evaluations each at any N, with no anchor pass: on
// generated data of 2000 and 20000 rows f-reSGLD's swap energies are
// exactly attempts × p (models.LinReg.DiffCost), where the screened
// setting's confirmations cost 2N each and its anchors N.
func TestSwapCostIndependentOfN(t *testing.T) {
	st := SettingsFor(Smoke)
	for _, n := range []int{2000, 20000} {
		pr, s := syntheticSetup(t, n, st)
		cfg, err := exchange.FReSGLDMethod.Config(s)
		if err != nil {
			t.Fatal(err)
		}
		const steps = 1000
		smp := runSteps(t, cfg, [][]float64{pr.Anchor, pr.Anchor}, steps)
		stats := smp.Stats()
		smp.Close()
		var units, anchors float64
		for _, l := range stats.Levels {
			units += l.Cost.Energy.Units
			anchors += l.Cost.Anchor.Units
		}
		att := stats.Pairs[0].Attempts
		if att != steps/swapEvery || units != float64(att*pr.LR.P) || anchors != 0 {
			t.Errorf("N = %d: %d attempts in %d steps (want %d), swap energies %v units (want %d × p = %d), anchor passes %v (want 0)",
				n, att, steps, steps/swapEvery, units, att, att*pr.LR.P, anchors)
		}
	}
}

// A selection runs what it names and refuses what it does not know.
func TestSelection(t *testing.T) {
	sz := Smoke
	sz.Only, sz.Methods = []string{"synthetic-2000"}, []Method{Adaptive, SGLD}
	if err := sz.Check(); err != nil {
		t.Fatal(err)
	}
	prs, err := Problems(sz)
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != 1 || prs[0].Name != "synthetic-2000" {
		t.Errorf("problems %v, want synthetic-2000 alone", prs)
	}
	if ms := sz.methods(); !slices.Equal(ms, []Method{SGLD, Adaptive}) {
		t.Errorf("methods %v, want [sgld fresgld-adaptive] in table order", ms)
	}
	for _, bad := range []Size{{Only: []string{"synthetic-1e9"}}, {Methods: []Method{"nuts"}}} {
		if bad.Check() == nil {
			t.Errorf("selection %v %v accepted", bad.Only, bad.Methods)
		}
	}
}
