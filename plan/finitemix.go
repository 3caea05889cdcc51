package plan

import (
	"fmt"

	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/modes"
)

// MixtureModel is the model of fresgld mixture: m's coordinates (on the
// standardised scale) named, and each draw's means, sds and weights in
// the data's units generated beside them, with the Rao–Blackwellised
// probability of each number of clusters (MixtureClusterCol).
func MixtureModel(m *finitemix.FiniteMixture) Model {
	k := m.K
	names := make([]string, m.Dim())
	names[0] = "mu1_std"
	for j := 1; j < k; j++ {
		names[j] = fmt.Sprintf("log_gap%d_std", j+1)
	}
	for j := range k {
		names[k+j] = fmt.Sprintf("log_sigma%d_std", j+1)
		if j < k-1 {
			names[2*k+j] = fmt.Sprintf("logit_w%d", j+1)
		}
	}
	var gen []string
	for _, q := range []string{"mu", "sigma", "w"} {
		for j := range k {
			gen = append(gen, fmt.Sprintf("%s_%d", q, j+1))
		}
	}
	for j := range k {
		gen = append(gen, MixtureClusterCol(j+1))
	}
	return Model{
		Terms: m, Names: names, Generated: gen,
		Generate: func(out, theta []float64) {
			var buf [32]float64
			p := finitemix.MixParams{Mu: buf[0:k], Sigma: buf[8 : 8+k], W: buf[16 : 16+k], LogW: buf[24 : 24+k]}
			m.Unpack(&p, theta)
			for j := range k {
				out[j] = m.Mean + m.SD*p.Mu[j]
				out[k+j] = m.SD * p.Sigma[j]
				out[2*k+j] = p.W[j]
			}
			// One pass, no N·K scratch: at 10⁶ values a draw's
			// generated quantities cost about a sweep's move 1.
			m.ClustersAt(out[3*k:], theta)
		},
		Curvature: mixtureCurvature(m),
		// A mixture's modes are what the run is for; the checks for a
		// stuck or drifting chain assume one.
		NoChainChecks: true,
		ownPlan: func(seed uint64, status *Status) (ChainPlan, string, error) {
			model := MixtureModel(m)
			model.ownPlan = nil
			p, err := newMixturePlan(model, m, seed, status)
			if err != nil {
				return nil, "", err
			}
			return p, p.Why(), nil
		},
	}
}

// MixtureClusters writes P(K+ = k | θ), k = 1…K, into out: the
// generated p_clusters columns alone, as the Gibbs reference scores them.
// It is safe for concurrent use.
func MixtureClusters(m *finitemix.FiniteMixture) func(out, theta []float64) {
	return m.ClustersAt
}

// MixtureClusterCol is the column of P(K+ = k | θ): the probability that
// the data's allocation to the components, drawn given the draw θ, leaves
// exactly k of them non-empty (the number of clusters of Malsiner-Walli,
// Frühwirth-Schnatter and Grün 2016). Its mean over the draws is the
// posterior probability of k clusters.
func MixtureClusterCol(k int) string { return fmt.Sprintf("p_clusters_%d", k) }

// mixtureCurvature is the curvature the automatic step size of the
// paper's methods reads: at θ = 0 (equal weights, unit gaps and sds) the
// mixture's Hessian is not positive definite, where the generic rule would
// start Newton's method, so it starts at the heaviest mode a search finds
// (SearchModes, as the plan's) and takes the Hessian's extreme
// eigenvalues there. The plan (--method auto) does not use it.
func mixtureCurvature(m *finitemix.FiniteMixture) func(seed uint64) (Curvature, error) {
	return func(seed uint64) (Curvature, error) {
		s, err := modes.SearchModes(m, make([]float64, m.Dim()), seed)
		if err != nil {
			return Curvature{}, err
		}
		if len(s.Modes) == 0 {
			return Curvature{}, fmt.Errorf("the mixture's mode search found no mode in %d searches (give --eta)", s.Starts)
		}
		mode, lmin, lmax, err := mala.Curvature(m, s.Modes[0].Theta)
		if err != nil {
			return Curvature{}, fmt.Errorf("%w (give --eta)", err)
		}
		return Curvature{Lmin: lmin, Lmax: lmax, Mode: mode, Note: "λ_max at the heaviest mode a search found"}, nil
	}
}
