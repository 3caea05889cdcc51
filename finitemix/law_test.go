package finitemix

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/mala"
)

// TestMixtureEnergyLaw checks the law of the energy every gradient
// sampler runs on (θ's coordinates with their Jacobians: ordered means
// from gaps, log sds, softmax logits) against the exact posterior of the
// allocations enumerated from the model's definition (mixExact, as for
// the Gibbs sampler): exact MALA on FiniteMixture.U, Rao–Blackwellised,
// must give P(z_1 = z_n) = E[Σ_k r_1k r_nk] and P(K+ = 1) = E[Clusters]
// of the enumeration. A Jacobian left out moves both far beyond the
// tolerance (checked by hand: without the gaps' Jacobian they move by 52
// and 46 MCSE, without the softmax's by 64 and 63).
//
// Tolerance: 4 MCSE, the MCSE from batch means (mala.BatchMeans, 50
// batches of 5,000 steps, far longer than the chain's autocorrelation)
// over 4 chains of 250,000 kept steps each, pooled as the mean of the
// chains' means with the chains' own MCSEs combined.
func TestMixtureEnergyLaw(t *testing.T) {
	m, err := NewFiniteMixture(mixGibbsData, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := mixExact(m, 0.02, 40)
	n := len(m.Z)
	var same, one float64
	for zc, pz := range p {
		if zc&1 == zc>>(n-1)&1 {
			same += pz
		}
		if zc == 0 || zc == len(p)-1 {
			one += pz
		}
	}
	r, k, par := make([]float64, n*m.K), make([]float64, m.K), m.NewParams()
	init := make([]float64, m.Dim())
	init[1] = math.Log(1.5) // means −0.75 and 0.75, unit sds, equal weights
	const chains = 4
	var est [2]float64
	var vars [2]float64
	for c := range chains {
		res, err := mala.Run(m, init, mala.Config{Step: 0.1, Burn: 20_000, Keep: 250_000, Thin: 1, Seed: uint64(10 + c), Adapt: true})
		if err != nil {
			t.Fatal(err)
		}
		xs := [2][]float64{}
		for i := range res.Samples[:len(res.Samples)/m.Dim()] {
			th := res.Samples[i*m.Dim() : (i+1)*m.Dim()]
			m.Responsibilities(r, par, th)
			m.Clusters(k, r)
			var s float64
			for j := range m.K {
				s += r[j] * r[(n-1)*m.K+j]
			}
			xs[0], xs[1] = append(xs[0], s), append(xs[1], k[0])
		}
		for q := range 2 {
			mean, se := mala.BatchMeans(xs[q], 50)
			est[q] += mean / chains
			vars[q] += se * se / (chains * chains)
		}
	}
	for q, want := range []float64{same, one} {
		name := []string{"P(z_1 = z_n)", "P(K+ = 1)"}[q]
		mcse := math.Sqrt(vars[q])
		z := (est[q] - want) / mcse
		t.Logf("%s: MALA %.5f ± %.5f, exact %.5f (%.1f MCSE)", name, est[q], mcse, want, z)
		if !(math.Abs(z) <= 4) {
			t.Errorf("%s: MALA on the energy gives %.5f ± %.5f, the enumeration %.5f: %.1f MCSE", name, est[q], mcse, want, z)
		}
	}
}
