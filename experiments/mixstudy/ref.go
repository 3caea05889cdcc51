package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/mixtable"
	"github.com/fresgld/fresgld/plan"
)

// Quantities are the study's scored quantities of a K-component mixture:
// P(K+ = k), k = 1 … K (Rao–Blackwellised, the p_clusters_k columns),
// then the components' means, sds and weights in the data's units,
// ordered by mean, as fresgld mixture's two tables print them.
func Quantities(k int) []string {
	var q []string
	for j := range k {
		q = append(q, plan.MixtureClusterCol(j+1))
	}
	for _, s := range []string{"mu", "sigma", "w"} {
		for j := range k {
			q = append(q, fmt.Sprintf("%s_%d", s, j+1))
		}
	}
	return q
}

// Reference is a reference's file: each quantity's mean, MCSE, R̂ and
// bulk ESS, with the run that gave them.
type Reference struct {
	Data, Column string
	K            int
	E0           float64
	Names        []string
	Mean, MCSE   []float64
	Rhat, ESS    []float64
	Chains       int
	Sweeps       int
	Seconds      float64
	Converged    bool
	Problem      string
	Method       string
}

// runReference runs the collapsed Gibbs reference (finitemix.FiniteMixture.
// Reference: collapsed in the weights, threshold split–merge moves, ≥ 4
// over-dispersed chains) on the study's quantities and writes it as JSON.
func runReference(data, col string, k int, e0 float64, chains, sweeps int, seed uint64, out string) error {
	c, err := dataset.ReadColumn(data, col, false)
	if err != nil {
		return err
	}
	m, err := finitemix.NewFiniteMixture(c.Values, k, e0)
	if err != nil {
		return err
	}
	// The command's reference quantities (fresgld mixture --reference), in
	// the study's names.
	_, f := mixtable.Quantities(m)
	names := Quantities(k)
	ref, err := m.Reference(chains, sweeps, seed, f, len(names))
	if err != nil {
		return err
	}
	ref.Name(names)
	r := Reference{Data: data, Column: col, K: k, E0: e0, Names: names, Mean: ref.Mean, MCSE: ref.MCSE, Rhat: ref.Rhat, ESS: ref.ESS,
		Chains: ref.Chains, Sweeps: ref.Sweeps, Seconds: ref.Seconds, Converged: ref.Converged, Problem: ref.Problem,
		Method: "finitemix.FiniteMixture.Reference: collapsed Gibbs (weights integrated out) with threshold split–merge moves, over-dispersed starts"}
	for i, v := range r.Rhat {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			r.Rhat[i] = -1
		}
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	fmt.Printf("%s %s: converged %v %s (%.0f s)\n", data, col, r.Converged, r.Problem, r.Seconds)
	return os.WriteFile(out, b, 0o644)
}
