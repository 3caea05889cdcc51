package finitemix

import "math"

// The samplers (MixGibbs, MixDA) keep their components unordered; θ holds
// them sorted by mean. sortByMean and packSorted are that one conversion,
// written once for both.

// sortByMean sets ord[:k] to the components in increasing order of mu
// (insertion sort: K ≤ 8).
func sortByMean(ord *[8]int, mu *[8]float64, k int) {
	for j := range k {
		ord[j] = j
	}
	for j := 1; j < k; j++ {
		for l := j; l > 0 && mu[ord[l]] < mu[ord[l-1]]; l-- {
			ord[l], ord[l-1] = ord[l-1], ord[l]
		}
	}
}

// packSorted packs the components (mu, tau, logw) in the order ord into
// theta through p, as Pack writes them; the weights' logits are taken
// from the log weights, so that a weight that underflows stays finite.
func (m *FiniteMixture) packSorted(theta []float64, p *MixParams, ord *[8]int, mu, tau, logw *[8]float64) {
	k := m.K
	for j, c := range ord[:k] {
		p.Mu[j] = mu[c]
		p.Sigma[j] = 1 / math.Sqrt(tau[c])
		p.LogW[j] = logw[c]
		p.W[j] = math.Exp(logw[c])
	}
	m.Pack(theta, p)
	for j := range k - 1 {
		theta[2*k+j] = p.LogW[j] - p.LogW[k-1]
	}
}
