package models_test

import (
	"fmt"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// BenchmarkCorrection times one corrected step of a single chain, a size-n
// minibatch gradient with its variance report followed by the update,
// under the diagonal and the full correction, at two sizes:
//
//   - breast cancer as the minibatch study runs it (N = 569, n = 57,
//     p = 31: n > p, the dense p×p form), at its step η = 0.2/λ_max, started
//     at the posterior mode; there the gradient noise exceeds the budget
//     along some direction on a share of the steps (metric
//     clamped-steps/step), and those steps take the eigen-decomposition
//     instead of the cheaper Cholesky factor;
//   - synthetic data of the same size at a step small enough that nothing
//     is over budget: the Cholesky path alone;
//   - a wide synthetic model (N = 10,000, n = 10, p = 1000: the low-rank
//     n×n form) at a step small enough that nothing is over budget.
func BenchmarkCorrection(b *testing.B) {
	bc, mode, eta := breastCancer(b)
	for _, sz := range []struct {
		name  string
		terms energy.Terms
		n     int
		eta   float64
		init  []float64
	}{
		{"breast-cancer/n=57/p=31", bc, 57, eta, mode},
		{"synthetic/n=57/p=31", synthetic(b, 569, 31), 57, 1e-6, make([]float64, 31)},
		{"synthetic/n=10/p=1000", synthetic(b, 10_000, 1000), 10, 1e-10, make([]float64, 1000)},
	} {
		for _, c := range exchange.Corrections {
			b.Run(fmt.Sprintf("%s/correction=%v", sz.name, c), func(b *testing.B) {
				mb, err := energy.NewMinibatch(sz.terms, sz.n)
				if err != nil {
					b.Fatal(err)
				}
				cfg := exchange.Config{Levels: []exchange.Level{{
					Tau: 1, Est: mb, Eta: langevin.Constant{Step: sz.eta}, Noise: c.Policy(),
				}}, Seed: 1}
				s, err := exchange.New(cfg, [][]float64{sz.init})
				if err != nil {
					b.Fatal(err)
				}
				for range 100 { // past the first step's workspace growth
					if err := s.Step(); err != nil {
						b.Fatal(err)
					}
				}
				benchSteps(b, s, sz.n*sz.terms.Dim())
				st := s.Stats().Levels[0]
				b.ReportMetric(float64(st.ClampedSteps)/float64(s.Steps()), "clamped-steps/step")
			})
		}
	}
}

// breastCancer is the minibatch study's breast-cancer posterior (features
// standardised, an intercept, prior N(0, I)), its mode, and the study's step
// 0.2/λ_max.
func breastCancer(b *testing.B) (*models.Logistic, []float64, float64) {
	l := testenergy.BreastCancer(b)
	m, _, lmax, err := mala.Curvature(l, make([]float64, l.P))
	if err != nil {
		b.Fatal(err)
	}
	return l, m, 0.2 / lmax
}
