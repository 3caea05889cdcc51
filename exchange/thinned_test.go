package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// thinnedModel is the thinned tests' model: a one-coefficient logistic
// regression of 100 examples, and its posterior mode.
func thinnedModel(t *testing.T) (*models.Logistic, []float64) {
	t.Helper()
	lr, _, err := models.SyntheticLogistic(100, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	mode, _, err := lr.Mode([]float64{0}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	return lr, mode
}

// thinnedSampler is a ladder of Metropolis-adjusted Langevin levels at
// temperatures taus and steps etas on lr's exact energies, which keep the
// exact tempered laws, each started at mode, swapping at every step under
// ThinnedEnergies of terms expanded about mode.
func thinnedSampler(t *testing.T, lr *models.Logistic, terms energy.Terms, mode, taus, etas []float64, seed uint64) *Sampler {
	t.Helper()
	var lv []Level
	var start [][]float64
	for l, eta := range etas {
		lv = append(lv, Level{Tau: taus[l], Est: energy.Exact{E: lr}, Eta: langevin.Constant{Step: eta}, Metropolis: true})
		start = append(start, mode)
	}
	cfg := Config{Levels: lv, Swap: Swap{Rule: FReSGLD}, Seed: seed,
		Energies: Energies{Mode: ThinnedEnergies, Terms: terms, ExactEvery: 1, Expand: mode}}
	s := mustNew(t, cfg, start)
	return s
}

// thinnedLadder is a two-level ladder (τ = 1, 10) on thinnedModel. The
// cold step is small (acceptance near 1, its chain slow), so that the cold
// level's law is set by the swaps more than by its own moves.
func thinnedLadder(t *testing.T, seed uint64) (*Sampler, *models.Logistic, []float64) {
	t.Helper()
	lr, mode := thinnedModel(t)
	taus := []float64{1, 10}
	return thinnedSampler(t, lr, lr, mode, taus, []float64{0.0005, 0.05}, seed), lr, taus
}

// tempered is the mean and variance of exp(−U(θ)/τ) for a one-coefficient
// model, by the trapezoid rule on 40,001 points over ±12 of its sd about
// the mode (a Gaussian guess first, refined once).
func tempered(u func(float64) float64, mode, tau float64) (mean, variance float64) {
	const h, n = 1e-4, 40_000
	curv := (u(mode+h) - 2*u(mode) + u(mode-h)) / (h * h)
	mean, sd := mode, math.Sqrt(tau/curv)
	for range 2 {
		lo, dx := mean-12*sd, 24*sd/n
		var z, m1, m2 float64
		for k := range n + 1 {
			x := lo + float64(k)*dx
			w := math.Exp(-(u(x) - u(mode)) / tau)
			if k == 0 || k == n {
				w /= 2
			}
			z += w
			m1 += w * x
			m2 += w * x * x
		}
		mean = m1 / z
		variance = m2/z - mean*mean
		sd = math.Sqrt(variance)
	}
	return mean, variance
}

// TestThinnedSwapKeepsLaw checks ThinnedEnergies by the law it leaves
// invariant: after 200,000 steps with an attempt each, every level's mean
// and variance must lie within the Bonferroni threshold over the 4
// comparisons (1% family-wise, about 3.0 MCSE) of the tempered posterior's
// by quadrature (seeds 1–3: within 1.9 MCSE). The thinning must decide
// the attempts on fewer than 10 examples on average (not 2N = 200; 3.9
// here), and fall back to a full pass on fewer than 1 in 20 (2.3%: the
// hot level's far states). Decided on the expansion alone (the thinning
// taken out), the cold mean is off by 23 MCSE and its second moment by 24.
func TestThinnedSwapKeepsLaw(t *testing.T) {
	const steps = 200_000
	s, lr, taus := thinnedLadder(t, 1)
	defer s.Close()
	u := func(x float64) float64 { return lr.U([]float64{x}) }
	K := len(taus)
	xs, sq := make([][]float64, K), make([][]float64, K)
	sampleLevels(t, s, steps/10, steps, func(l int, x []float64) {
		xs[l] = append(xs[l], x[0])
		sq[l] = append(sq[l], x[0]*x[0])
	})
	zMax := lawThreshold(2 * K)
	st := s.Stats()
	for l, tau := range taus {
		mean, vr := tempered(u, s.data.expansion.Point()[0], tau)
		m, _, _ := moments(xs[l])
		m2, _, _ := moments(sq[l])
		zm := (m - mean) / diag.MCSEMean([][]float64{xs[l]})
		zv := (m2 - (vr + mean*mean)) / diag.MCSEMean([][]float64{sq[l]})
		t.Logf("level %d (τ = %g): mean %.4f against %.4f (%.2f MCSE), variance %.4f against %.4f (second moment off by %.2f MCSE)", l, tau, m, mean, zm, m2-m*m, vr, zv)
		if !(math.Abs(zm) <= zMax && math.Abs(zv) <= zMax) {
			t.Errorf("level %d: mean off by %.2f MCSE, second moment by %.2f; allowed %.2f", l, zm, zv, zMax)
		}
	}
	p := st.Pairs[0]
	perAttempt := float64(p.Screened) / 2 / float64(p.Attempts)
	t.Logf("%d attempts, %d accepted; %.2f examples evaluated an attempt by the thinning, %d full passes", p.Attempts, p.Accepts, perAttempt, p.Confirmed)
	if !(perAttempt < 10) || p.Confirmed > p.Attempts/20 {
		t.Errorf("%.2f examples an attempt and %d full passes in %d attempts: the thinning is not cheap here", perAttempt, p.Confirmed, p.Attempts)
	}
	if p.Accepts < p.Attempts/10 {
		t.Errorf("%d swaps in %d attempts: too few to test the swaps' law", p.Accepts, p.Attempts)
	}
}

// TestThinnedAllocatesNothing: a thinned swap attempt, its thinning events
// included, allocates nothing once the expansion is made.
func TestThinnedAllocatesNothing(t *testing.T) {
	s, _, _ := thinnedLadder(t, 1)
	defer s.Close()
	m := s.data.expansion.Point()[0]
	x, y := []float64{m + 0.5}, []float64{m - 0.5}
	if a := testing.AllocsPerRun(200, func() { s.decide(0, x, y) }); a != 0 {
		t.Errorf("%v allocations per swap attempt", a)
	}
	if p := s.Stats().Pairs[0]; p.Screened == 0 {
		t.Error("no thinning event: the events' allocations were not measured")
	}
}

// TestThinnedFarStatesTakeExactEnergies: where the thinning would evaluate
// more examples than a full pass (a state far from the expansion point),
// the attempt's log-ratio is τδ times the exact D on the whole data set,
// and it counts as confirmed on the full data; near the point it is not.
func TestThinnedFarStatesTakeExactEnergies(t *testing.T) {
	s, lr, _ := thinnedLadder(t, 1)
	defer s.Close()
	m := s.data.expansion.Point()[0]
	x, y := []float64{m + 30}, []float64{m - 1}
	if r := s.data.expansion.Rate(s.td[0], x, y); !(thinEventCost*r > 2*float64(lr.Len())) {
		t.Fatalf("Λ = %v: not far enough for the full pass", r)
	}
	lrat, err := s.thinnedRatio(0, x, y)
	if err != nil {
		t.Fatal(err)
	}
	want := s.td[0] * (lr.U(x) - lr.U(y))
	if math.Abs(lrat-want) > 1e-9*math.Abs(want) || s.pairs[0].Confirmed != 1 {
		t.Errorf("far states: log-ratio %v, want τδ·D = %v; %d confirmed, want 1", lrat, want, s.pairs[0].Confirmed)
	}
	if _, err := s.thinnedRatio(0, []float64{m + 0.1}, []float64{m - 0.1}); err != nil || s.pairs[0].Confirmed != 1 {
		t.Errorf("near states went to the full data (%d confirmed, %v)", s.pairs[0].Confirmed, err)
	}
}

// TestThinnedCostPricesEachPair checks the cost auto reads: on the law
// test's logistic regression, ThinnedCost over a three-level ladder is each
// pair's three evaluations per mean event (MeanRate at that pair's τδ and
// temperatures) plus p, and a pair whose events would cost more than its
// two states' full passes is priced at those passes, as thinnedRatio falls
// back to them. A price with the events' cost scaled, the pairs' τ swapped
// for their neighbours', or the cap left out differs.
func TestThinnedCostPricesEachPair(t *testing.T) {
	_, lr, _ := thinnedLadder(t, 1)
	mode, _, err := lr.Mode([]float64{0}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	e, err := energy.NewExpansion(lr, mode)
	if err != nil {
		t.Fatal(err)
	}
	taus := []float64{1, 3, 10}
	low := e.MeanRate(1-1.0/3, 1, 3)
	high := e.MeanRate(1.0/3-0.1, 3, 10)
	want := 3*low + 1 + 3*high + 1
	if got := ThinnedCost(e, taus, lr.Len()); math.Abs(got-want) > 1e-12*want {
		t.Errorf("ThinnedCost %v, want 3·%v + 1 + 3·%v + 1 = %v", got, low, high, want)
	}
	// With N small enough that the hot pair's events cost more than 2N,
	// that pair is priced at 2N.
	n := int(math.Floor(1.5 * high))
	if 3*low > 2*float64(n) {
		t.Fatalf("the cold pair's %v events outprice N = %d too", low, n)
	}
	want = 3*low + 1 + 2*float64(n) + 1
	if got := ThinnedCost(e, taus, n); math.Abs(got-want) > 1e-12*want {
		t.Errorf("N = %d: ThinnedCost %v, want %v (the hot pair at its two passes)", n, got, want)
	}
	t.Logf("mean events an attempt: %.3g (τ 1–3), %.3g (τ 3–10)", low, high)
}
