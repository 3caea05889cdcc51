package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
)

// shortSeries is a noisy sinusoid of 12 values: short enough that its
// frequency posterior has several peaks a MALA chain crosses between.
func shortSeries() []float64 {
	r := rand.New(rand.NewPCG(7, 0))
	y := make([]float64, 12)
	for t := range y {
		y[t] = 0.8*math.Cos(1.3*float64(t)) + 0.5*float64(t)/11 + r.NormFloat64()
	}
	return y
}

func TestHarmonicGradient(t *testing.T) {
	m, err := NewHarmonic(shortSeries())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 0))
	for range 5 {
		theta := make([]float64, 6)
		for j := range theta {
			theta[j] = r.NormFloat64()
		}
		for _, f := range []func(g, th []float64) float64{m.Prior, func(g, th []float64) float64 { return m.Term(g, th, 7) }} {
			g := make([]float64, 6)
			f(g, theta)
			for j := range theta {
				// Central differences: error O(h²) ≈ 1e-10 against values O(1).
				const h = 1e-5
				fd := centralDiff(func(x []float64) float64 { return f(nil, x) }, theta, j, h)
				if math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("θ = %.3v, coordinate %d: gradient %v, differences %v", theta, j, g[j], fd)
				}
			}
		}
	}
}

// TestHarmonicExactAgainstMALA checks the closed-form frequency posterior
// against the model's own energy: long MALA chains on the short series
// must put each peak's probability within 4 MCSE of Exact's.
func TestHarmonicExactAgainstMALA(t *testing.T) {
	m, err := NewHarmonic(shortSeries())
	if err != nil {
		t.Fatal(err)
	}
	ex, err := m.Exact(400)
	if err != nil {
		t.Fatal(err)
	}
	if ex.QuadErr > 1e-3 {
		t.Fatalf("quadrature error %v", ex.QuadErr)
	}
	var peaks []HarmonicPeak
	for _, p := range ex.Peaks {
		if p.Prob >= 0.05 {
			peaks = append(peaks, p)
		}
	}
	if len(peaks) < 2 {
		t.Fatalf("the short series has %d peaks of 5%% or more: no test of their weights", len(peaks))
	}
	const chains, keep = 4, 200_000
	in := make([][]float64, len(peaks)) // per peak, every chain's indicators in turn
	starts := m.Starts(chains)
	for c := range chains {
		res, err := mala.Run(energy.NewFull(m), starts[c%len(starts)], mala.Config{Step: 0.01, Burn: 5000, Keep: keep, Thin: 5, Seed: uint64(c + 1), Adapt: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range keep {
			per := m.Period(res.Samples[i*6 : (i+1)*6])
			for j, p := range peaks {
				v := 0.0
				if p.Shortest <= per && per < p.Longest {
					v = 1
				}
				in[j] = append(in[j], v)
			}
		}
	}
	for j, p := range peaks {
		// 40 batches, ten of each chain: each far longer than the chain's
		// time between peaks, so their means are independent.
		mean, se := mala.BatchMeans(in[j], 40)
		t.Logf("period %.3g: MALA %.4f ± %.4f, exact %.4f", p.Period, mean, se, p.Prob)
		if !(math.Abs(mean-p.Prob) <= 4*se) {
			t.Errorf("period %.3g (%.3g to %.3g): MALA's probability %.4f ± %.4f, exact %.4f", p.Period, p.Shortest, p.Longest, mean, se, p.Prob)
		}
	}
}

// TestHarmonicStartsFindTheTopPeak: the mode search's first start lies in
// the frequency posterior's heaviest peak.
func TestHarmonicStartsFindTheTopPeak(t *testing.T) {
	y := make([]float64, 60)
	for i := range y {
		y[i] = math.Sin(2*math.Pi*float64(i)/7.3) + 0.3*math.Cos(float64(i)*float64(i))
	}
	m, err := NewHarmonic(y)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := m.Exact(100)
	if err != nil {
		t.Fatal(err)
	}
	top := ex.Peaks[0]
	if per := m.Period(m.Starts(1)[0]); !(top.Shortest <= per && per < top.Longest) {
		t.Errorf("the first start's period %.4g lies outside the heaviest peak (%.4g to %.4g)", per, top.Shortest, top.Longest)
	}
	if math.Abs(top.Period-7.3) > 0.1 {
		t.Errorf("the heaviest peak is at period %.4g, the sinusoid's is 7.3", top.Period)
	}
}
