package main

import (
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
)

// Reference is the posterior's mean and sd by a long MALA run, exact but
// for Monte Carlo error, which se gives (batch means over 50 batches) for
// each mean. MALA runs on the Laplace approximation's whitened
// coordinates, its step adapted during burn-in towards acceptance 0.574
// and fixed after: the retained chain is a Metropolis–Hastings chain whose
// law is the posterior exactly.
func Reference(t energy.Terms, keep int, seed uint64) (mean, sd, se []float64, err error) {
	p := t.Dim()
	e := energy.NewFull(t)
	m, l, err := mala.Laplace(e, make([]float64, p))
	if err != nil {
		return nil, nil, nil, err
	}
	a := mala.NewAffine(e, m, l)
	res, err := mala.Run(a, make([]float64, p), mala.Config{Step: 0.5, Burn: 2000, Keep: keep, Thin: 1, Seed: seed, Adapt: true})
	if err != nil {
		return nil, nil, nil, err
	}
	mean, sd, se = make([]float64, p), make([]float64, p), make([]float64, p)
	theta := make([]float64, p)
	col := make([][]float64, p)
	for k := range keep {
		a.Theta(theta, res.Samples[k*p:(k+1)*p])
		for j, v := range theta {
			col[j] = append(col[j], v)
		}
	}
	for j, xs := range col {
		mean[j], se[j] = mala.BatchMeans(xs, 50)
		var ss float64
		for _, v := range xs {
			ss += (v - mean[j]) * (v - mean[j])
		}
		sd[j] = math.Sqrt(ss / float64(len(xs)-1))
	}
	return mean, sd, se, nil
}
