package multimodal

import (
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// The 25-Gaussian mixture of Zhang et al. (ICLR 2020, §5.1): equal weights,
// means on the 5×5 grid {−4, −2, 0, 2, 4}², covariance 0.03·I. It is
// sampled in units of the components' sd √0.03, where each component is
// N(μ_k, I) (models.IsoMixture) and adjacent means lie 2/√0.03 ≈ 11.5
// apart: the density between two adjacent modes is e^−16.7 of theirs.
const (
	mixGrid    = 5
	mixSpacing = 2
	mixVar     = 0.03
)

// Mixture25 is the mixture in sd units.
func Mixture25() *models.IsoMixture {
	var w []float64
	var mu [][]float64
	s := mixSpacing / math.Sqrt(mixVar)
	for i := range mixGrid {
		for j := range mixGrid {
			w = append(w, 1.0/(mixGrid*mixGrid))
			mu = append(mu, []float64{float64(i-mixGrid/2) * s, float64(j-mixGrid/2) * s})
		}
	}
	m, _ := models.NewIsoMixture(w, mu)
	return m
}

// MixSettings are the mixture runs' settings: gradients are exact (there is
// no data, so f-reSGLD's minibatch saving does not apply, and f-reSGLD and
// reSGLD coincide), η = 0.2 (0.2/λ_max, λ_max = 1 within a component), the
// fixed ladder Levels geometric levels from 1 to TauMax (TauMax = 16 brings
// the 16.7-nat barrier to about one nat), the adaptive one tuned from it in
// AdaptRounds rounds from AdaptFirst steps and grown to at most AdaptMax;
// swap attempts at probability 0.1 a step. Budget is each run's gradient
// evaluations (one per level and step; SGLD and cyclical SGLD take Budget
// steps); every run starts at the central mode. Cyclical SGLD runs 20
// cycles with exploration share 0.5 and η0 = 2η.
type MixSettings struct {
	Budget                          int
	Levels, AdaptRounds, AdaptFirst int
	AdaptMax                        int
	TauMax                          float64
	Thin                            int
	// CSGLDEta0 is cyclical SGLD's largest step η0.
	CSGLDEta0 float64
}

// MixResult is one run's mode coverage.
type MixResult struct {
	Method Method
	Seed   uint64
	// Found counts the modes with at least one retained draw within 3
	// sds of their mean; TV is the total-variation distance between the
	// draws' shares of the 25 modes and the exact 1/25 each.
	Found int
	TV    float64
	Cost  float64
	CPU   float64
	Steps int
	Taus  []float64
}

// RunMixture runs method m on the mixture for one seed.
func RunMixture(m Method, s MixSettings, seed uint64) (MixResult, error) {
	defer cputime.Lock()()
	start := cputime.Thread()
	mix := Mixture25()
	res := MixResult{Method: m, Seed: seed}
	const eta = 0.2
	est := energy.Exact{E: mix}
	st := exchange.Setup{Tau1: 1, Tau2: s.TauMax, Levels: s.Levels, Eta: langevin.Constant{Step: eta}, Cold: est, Hot: est, A: 0.1 / eta, A1: 0.5, Seed: seed}
	center := mix.Means[len(mix.Means)/2]
	init := func(K int) [][]float64 {
		in := make([][]float64, K)
		for l := range in {
			in[l] = append([]float64(nil), center...)
		}
		return in
	}
	var cfg exchange.Config
	var inits [][]float64
	var err error
	sample := func(int) bool { return true }
	var spent float64
	switch m {
	case SGLD:
		cfg, err = exchange.SGLDMethod.Config(st)
		inits = init(1)
	case CSGLD:
		c := langevin.Cyclical{Eta0: s.CSGLDEta0, Cycle: max(2, s.Budget/20), Explore: 0.5}
		st.Eta = c
		sample = func(k int) bool { return !c.Exploring(k) }
		cfg, err = exchange.CSGLDMethod.Config(st)
		inits = init(1)
	case FReSGLD:
		cfg, err = exchange.FReSGLDMethod.Config(st)
		inits = init(s.Levels)
	case Adaptive:
		taus, gerr := exchange.Geometric(1, s.TauMax, s.Levels)
		if gerr != nil {
			return res, gerr
		}
		ad, aerr := exchange.Adapt(exchange.FReSGLDMethod.Build(st), taus, init(len(taus)),
			exchange.AdaptOptions{Rounds: s.AdaptRounds, First: s.AdaptFirst, Grow: true, MaxLevels: s.AdaptMax})
		if aerr != nil {
			return res, aerr
		}
		for _, r := range ad.Rounds {
			spent += r.Units()
		}
		st.Taus = ad.Taus
		cfg, err = exchange.FReSGLDMethod.Config(st)
		inits = ad.States
	default:
		return res, fmt.Errorf("mixture: method %q not run", m)
	}
	if err != nil {
		return res, err
	}
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return res, err
	}
	defer smp.Close()
	for _, L := range cfg.Levels {
		res.Taus = append(res.Taus, L.Tau)
	}
	counts := make([]int, len(mix.Means))
	var n int
	smp.FreezeAfter(0) // no burn-in: nothing adapts while it samples
	for k := 0; spent+smp.Units() < float64(s.Budget); k++ {
		if err := smp.Step(); err != nil {
			return res, err
		}
		if k%s.Thin != 0 || !sample(k) {
			continue
		}
		th := smp.State(0)
		for c, mu := range mix.Means {
			dx, dy := th[0]-mu[0], th[1]-mu[1]
			if dx*dx+dy*dy < 9 {
				counts[c]++
				break
			}
		}
		n++
	}
	for _, c := range counts {
		if c > 0 {
			res.Found++
		}
		res.TV += 0.5 * math.Abs(float64(c)/float64(max(n, 1))-1.0/float64(len(counts)))
	}
	res.Cost, res.Steps = spent+smp.Units(), smp.Stats().Steps
	res.CPU = (cputime.Thread() - start).Seconds()
	return res, nil
}

// MixMethods are the methods run on the mixture.
var MixMethods = []Method{SGLD, CSGLD, FReSGLD, Adaptive}

// MixMarkdown writes the mode-coverage table: per method, the modes found
// and total-variation distance per run (mean, min–max over seeds).
func MixMarkdown(w io.Writer, rs [][]MixResult) {
	fmt.Fprintln(w, "| method | runs | modes found, mean (min–max) | TV distance of mode shares from 1/25, mean ± se | gradient evaluations / run | CPU s / run | levels |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, runs := range rs {
		var found, tv, tv2, cost, cpu, lv float64
		lo, hi := math.MaxInt, 0
		for _, r := range runs {
			found += float64(r.Found)
			tv += r.TV
			tv2 += r.TV * r.TV
			cost += r.Cost
			cpu += r.CPU
			lv += float64(len(r.Taus))
			lo, hi = min(lo, r.Found), max(hi, r.Found)
		}
		n := float64(len(runs))
		se := math.Sqrt(math.Max(0, tv2/n-(tv/n)*(tv/n)) / math.Max(1, n-1))
		fmt.Fprintf(w, "| %s | %d | %.1f (%d–%d) | %.3f ± %.3f | %.3g | %.2f | %.3g |\n", runs[0].Method, len(runs), found/n, lo, hi, tv/n, se, cost/n, cpu/n, lv/n)
	}
	fmt.Fprintln(w)
}
