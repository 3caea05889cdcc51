package heat

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/fresgld/fresgld/diag"
)

// Scorer measures samples of x0 against the exact tempered posterior.
type Scorer struct {
	P     Problem
	Exact diag.Grid2D // Posterior(τ, n)
	// Sectors is the number of equal angular sectors around the sensor used
	// for coverage; Bins the number of histogram bins per side for TV
	// (it must divide Exact.NX).
	Sectors, Bins int
	// Band is the half-width of the band |r − r*| ≤ Band counted as near
	// the circle.
	Band float64
}

// NewScorer uses 36 sectors of 10°, 50×50 bins of 0.02 and a band of
// three ring widths at τ.
func NewScorer(p Problem, tau float64, n int) Scorer {
	return Scorer{P: p, Exact: p.Posterior(tau, n), Sectors: 36, Bins: 50, Band: 3 * p.RingWidth(tau)}
}

// Metrics are the measures of one run.
type Metrics struct {
	// Coverage is the fraction of the angular sectors around the sensor
	// that hold at least one sample near the circle.
	Coverage float64
	// TV is the total variation distance between the samples' 2-D
	// histogram and the exact posterior's masses on the same bins.
	TV float64
	// Near is the fraction of samples within the band around the circle.
	Near float64
}

// Score measures the samples (xs[k], ys[k]).
func (s Scorer) Score(xs, ys []float64) Metrics {
	if len(xs) == 0 {
		return Metrics{math.NaN(), math.NaN(), math.NaN()}
	}
	r0 := s.P.Radius()
	seen := make([]bool, s.Sectors)
	var near int
	for k, x := range xs {
		dx, dy := x-s.P.Sensor[0], ys[k]-s.P.Sensor[1]
		if math.Abs(math.Hypot(dx, dy)-r0) > s.Band {
			continue
		}
		near++
		a := math.Atan2(dy, dx) + math.Pi // in [0, 2π]
		seen[min(int(a/(2*math.Pi)*float64(s.Sectors)), s.Sectors-1)] = true
	}
	var c int
	for _, v := range seen {
		if v {
			c++
		}
	}
	return Metrics{
		Coverage: float64(c) / float64(s.Sectors),
		TV:       s.Exact.TV(xs, ys, s.Bins, s.Bins),
		Near:     float64(near) / float64(len(xs)),
	}
}

// ExactNear is the exact posterior's mass near the circle: the cells whose
// centres lie within the band.
func (s Scorer) ExactNear() float64 {
	g := s.Exact
	hx, hy := (g.X1-g.X0)/float64(g.NX), (g.Y1-g.Y0)/float64(g.NY)
	r0 := s.P.Radius()
	var m float64
	for i := 0; i < g.NX; i++ {
		for j := 0; j < g.NY; j++ {
			x, y := g.X0+(float64(i)+0.5)*hx, g.Y0+(float64(j)+0.5)*hy
			if math.Abs(math.Hypot(x-s.P.Sensor[0], y-s.P.Sensor[1])-r0) <= s.Band {
				m += g.Mass[i*g.NY+j]
			}
		}
	}
	return m
}

// Draw returns n independent samples of the grid distribution g: a cell
// by its mass, then a uniform point in it. They are the reference an exact
// sampler would give, and set the floor of the metrics at a sample size.
func Draw(g diag.Grid2D, n int, rng *rand.Rand) (xs, ys []float64) {
	cum := make([]float64, len(g.Mass))
	var c float64
	for k, m := range g.Mass {
		c += m
		cum[k] = c
	}
	hx, hy := (g.X1-g.X0)/float64(g.NX), (g.Y1-g.Y0)/float64(g.NY)
	xs, ys = make([]float64, n), make([]float64, n)
	for k := range xs {
		u := rng.Float64() * c
		i := min(sort.SearchFloat64s(cum, u), len(cum)-1)
		xs[k] = g.X0 + (float64(i/g.NY)+rng.Float64())*hx
		ys[k] = g.Y0 + (float64(i%g.NY)+rng.Float64())*hy
	}
	return xs, ys
}
