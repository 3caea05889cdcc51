package variance

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// repeats is the work space for sample variances of repeated draws at one
// state, shared by the models that estimate variances that way.
type repeats struct {
	mean, m2, draw []float64
}

// sample draws r gradient and energy estimates at theta and writes the
// per-coordinate sample variances of the gradient draws into gv; it returns
// the sample variance of the energy draws. Welford's updates keep it stable
// when the variance is small beside the mean.
func (w *repeats) sample(gv, theta []float64, est energy.Estimator, rng *rand.Rand, r int) (ev float64) {
	if len(w.mean) != len(theta) {
		p := len(theta)
		w.mean, w.m2, w.draw = make([]float64, p), make([]float64, p), make([]float64, p)
	}
	for j := range w.mean {
		w.mean[j], w.m2[j] = 0, 0
	}
	var emean, em2 float64
	for i := 1; i <= r; i++ {
		est.Grad(w.draw, nil, theta, rng)
		u, _ := est.Energy(theta, rng)
		for j, g := range w.draw {
			d := g - w.mean[j]
			w.mean[j] += d / float64(i)
			w.m2[j] += d * (g - w.mean[j])
		}
		d := u - emean
		emean += d / float64(i)
		em2 += d * (u - emean)
	}
	df := float64(r - 1)
	for j, m2 := range w.m2 {
		gv[j] = m2 / df
	}
	return em2 / df
}
