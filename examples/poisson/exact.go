package main

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
)

// Exact is the posterior's mean and sd by a long MALA run, exact but for
// Monte Carlo error, which SE gives for each mean (batch means over 50
// batches), and the largest eigenvalue of the Hessian of U at the mode.
type Exact struct {
	Mean, SD, SE []float64
	Lmax         float64
}

// Reference runs MALA for keep draws. MALA runs on the Laplace approximation's whitened
// coordinates, its step adapted during burn-in towards acceptance 0.574
// and fixed after: the retained chain is a Metropolis–Hastings chain whose
// law is the posterior exactly.
func Reference(t energy.Terms, keep int, seed uint64) (Exact, error) {
	p := t.Dim()
	e := energy.NewFull(t)
	m, l, err := mala.Laplace(e, make([]float64, p))
	if err != nil {
		return Exact{}, err
	}
	var es mat.EigenSym
	if !es.Factorize(mala.Hessian(e, m), false) {
		return Exact{}, errors.New("the Hessian's eigenvalues did not converge")
	}
	a := mala.NewAffine(e, m, l)
	res, err := mala.Run(a, make([]float64, p), mala.Config{Step: 0.5, Burn: 2000, Keep: keep, Thin: 1, Seed: seed, Adapt: true})
	if err != nil {
		return Exact{}, err
	}
	mean, sd, se := make([]float64, p), make([]float64, p), make([]float64, p)
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
	return Exact{mean, sd, se, es.Values(nil)[p-1]}, nil
}
