package minibatch

import (
	"math"

	"github.com/fresgld/fresgld/diag"
)

// grid2D scores 2-D samples by total variation against an exact grid on
// BX×BY bins.
type grid2D struct {
	g      diag.Grid2D
	bx, by int
	xs, ys []float64
}

func (a *grid2D) Add(theta []float64) {
	a.xs = append(a.xs, theta[0])
	a.ys = append(a.ys, theta[1])
}

func (a *grid2D) Score(dst []float64) { dst[0] = a.g.TV(a.xs, a.ys, a.bx, a.by) }

// moments scores samples by the error of their per-coordinate mean and
// standard deviation against a reference:
//
//	mean error = √(mean_j ((m̂_j − m_j)/s_j)²)   (RMS, in posterior sds),
//	sd error   = √(mean_j (ŝ_j/s_j − 1)²)       (RMS relative error).
type moments struct {
	ref      Reference
	n        float64
	mean, m2 []float64 // Welford's running mean and sum of squared deviations
}

func newMoments(ref Reference) *moments {
	p := len(ref.Mean)
	return &moments{ref: ref, mean: make([]float64, p), m2: make([]float64, p)}
}

func (a *moments) Add(theta []float64) {
	a.n++
	for j, x := range theta {
		d := x - a.mean[j]
		a.mean[j] += d / a.n
		a.m2[j] += d * (x - a.mean[j])
	}
}

func (a *moments) Score(dst []float64) {
	var em, es float64
	p := float64(len(a.mean))
	for j, m := range a.mean {
		s := a.ref.SD[j]
		d := (m - a.ref.Mean[j]) / s
		em += d * d / p
		r := math.Sqrt(a.m2[j]/a.n)/s - 1
		es += r * r / p
	}
	dst[0], dst[1] = math.Sqrt(em), math.Sqrt(es)
}
