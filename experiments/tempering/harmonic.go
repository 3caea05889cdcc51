package tempering

import (
	"bytes"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
)

// JohnsonJohnson is a line and one sinusoid (models.Harmonic) through the
// log of data.JohnsonJohnson's quarterly earnings, whose frequency
// posterior has two peaks far apart: the season of four quarters and a
// slow swing over the whole series.
func JohnsonJohnson(name string) (*Workload, error) {
	c, err := dataset.ReadColumnFrom(bytes.NewReader(data.JohnsonJohnson), "johnsonjohnson.csv", "earnings", false)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(c.Values))
	for i, v := range c.Values {
		y[i] = math.Log(v)
	}
	return Harmonic(name, y)
}

// LakeHuron is a line and one sinusoid (models.Harmonic) through
// data.LakeHuron's annual levels, whose frequency posterior has a peak at
// a swing of some 32 years and another at the series' length.
func LakeHuron(name string) (*Workload, error) {
	c, err := dataset.ReadColumnFrom(bytes.NewReader(data.LakeHuron), "lakehuron.csv", "level", false)
	if err != nil {
		return nil, err
	}
	return Harmonic(name, c.Values)
}

// Harmonic is a line and one sinusoid of unknown frequency through the
// series y (models.Harmonic), scored by the posterior probability of each
// of the frequency posterior's peaks that holds at least 1% of it, with
// the exact marginal on a grid (models.Harmonic.Exact) as the reference.
func Harmonic(name string, y []float64) (*Workload, error) {
	m, err := models.NewHarmonic(y)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ex, err := m.Exact(400)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var peaks []models.HarmonicPeak
	for _, p := range ex.Peaks {
		if p.Prob >= 0.01 {
			peaks = append(peaks, p)
		}
	}
	// in is 1 where the period lies in peak j.
	in := func(out []float64, period float64) {
		for j, p := range peaks {
			out[j] = 0
			if p.Shortest <= period && period < p.Longest {
				out[j] = 1
			}
		}
	}
	w := &Workload{Name: name, Quantity: "probability of the period's peak",
		RefNote: fmt.Sprintf("models.Harmonic.Exact: b and σ integrated in closed form, ω on a grid of %d points (quadrature error ≤ %.1g)", len(ex.Omega), ex.QuadErr),
		About:   fmt.Sprintf("%d values, standardised: a line and one sinusoid, ω ~ U(2π/N, π), b ~ N(0, (%gσ)²), p(σ) ∝ 1/σ", len(y), m.S),
		value:   func(x float64) float64 { return x },
		stan:    stanData{kind: "harmonic", y: m.Z, n: len(y), harmonic: m, values: func(out, draw []float64) { in(out, 2*math.Pi/draw[0]) }}}
	for _, p := range peaks {
		w.Names = append(w.Names, fmt.Sprintf("period_%.3g", p.Period))
		w.Ref = append(w.Ref, p.Prob)
	}
	w.Model = plan.Model{Terms: m, Names: []string{"logit_omega", "b0", "b1", "a", "c", "log_sigma"}, Generated: w.Names,
		Generate: func(out, theta []float64) { in(out, m.Period(theta)) },
		Starts:   func() ([][]float64, error) { return m.Starts(10), nil },
		// The minibatch methods' step from the curvature at the
		// periodogram's highest peak: Newton from θ = 0, the middle of
		// the frequencies, ends where no sinusoid fits.
		Curvature: func(uint64) (plan.Curvature, error) {
			mode, lmin, lmax, err := mala.Curvature(energy.NewFull(m), m.Starts(1)[0])
			return plan.Curvature{Lmin: lmin, Lmax: lmax, Mode: mode, Note: "λ_max at the periodogram's highest peak"}, err
		},
		NoChainChecks: true}
	return w, nil
}
