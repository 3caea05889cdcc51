package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// mainMixture is the paper's mixture energy as it was computed before its
// constants were precomputed: three logs per component and term, each term
// evaluated twice per call. It is kept to time the workload against in the
// same benchmark run.
type mainMixture struct{ models.Mixture }

func (m mainMixture) logTerms(x float64) (mx, sum, dsum float64) {
	mx = math.Inf(-1)
	for k := range m.Weights {
		if t := m.logTerm(k, x); t > mx {
			mx = t
		}
	}
	for k := range m.Weights {
		e := math.Exp(m.logTerm(k, x) - mx)
		sum += e
		dsum += e * (x - m.Means[k]) / (m.SDs[k] * m.SDs[k])
	}
	return mx, sum, dsum
}

func (m mainMixture) logTerm(k int, x float64) float64 {
	z := (x - m.Means[k]) / m.SDs[k]
	return math.Log(m.Weights[k]) - math.Log(m.SDs[k]) - 0.5*math.Log(2*math.Pi) - 0.5*z*z
}

func (m mainMixture) U(theta []float64) float64 {
	mx, sum, _ := m.logTerms(theta[0])
	return -(mx + math.Log(sum))
}

func (m mainMixture) Grad(grad, theta []float64) {
	_, sum, dsum := m.logTerms(theta[0])
	grad[0] = dsum / sum
}

// BenchmarkPaperReSGLD times one step of the paper's mixture workload (the
// reSGLD run of `fresgld gmm --method resgld`: two chains on the fixed-noise
// estimators, a swap attempted every step, 4 energy evaluations a step) with
// the mixture energy as computed now (energy=now) and as before its
// constants were precomputed (energy=main), in the same run. Both produce
// the same bits (TestPaperReSGLDStream).
func BenchmarkPaperReSGLD(b *testing.B) {
	for _, arm := range []struct {
		name string
		e    energy.Energy
	}{{"energy=main", mainMixture{models.PaperMixture()}}, {"energy=now", models.PaperMixture()}} {
		b.Run(arm.name, func(b *testing.B) {
			cold, hot := models.PaperFixedNoise(arm.e)
			cfg, err := ReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 0.03}, Cold: cold, Hot: hot, PerStep: true, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			s := mustNew(b, cfg, [][]float64{{0}, {0}})
			defer cputime.Lock()()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Thread()
			for range b.N {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cputime.Thread() - cpu0
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
