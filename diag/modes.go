package diag

import "math"

// Split is the point of least density of g between a and b: the boundary
// between two modes centred near a and b.
func (g Grid1D) Split(a, b float64) float64 {
	h := g.H()
	best, at := math.Inf(1), (a+b)/2
	for i, d := range g.Dens {
		x := g.Lo + (float64(i)+0.5)*h
		if x > a && x < b && d < best {
			best, at = d, x
		}
	}
	return at
}

// RightWeight is the fraction of samples above split: the weight the
// samples give to the right-hand mode (NaN for no samples).
func RightWeight(samples []float64, split float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	var k int
	for _, x := range samples {
		if x > split {
			k++
		}
	}
	return float64(k) / float64(len(samples))
}
