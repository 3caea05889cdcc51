package tempering

import (
	"fmt"
	"math"
	"slices"

	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/plan"
)

// Mixture is fresgld mixture's model of y with k components and
// Dirichlet(e0) weights (fresgld mixture --dirichlet), scored by the
// posterior probability of each number of clusters K+, with the exact collapsed Gibbs sampler
// (finitemix.FiniteMixture.Reference) as the reference: 8 chains of 100,000
// sweeps, its MCSE from their effective sample size.
func Mixture(name string, y []float64, k int, e0 float64) (*Workload, error) {
	m, err := finitemix.NewFiniteMixture(y, k, e0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ref, err := m.Reference(8, 100_000, 1, func(out, theta []float64, _ []int) { Clusters(m, out, theta) }, k)
	if err != nil {
		return nil, fmt.Errorf("%s: the Gibbs reference: %w", name, err)
	}
	if !ref.Converged {
		return nil, fmt.Errorf("%s: the Gibbs reference: %s", name, ref.Problem)
	}
	w := &Workload{Name: name, Model: plan.MixtureModel(m), Ref: ref.Mean, Quantity: "probability of k clusters",
		RefNote: fmt.Sprintf("finitemix.FiniteMixture.Reference: the exact collapsed Gibbs sampler with threshold split–merge moves, %d chains × %d sweeps (%.3g s), largest MCSE %.2g, largest R̂ %.4f",
			ref.Chains, ref.Sweeps, ref.Seconds, slices.Max(ref.MCSE), slices.Max(ref.Rhat)),
		About: fmt.Sprintf("%d values, K = %d normals, Richardson and Green's prior (β fixed at its prior mean), ordered means, Dirichlet(%g) weights", len(y), k, e0),
		value: func(x float64) float64 { return x },
		stan:  stanData{kind: "mixture", y: m.Z, n: len(y), mix: m, values: stanClusters(m)}}
	for j := range k {
		w.Names = append(w.Names, plan.MixtureClusterCol(j+1))
	}
	return w, nil
}

// Clusters writes P(K+ = j | θ), j = 1 … K, into out.
func Clusters(m *finitemix.FiniteMixture, out, theta []float64) {
	r := make([]float64, m.K*m.Len())
	m.Responsibilities(r, m.NewParams(), theta)
	m.Clusters(out, r)
}

// stanClusters are the cluster probabilities of a NUTS draw (μ, τ, w),
// τ the precisions, through θ as the other samplers' are.
func stanClusters(m *finitemix.FiniteMixture) func(out, draw []float64) {
	return func(out, draw []float64) {
		k := m.K
		p := m.NewParams()
		for j := range k {
			p.Mu[j], p.Sigma[j], p.W[j] = draw[j], 1/math.Sqrt(draw[k+j]), draw[2*k+j]
		}
		theta := make([]float64, m.Dim())
		m.Pack(theta, p)
		Clusters(m, out, theta)
	}
}
