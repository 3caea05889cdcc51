package plan

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/modes"
)

// hyperbolic is exp(−Σ_j √(d² + (x_j/s_j)²)), d = 1/4: independent
// coordinates of the symmetric hyperbolic law, a sharp peak with
// exponential tails. At the mode 0 the Hessian is 1/(d·s_j²), but the
// variance is d·s_j²·K₂(d)/K₁(d) ≈ 8.4·d·s_j², so the Laplace fit's
// variance is off by 8.4×, far past laplaceMisfit.
type hyperbolic struct{ s []float64 }

const hyperD = 0.25

func (h hyperbolic) Dim() int { return len(h.s) }
func (h hyperbolic) U(x []float64) float64 {
	u := 0.0
	for j, s := range h.s {
		u += math.Sqrt(hyperD*hyperD + x[j]*x[j]/(s*s))
	}
	return u
}
func (h hyperbolic) Grad(g, x []float64) {
	for j, s := range h.s {
		z := x[j] / s
		g[j] = z / (s * math.Sqrt(hyperD*hyperD+z*z))
	}
}

// hyperbolicMoments are E z² and E z⁴ of z with density ∝ e^{−√(d²+z²)},
// by the trapezoid rule on [−60, 60] (the mass beyond is below e^{−59}),
// step 1e-3: the integrand is smooth, so the error is far below the
// tests' tolerances.
func hyperbolicMoments() (m2, m4 float64) {
	var z0, z2, z4 float64
	for z := -60.0; z <= 60; z += 1e-3 {
		w := math.Exp(-math.Sqrt(hyperD*hyperD + z*z))
		z0 += w
		z2 += w * z * z
		z4 += w * z * z * z * z
	}
	return z2 / z0, z4 / z0
}

// Where the Laplace fit at the one mode is poor, the plan runs NUTS, and
// its chains' draws have the exact law: each coordinate's mean within 4
// MCSE of 0 and its variance within 4 standard errors √((m4 − m2²)/ESS) of
// the exact one, with the bulk ESS of the four chains. A plan that kept
// MALA at the mode's Hessian fails the first check; NUTS with a wrong
// metric or step (or one still adapting) fails the law.
func TestPlanRunsNUTSWhereLaplaceIsPoor(t *testing.T) {
	h := hyperbolic{s: []float64{1, 30}}
	plan, _, err := NewChainPlan(Model{Terms: modes.EnergyTerms(h)}, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	np, ok := plan.(*NUTSPlan)
	if !ok {
		t.Fatalf("plan %T, want NUTS: %s", plan, plan.Note())
	}
	t.Log(np.Note())
	if np.cfg.InvMetric != nil {
		t.Errorf("the Laplace fit is poor, yet the warmups started from the inverse Hessian %v, not the identity", np.cfg.InvMetric)
	}
	const draws = 2000
	chains := make([][][]float64, 2) // coordinate, chain, draw
	for j := range chains {
		chains[j] = make([][]float64, 4)
	}
	for id := 1; id <= 4; id++ {
		s, err := np.Sampler(5, id)
		if err != nil {
			t.Fatal(err)
		}
		stepKeep(t, s, 0, draws, func() {
			for j, x := range s.State(0) {
				chains[j][id-1] = append(chains[j][id-1], x)
			}
		})
		s.Close()
	}
	m2, m4 := hyperbolicMoments()
	for j, sc := range h.s {
		sum := diag.Summarize(chains[j])
		ess := diag.ESSBulk(chains[j])
		v := sum.SD * sum.SD
		want := m2 * sc * sc
		se := math.Sqrt((m4-m2*m2)/ess) * sc * sc
		t.Logf("coordinate %d: mean %.4g (MCSE %.3g), variance %.4g (exact %.4g, se %.3g), bulk ESS %.0f", j+1, sum.Mean, sum.MCSEMean, v, want, se, ess)
		if !(math.Abs(sum.Mean) <= 4*sum.MCSEMean) {
			t.Errorf("coordinate %d: mean %v, %.1f MCSE from 0", j+1, sum.Mean, math.Abs(sum.Mean)/sum.MCSEMean)
		}
		if !(math.Abs(v-want) <= 4*se) {
			t.Errorf("coordinate %d: variance %v, exact %v: %.1f standard errors off", j+1, v, want, math.Abs(v-want)/se)
		}
	}
	if ws := np.Warnings(); len(ws) > 0 {
		t.Errorf("warnings on a smooth target: %v", ws)
	}
}

// On a Gaussian the Laplace fit is exact and MALA at the mode's Hessian
// costs fewer gradients per effective draw than NUTS: the plan keeps it.
// The second is a regression's posterior on heights (heights): its mode
// far from θ = 0 and its coefficients' correlation near −1, where a NUTS
// pilot started about θ = 0 spends its one window on the way in (on
// posteriordb's log10earn_height it read a variance 628 times the Laplace
// fit's); started at the mode it reads the posterior's.
func TestPlanKeepsMALAWhereLaplaceIsExact(t *testing.T) {
	for _, e := range []energyAndName{
		{gaussian{s: []float64{1, 30}}, "independent"},
		{newHeights(), "a regression on heights"},
	} {
		plan, _, err := NewChainPlan(Model{Terms: modes.EnergyTerms(e.e)}, 5, false)
		if err != nil {
			t.Fatal(err)
		}
		lc, ok := plan.(*LogConcave)
		if !ok {
			t.Errorf("%s: plan %T, want MALA at the mode: %s", e.name, plan, plan.Note())
			continue
		}
		t.Log(lc.Note())
	}
}

type energyAndName struct {
	e interface {
		Dim() int
		U([]float64) float64
		Grad(g, x []float64)
	}
	name string
}

// heights is a normal regression of log earnings on heights as posteriordb's
// log10earn_height has it, on synthetic data (1000 heights ~ N(66, 4²),
// y = 2.5 + 0.026·height + N(0, 0.39²)): (a, b, log σ) with a flat prior
// and σ's Jacobian, U = N·log σ + Σ(y − a − b·x)²/(2σ²) − log σ.
type heights struct{ x, y []float64 }

func newHeights() heights {
	rng := rand.New(rand.NewPCG(11, 12))
	h := heights{x: make([]float64, 1000), y: make([]float64, 1000)}
	for i := range h.x {
		h.x[i] = 66 + 4*rng.NormFloat64()
		h.y[i] = 2.5 + 0.026*h.x[i] + 0.39*rng.NormFloat64()
	}
	return h
}

func (h heights) Dim() int { return 3 }
func (h heights) U(x []float64) float64 {
	g := make([]float64, 3)
	return h.ugrad(g, x)
}
func (h heights) Grad(g, x []float64) { h.ugrad(g, x) }
func (h heights) ugrad(g, x []float64) float64 {
	s2 := math.Exp(2 * x[2])
	var ss, ga, gb float64
	for i, xi := range h.x {
		r := h.y[i] - x[0] - x[1]*xi
		ss += r * r
		ga -= r
		gb -= r * xi
	}
	n := float64(len(h.x))
	g[0], g[1], g[2] = ga/s2, gb/s2, n-ss/s2-1
	return n*x[2] + ss/(2*s2) - x[2]
}

// gaussian is exp(−Σ_j x_j²/(2s_j²)).
type gaussian struct{ s []float64 }

func (h gaussian) Dim() int { return len(h.s) }
func (h gaussian) U(x []float64) float64 {
	u := 0.0
	for j, s := range h.s {
		u += x[j] * x[j] / (2 * s * s)
	}
	return u
}
func (h gaussian) Grad(g, x []float64) {
	for j, s := range h.s {
		g[j] = x[j] / (s * s)
	}
}

// laplaceFit reads the worst ratio either way.
func TestLaplaceFit(t *testing.T) {
	h := hessianOf([]float64{4, 1})
	if r, j := laplaceFit([]float64{0.25, 3}, h); r != 3 || j != 1 {
		t.Errorf("variances (0.25, 3) against H⁻¹ = diag(0.25, 1): %v at %d, want 3 at 1", r, j)
	}
	if r, j := laplaceFit([]float64{0.05, 1}, h); math.Abs(r-5) > 1e-12 || j != 0 {
		t.Errorf("variances (0.05, 1): %v at %d, want 5 at 0", r, j)
	}
	if r, _ := laplaceFit([]float64{math.NaN(), 1}, h); !math.IsNaN(r) && r <= laplaceMisfit {
		t.Errorf("a NaN variance passes as a fit of %v", r)
	}
}

func hessianOf(d []float64) *mat.SymDense {
	h := mat.NewSymDense(len(d), nil)
	for j, v := range d {
		h.SetSym(j, j, v)
	}
	return h
}

// funnel is Neal's funnel in two dimensions: v ~ N(0, 3²), x | v ~
// N(0, e^v). Its neck is narrower than any one step size can follow.
type funnel struct{}

func (funnel) Dim() int { return 2 }
func (funnel) U(x []float64) float64 {
	return x[0]*x[0]/18 + x[0]/2 + x[1]*x[1]*math.Exp(-x[0])/2
}
func (funnel) Grad(g, x []float64) {
	e := math.Exp(-x[0])
	g[0] = x[0]/9 + 0.5 - x[1]*x[1]*e/2
	g[1] = x[1] * e
}

// NUTS's diagnostics after warmup: on Neal's funnel the chains diverge and
// the run warns so; E-BFMI is Σ(E_t − E_{t−1})²/Σ(E_t − Ē)² of the
// transitions' energies, computed here from the energies the kernel
// reported (a wrong sum, or a mean taken before the update, differs).
func TestNUTSDiagnostics(t *testing.T) {
	np, err := NewNUTSPlan(modes.EnergyTerms(funnel{}), []int{1, 2}, 9, nil, nil, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	var energies []float64
	for _, id := range []int{1, 2} {
		s, err := np.Sampler(9, id)
		if err != nil {
			t.Fatal(err)
		}
		stepKeep(t, s, 0, 2000, func() {
			if id == 1 {
				energies = append(energies, np.chains[1].Last().Energy)
			}
		})
		s.Close()
	}
	var codes []string
	for _, w := range np.Warnings() {
		codes = append(codes, w.Code)
	}
	if !slices.Contains(codes, "divergent") {
		t.Errorf("no divergence warning on Neal's funnel: %v (%d and %d divergent)", codes, np.chains[1].divergent, np.chains[2].divergent)
	}
	var mean, ss, ds float64
	for _, e := range energies {
		mean += e / float64(len(energies))
	}
	for i, e := range energies {
		ss += (e - mean) * (e - mean)
		if i > 0 {
			ds += (e - energies[i-1]) * (e - energies[i-1])
		}
	}
	if got, want := np.chains[1].ebfmi(), ds/ss; !(math.Abs(got-want) <= 1e-9*want) {
		t.Errorf("E-BFMI %v, from the energies %v", got, want)
	}
}

// Neal's funnel has no mode (its density grows without bound down the
// neck) and no Laplace fit: the plan runs NUTS, and says why.
func TestPlanRunsNUTSOnAFunnel(t *testing.T) {
	plan, _, err := NewChainPlan(Model{Terms: modes.EnergyTerms(funnel{})}, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plan.(*NUTSPlan); !ok {
		t.Fatalf("plan %T on Neal's funnel, want NUTS: %s", plan, plan.Note())
	}
	t.Log(plan.Note())
}

// --adapt-delta reaches every NUTS warmup of the plan: on a Gaussian, the
// chains' mean acceptance statistic after warmup follows the target
// (0.8, Stan's, where none is given; 0.95 asked), the sampler line says
// it, and a divergence's remedy names the flag with its value only where
// the command has it. Over 2 chains × 1000 transitions the mean
// acceptance has an sd of about 0.005 (a per-transition sd under 0.15,
// at most one transition in two independent), so the 0.09 apart that
// dual averaging gives the two targets here (0.955 and 0.862, on 20
// coordinates with sds from 0.1 to 10) cannot be noise.
func TestAdaptDeltaReachesNUTS(t *testing.T) {
	sds := make([]float64, 20)
	for j := range sds {
		sds[j] = math.Pow(10, float64(j%5)/2-1)
	}
	accept := func(status *Status) (*NUTSPlan, float64) {
		np, err := NewNUTSPlan(modes.EnergyTerms(gaussian{sds}), []int{1, 2}, 4, nil, nil, nil, "test", status)
		if err != nil {
			t.Fatal(err)
		}
		sum, n := 0.0, 0
		for _, id := range []int{1, 2} {
			s, err := np.Sampler(4, id)
			if err != nil {
				t.Fatal(err)
			}
			stepKeep(t, s, 0, 1000, func() {
				sum += np.chains[id].Last().AcceptStat
				n++
			})
			s.Close()
		}
		return np, sum / float64(n)
	}
	npStan, stan := accept(nil)
	npHigh, high := accept(&Status{adaptDelta: 0.95})
	if !(high >= 0.9 && high-stan >= 0.05) {
		t.Errorf("mean acceptance %.3f at --adapt-delta 0.95, %.3f at Stan's 0.8", high, stan)
	}
	if !strings.Contains(npHigh.Note(), "mean acceptance of 0.95") || !strings.Contains(npStan.Note(), "mean acceptance of 0.8") {
		t.Errorf("sampler lines %q and %q do not say the target", npHigh.Note(), npStan.Note())
	}
	for _, c := range []struct {
		np   *NUTSPlan
		want string
	}{{npStan, "reparameterise"}, {npHigh, "raise --adapt-delta (now 0.95) to 0.99"}} {
		c.np.chains[1].divergent = 1
		ws := c.np.Warnings()
		if len(ws) == 0 || ws[0].Code != "divergent" || !strings.Contains(ws[0].Remedy, c.want) {
			t.Errorf("divergence warnings %+v: want a remedy with %q", ws, c.want)
		}
		if c.np == npStan && strings.Contains(ws[0].Remedy, "--adapt-delta") {
			t.Errorf("a command without --adapt-delta is told to raise it: %s", ws[0].Remedy)
		}
	}
}

// failingModel is a Gaussian (sds 2 and 0.5) that fails as a model process
// does once the plan's status names the NUTS pilot: from then on it
// answers NaN and Err holds the failure (modelproc.Model's contract).
type failingModel struct {
	status *Status
	err    error
}

var errModelHung = errors.New(`model process "m.py": no reply within the timeout of 10s (the model was killed)`)

func (f *failingModel) Dim() int { return 2 }
func (f *failingModel) Len() int { return 1 }
func (f *failingModel) fail() bool {
	if f.err == nil {
		if v := f.status.now.Load(); v != nil && strings.Contains(*v, "NUTS pilot") {
			f.err = errModelHung
		}
	}
	return f.err != nil
}
func (f *failingModel) Term(grad, _ []float64, _ int) float64 {
	clear(grad)
	if f.fail() {
		return math.NaN()
	}
	return 0
}
func (f *failingModel) Prior(grad, x []float64) float64 {
	if f.fail() {
		for j := range grad {
			grad[j] = math.NaN()
		}
		return math.NaN()
	}
	s := []float64{2, 0.5}
	u := 0.0
	for j := range x {
		u += x[j] * x[j] / (2 * s[j] * s[j])
		if grad != nil {
			grad[j] = x[j] / (s[j] * s[j])
		}
	}
	return u
}
func (f *failingModel) Err() error { return f.err }

// A model that fails during the NUTS pilot stops the plan with its own
// failure: the pilot's "no step size is small enough; the posterior may not
// be continuous" is not the cause, and MALA on a dead model is no plan.
func TestOneModePlanReportsModelFailure(t *testing.T) {
	status := &Status{}
	f := &failingModel{status: status}
	plan, note, err := PlanFor(Model{Terms: f}, 3, false, []int{1, 2, 3, 4}, status)
	if f.err == nil {
		t.Skipf("the plan ran no NUTS pilot (%T: %s): nothing to check", plan, note)
	}
	if !errors.Is(err, errModelHung) {
		t.Fatalf("the model failed in the NUTS pilot, yet the plan gave %T, note %q, error %v", plan, note, err)
	}
}

// flatAlong is exp(−x₀²/2), flat in x₁: improper, with no mode.
type flatAlong struct{}

func (flatAlong) Dim() int              { return 2 }
func (flatAlong) U(x []float64) float64 { return x[0] * x[0] / 2 }
func (flatAlong) Grad(g, x []float64)   { g[0], g[1] = x[0], 0 }

// An improper posterior (flat along a coordinate) has no mode: every
// search ends where the Hessian is singular, and the run says that such a
// posterior may be improper, since its chains only drift and the remedies
// of a slow run do not help; its progress lines say so while NUTS warms up. Neal's funnel, proper, where the search
// stops at a point it takes for a mode, is not told so.
func TestNoModeOnARidgeWarns(t *testing.T) {
	for _, c := range []struct {
		name string
		e    energy.Energy
		want bool
	}{{"flat", flatAlong{}, true}, {"funnel", funnel{}, false}} {
		status := NewStatus(context.Background(), 0)
		plan, _, err := PlanFor(Model{Terms: modes.EnergyTerms(c.e)}, 5, false, []int{1, 2, 3, 4}, status)
		if err != nil {
			t.Fatal(err)
		}
		// Said on the progress lines while NUTS warms up, too.
		if said := strings.Contains(status.Now(), "may be improper"); said != c.want {
			t.Errorf("%s: the plan's progress line %q, want the caveat %v", c.name, status.Now(), c.want)
		}
		np, ok := plan.(*NUTSPlan)
		if !ok {
			t.Fatalf("%s: plan %T, want NUTS", c.name, plan)
		}
		got := false
		for _, w := range np.Warnings() {
			got = got || w.Code == "no-mode" && strings.Contains(w.Message, "improper")
		}
		if got != c.want {
			t.Errorf("%s: no-mode warning %v, want %v (%d searches, all on ridges: %d)", c.name, got, c.want, np.ridges, np.ridges)
		}
	}
}
