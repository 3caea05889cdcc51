package tempering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/results"
)

// small is a generated regression of 200 rows and 3 correlated features
// under the sharp spike: the second and third nearly copies of each
// other, so that the data cannot tell which belongs in the slab.
func small(t *testing.T) *Workload {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for range 200 {
		a, z := rng.NormFloat64(), rng.NormFloat64()
		c := z + 0.1*rng.NormFloat64()
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", a, z, c, 0.5*a+0.3*z+rng.NormFloat64())
	}
	w, err := Regression("small", []byte(b.String()), "y", SharpSpike)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The inclusion estimate is the mean over the first k draws of every chain
// of P(γ_j = 1 | β_j), and its error the largest |estimate − reference|; a
// NaN estimate gives a NaN error, which meets no goal.
func TestInclusionAndErr(t *testing.T) {
	w := small(t)
	ch := func(id int, a, b, c []float64) *results.Chain {
		return &results.Chain{Header: results.ChainHeader{ID: id}, Columns: []string{"lp__", "a", "b", "c"}, Cols: [][]float64{make([]float64, len(a)), a, b, c}}
	}
	chains := []*results.Chain{ch(1, []float64{0, 1, 1}, []float64{1, 0, 0}, []float64{0.5, 0.5, 0.5}), ch(2, []float64{0, 0, 1}, []float64{0, 0, 0}, []float64{0.5, 0.5, 0.5})}
	incl, err := w.inclusion(chains, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := w.Prior.Inclusion
	want := []float64{(p(0) + p(1) + p(0) + p(0)) / 4, (p(1) + 3*p(0)) / 4, p(0.5)}
	for j := range want {
		if math.Abs(incl[j]-want[j]) > 1e-15 {
			t.Errorf("coefficient %d: %v, want %v", j, incl[j], want[j])
		}
	}
	e := 0.0
	for j := range want {
		e = max(e, math.Abs(want[j]-w.Ref[j]))
	}
	if got := w.err(incl); got != e {
		t.Errorf("error %v, want %v", got, e)
	}
	incl[1] = math.NaN()
	if got := w.err(incl); !math.IsNaN(got) {
		t.Errorf("a NaN estimate scored %v", got)
	}
	if r := (&Result{Rows: []Row{{Method: "default", Err: math.NaN()}}}); r.Goals()[0].Met {
		t.Error("a NaN error met the default's goal")
	}
}

// The ladder's goal: swaps at most a quarter of the cost while the ladder
// makes ≥ 20 round trips per 10⁶ cold steps, both summed over its runs;
// either one missed, or a NaN share, fails it.
func TestLadderGoal(t *testing.T) {
	run := func(share float64, trips int) *Run {
		return &Run{Levels: 5, SwapShare: share, RoundTrips: trips, ColdSteps: 1_000_000}
	}
	for _, c := range []struct {
		runs []*Run
		met  bool
	}{
		{[]*Run{run(0.2, 30), run(0.3, 10)}, true}, // mean share 0.25, 20 trips per 10⁶
		{[]*Run{run(0.2, 30), run(0.32, 10)}, false},
		{[]*Run{run(0.1, 20), run(0.1, 18)}, false},
		{[]*Run{run(math.NaN(), 30), run(0.1, 30)}, false},
	} {
		gs := (&Result{Rows: []Row{{Method: "fresgld ladder", Runs: c.runs}}}).Goals()
		if len(gs) != 1 || gs[0].Met != c.met {
			t.Errorf("runs %v %v: goals %+v, want met %v", *c.runs[0], *c.runs[1], gs, c.met)
		}
	}
}

// pool's error is that of the runs' mean estimate at the coefficient where
// it is largest, its MCSE the runs' sd there over √runs.
func TestPool(t *testing.T) {
	w := small(t)
	ref := w.Ref
	runs := []*Run{
		{InclAtTarget: []float64{ref[0] + 0.01, ref[1] - 0.2, ref[2]}, AtTarget: Point{Err: 0.2}, CPU: 1},
		{InclAtTarget: []float64{ref[0] - 0.01, ref[1] - 0.1, ref[2]}, AtTarget: Point{Err: 0.1}, CPU: 3},
	}
	row := pool(w, "x", runs)
	if math.Abs(row.Err-0.15) > 1e-12 || row.Coef != "b" || math.Abs(row.MCSE-0.05) > 1e-12 {
		t.Errorf("pooled %v (%s) ± %v, want 0.15 (b) ± 0.05", row.Err, row.Coef, row.MCSE)
	}
	if math.Abs(row.RunErr-0.15) > 1e-12 || math.Abs(row.RunErrSE-0.05) > 1e-12 || row.CPU != 2 {
		t.Errorf("a run's own %v ± %v, CPU %v; want 0.15 ± 0.05, 2", row.RunErr, row.RunErrSE, row.CPU)
	}
}

// A run of the default plan reaches the exact inclusion probabilities
// within 4 MCSE: the plan thins for a bulk ESS of about 400 a chain in
// 1000 draws, so 400 draws from 4 chains hold about 640 effective ones,
// and an inclusion estimate, a mean of values in [0, 1], has sd ≤ 1/2:
// MCSE ≤ 0.5/√640.
func TestRunOnceDefault(t *testing.T) {
	w := small(t)
	r, err := runOnce(context.Background(), w, Methods[0], 1, Length{Keep: 400}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tol := 4 * 0.5 / math.Sqrt(640); !(r.Err < tol) {
		t.Errorf("the default plan misses the exact inclusion by %v > %v (estimates %v, exact %v)", r.Err, tol, r.Incl, w.Ref)
	}
	if len(r.Curve) != len(prefixes) || r.Curve[0].CPU >= r.Curve[len(r.Curve)-1].CPU || r.AtTarget != r.Curve[len(r.Curve)-1] {
		t.Errorf("curve %+v, at the target %+v", r.Curve, r.AtTarget)
	}
}

// Scored at a CPU time within its run, a run uses the draws taken by then.
func TestRunOnceTarget(t *testing.T) {
	w := small(t)
	one := Methods[1]
	r, err := runOnce(context.Background(), w, one, 1, Length{Keep: 200}, 1e-9)
	if err == nil || !strings.Contains(err.Error(), "no draw by") {
		t.Fatalf("a target before the first draw: %v", err)
	}
	r, err = runOnce(context.Background(), w, one, 1, Length{Keep: 200}, math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	half := (r.Setup + r.CPU) / 2
	h, err := runOnce(context.Background(), w, one, 1, Length{Keep: 200}, half)
	if err != nil {
		t.Fatal(err)
	}
	// The CPU time a run takes varies: the point scored lies in the run,
	// after its set-up, within a draw's time of the target.
	if !(h.AtTarget.CPU <= h.CPU) || !(h.AtTarget.CPU >= h.Setup) || h.AtTarget.CPU > half {
		t.Errorf("scored at %v CPU s of a run of %v (setup %v), asked %v", h.AtTarget.CPU, h.CPU, h.Setup, half)
	}
}

// NUTS's draws of the mixture (μ, τ, w) are scored through the same θ
// and cluster probabilities as the chains' columns: a draw made from a θ
// gives that θ's P(K+ = k | θ), which sum to 1.
func TestStanClusters(t *testing.T) {
	y := []float64{-3.1, -2.9, -3.4, 0.2, 0.1, -0.3, 0.4, 2.8, 3.3}
	m, err := finitemix.NewFiniteMixture(y, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		theta := make([]float64, m.Dim())
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		p := m.NewParams()
		m.Unpack(p, theta)
		var draw []float64
		draw = append(draw, p.Mu...)
		for _, s := range p.Sigma {
			draw = append(draw, 1/(s*s))
		}
		draw = append(draw, p.W...)
		got, want := make([]float64, 3), make([]float64, 3)
		stanClusters(m)(got, draw)
		Clusters(m, want, theta)
		sum := 0.0
		for k := range want {
			sum += got[k]
			if math.Abs(got[k]-want[k]) > 1e-9 {
				t.Fatalf("P(K+ = %d): %v from the NUTS draw, %v from θ", k+1, got[k], want[k])
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("P(K+ = k) sum to %v", sum)
		}
	}
}

// f-reSGLD on the adaptive ladder reports its ladder and the share of its
// cost the tuning took, which is in (0, 1); two levels tune nothing.
func TestRunOnceLadderShares(t *testing.T) {
	w := small(t)
	i := slices.IndexFunc(Methods, func(m Method) bool { return m.Name == "fresgld ladder" })
	r, err := runOnce(context.Background(), w, Methods[i], 1, Length{Burn: 100, Keep: 50, Thin: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Levels < 2 || !(r.TuneShare > 0 && r.TuneShare < 1) || !(r.SwapShare >= 0 && r.SwapShare < 1) || math.IsNaN(r.SwapAccept) {
		t.Errorf("levels %d, tuning's share %v, swaps' %v, acceptance %v", r.Levels, r.TuneShare, r.SwapShare, r.SwapAccept)
	}
	two, err := runOnce(context.Background(), w, Methods[i-1], 1, Length{Burn: 100, Keep: 50, Thin: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if two.Levels != 2 || two.TuneShare != 0 {
		t.Errorf("fresgld on two levels: levels %d, tuning's share %v", two.Levels, two.TuneShare)
	}
}

// --methods runs the default (whose CPU time sets the others') and the
// methods named; none named runs them all; a name that is no method's is
// refused, listing the others.
func TestMethodsSelect(t *testing.T) {
	sel := Size{Methods: []string{"nuts", "fresgld-ladder"}}
	for _, m := range Methods {
		want := m.Name == "default" || m.Name == "fresgld ladder"
		if sel.runs(m.Key()) != want || !(Size{}).runs(m.Key()) {
			t.Errorf("%s: runs %v under --methods nuts,fresgld-ladder (want %v), %v under none", m.Name, sel.runs(m.Key()), want, (Size{}).runs(m.Key()))
		}
	}
	if !sel.runs("nuts") || (Size{Methods: []string{"csgld"}}).runs("nuts") {
		t.Error("nuts not selected as named")
	}
	if err := checkMethods([]string{"one-level", "nuts"}); err != nil {
		t.Error(err)
	}
	if err := checkMethods([]string{"one level"}); !errors.Is(err, ErrNoMethod) || !strings.Contains(err.Error(), "one-level") {
		t.Errorf("error %v, want ErrNoMethod listing one-level", err)
	}
}

// Measure hands back the workloads it finished when a later one stops:
// the context is cancelled as the first workload's default reports, so the
// second workload's first run is interrupted, and the first workload's
// result comes back beside the error for the command to write.
func TestMeasureKeepsFinishedWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two workloads' references and runs one")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sz := Smoke
	sz.Seeds = 1
	sz.Workloads = []string{"uscrime-s0-0.001", "diabetes-s0-0.001"}
	sz.Methods = []string{"nuts"} // with NUTS off: the default alone
	res, err := Measure(ctx, sz, t.TempDir(), func(s string) {
		if strings.HasPrefix(s, "uscrime-s0-0.001 default") {
			cancel()
		}
	})
	if !errors.Is(err, results.ErrInterrupted) {
		t.Errorf("error %v, want one wrapping results.ErrInterrupted", err)
	}
	if len(res) != 1 || res[0].Workload.Name != "uscrime-s0-0.001" || len(res[0].Rows) != 1 {
		var names []string
		for _, r := range res {
			names = append(names, fmt.Sprintf("%s (%d rows)", r.Workload.Name, len(r.Rows)))
		}
		t.Errorf("results for %v, want uscrime-s0-0.001's default alone", names)
	}
}
