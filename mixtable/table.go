// Package mixtable holds what fresgld mixture reports beyond the summary
// table: the probabilities of each number of clusters and the components
// in the data's units, read from a run's summary; the exact reference
// (--reference, finitemix's collapsed Gibbs sampler) run on the same
// quantities; and the comparison of the two, with the warnings that keep
// a run off the reference from being called trusted. It is separate from
// the command so that a program or a study can read a mixture run as the
// command does.
package mixtable

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// ClusterRow is one number of clusters' line of summary.json: the run's
// posterior probability with its MCSE and, with --reference, the
// reference's and the run's difference from it in MCSEs (the two MCSEs in
// quadrature).
type ClusterRow struct {
	Clusters int              `json:"clusters"`
	Prob     results.JSONNum  `json:"probability"`
	MCSE     results.JSONNum  `json:"mcse"`
	RefProb  *float64         `json:"reference,omitempty"`
	RefMCSE  *float64         `json:"reference_mcse,omitempty"`
	RefRhat  *float64         `json:"reference_rhat,omitempty"`
	Diff     *results.JSONNum `json:"difference_in_mcse,omitempty"`
}

// CompRow is one component's posterior means and sds in the data's units
// and, with --reference, the reference's posterior means of its mean, sd
// and weight with the run's differences from them in MCSEs (the two
// MCSEs in quadrature).
type CompRow struct {
	Component int             `json:"component"`
	Mean      results.JSONNum `json:"mean"`
	MeanSD    results.JSONNum `json:"mean_sd"`
	SD        results.JSONNum `json:"sd"`
	SDSD      results.JSONNum `json:"sd_sd"`
	Weight    results.JSONNum `json:"weight"`
	WeightSD  results.JSONNum `json:"weight_sd"`
	Ref       *CompRef        `json:"reference,omitempty"`
}

// CompRef is a component's reference row: [mean, sd, weight] each.
type CompRef struct {
	Value [3]float64         `json:"value"`
	MCSE  [3]float64         `json:"mcse"`
	Diff  [3]results.JSONNum `json:"difference_in_mcse"`
}

// Off is the difference, in MCSEs, beyond which a run's table is
// off the reference: a warning, so that such a run is never called
// trusted. At 3 a right run's 4K + K entries all pass with probability
// about 0.97 at K = 4 (each |z| > 3 with 0.0027, correlated).
const Off = 3

// Floor is the difference below which no entry is called off,
// whatever its MCSEs: a probability or weight within 0.001 (a mean or sd
// within 0.001 data sds). The MCSE of a rare event is itself unreliable:
// on R's precip a run's P(K+ = 1) of 3e-10 was 4.5 "MCSEs" from the
// reference's 6e-6, which 1.3e-6 understates when a few of its 720,000
// draws carry the whole mean.
const Floor = 0.001

// RefInfo is the reference's run in summary.json: Converged false
// when its over-dispersed chains disagree (R̂ above finitemix.MaxRhat) or
// are too few (bulk ESS below finitemix.MinESS), Problem saying which, with
// the numbers; then it is no exact answer.
type RefInfo struct {
	Method    string          `json:"method"`
	Chains    int             `json:"chains"`
	Sweeps    int             `json:"sweeps_per_chain"`
	Kept      int             `json:"kept_per_chain"`
	Seconds   float64         `json:"seconds"`
	Converged bool            `json:"converged"`
	MaxRhat   results.JSONNum `json:"max_rhat"`
	MinESS    results.JSONNum `json:"min_bulk_ess"`
	Problem   string          `json:"problem,omitempty"`
}

// RefMethod names the reference's sampler.
const RefMethod = "collapsed Gibbs (weights integrated out, the allocations one at a time; Neal 2000) with threshold split–merge moves, from over-dispersed starts: a different exact sampler from the default's (uncollapsed data augmentation, all allocations at once, sequentially allocated split–merge moves), sharing no code with it"

// Quantities are the reference's quantities for K components: the
// probabilities of k clusters, then the components' means, sds and
// weights in the data's units, ordered by mean.
func Quantities(m *finitemix.FiniteMixture) (names []string, f finitemix.MixFunc) {
	k := m.K
	for j := range k {
		names = append(names, fmt.Sprintf("P(K+ = %d)", j+1))
	}
	for _, q := range []string{"mean", "sd", "weight"} {
		for j := range k {
			names = append(names, fmt.Sprintf("component %d's %s", j+1, q))
		}
	}
	f = func(out, theta []float64, _ []int) {
		m.ClustersAt(out[:k], theta)
		var buf [32]float64
		p := finitemix.MixParams{Mu: buf[0:k], Sigma: buf[8 : 8+k], W: buf[16 : 16+k], LogW: buf[24 : 24+k]}
		m.Unpack(&p, theta)
		for j := range k {
			out[k+j] = m.Mean + m.SD*p.Mu[j]
			out[2*k+j] = m.SD * p.Sigma[j]
			out[3*k+j] = p.W[j]
		}
	}
	return names, f
}

// Reference runs the exact Gibbs sampler on the probabilities of
// each number of clusters, saying its cost and its convergence on stderr.
// A reference whose chains did not converge is returned (its caller warns
// and marks the comparison unreliable), never called exact.
func Reference(stderr io.Writer, m *finitemix.FiniteMixture, chains, sweeps int, seed uint64) (*finitemix.MixReference, error) {
	names, f := Quantities(m)
	ref, err := m.Reference(chains, sweeps, seed, f, len(names))
	if err != nil {
		// Found before any sampling: nothing is lost.
		return nil, fmt.Errorf("--reference: %w: there is no reference to trust; run without --reference", err)
	}
	ref.Name(names)
	rhat, ess := ref.Worst()
	if ref.Converged {
		fmt.Fprintf(stderr, "reference: %s, %d chains × %d sweeps (the first 10%% dropped) in %.1fs: converged (R̂ ≤ %.4f, bulk ESS ≥ %.0f of K+, the sorted means and P(K+ = k))\n",
			RefMethod, ref.Chains, ref.Sweeps, ref.Seconds, rhat, ess)
	} else {
		fmt.Fprintf(stderr, "reference: NOT CONVERGED: %s, in %d × %d sweeps (%.1fs); it is no exact answer, and the comparison with it below is unreliable\n",
			ref.Problem, ref.Chains, ref.Sweeps, ref.Seconds)
	}
	return ref, nil
}

// RefWarning is the warning of a reference that did not converge (nil
// without one, or when it converged).
func RefWarning(ref *finitemix.MixReference) []results.Warning {
	if ref == nil || ref.Converged {
		return nil
	}
	rhat, _ := ref.Worst()
	return []results.Warning{{Code: "reference_not_converged", Number: rhat,
		Message: fmt.Sprintf("the --reference is not an exact answer: %s; its probabilities, and the run's differences from them, are unreliable", ref.Problem)}}
}

// Info is the reference's run for summary.json (nil without one).
func Info(ref *finitemix.MixReference) *RefInfo {
	if ref == nil {
		return nil
	}
	rhat, ess := ref.Worst()
	return &RefInfo{Method: RefMethod, Chains: ref.Chains, Sweeps: ref.Sweeps, Kept: ref.Kept, Seconds: ref.Seconds,
		Converged: ref.Converged, MaxRhat: results.JSONNum(rhat), MinESS: results.JSONNum(ess), Problem: ref.Problem}
}

// Tables reads the number of clusters' table (beside the reference
// when there is one) and the components' from the run's summary.
func Tables(s results.Summary, k int, ref *finitemix.MixReference) ([]ClusterRow, []CompRow) {
	row := map[string]results.ParamRow{}
	for _, r := range s.Parameters {
		row[r.Name] = r
	}
	var clusters []ClusterRow
	for j := range k {
		p := row[plan.MixtureClusterCol(j+1)]
		c := ClusterRow{Clusters: j + 1, Prob: results.JSONNum(p.Mean), MCSE: results.JSONNum(p.MCSEMean)}
		if p.SD == 0 {
			c.MCSE = 0 // the same in every draw (0: no draw has j+1 clusters); diag's MCSE is NaN there
		}
		if ref != nil {
			rp, rm, rr := ref.Mean[j], ref.MCSE[j], ref.Rhat[j]
			d := results.JSONNum(mcseDiff(p.Mean-rp, math.Hypot(float64(c.MCSE), rm)))
			c.RefProb, c.RefMCSE, c.RefRhat, c.Diff = &rp, &rm, &rr, &d
		}
		clusters = append(clusters, c)
	}
	var comps []CompRow
	for j := range k {
		mu, sd, w := row[fmt.Sprintf("mu_%d", j+1)], row[fmt.Sprintf("sigma_%d", j+1)], row[fmt.Sprintf("w_%d", j+1)]
		c := CompRow{Component: j + 1, Mean: results.JSONNum(mu.Mean), MeanSD: results.JSONNum(mu.SD),
			SD: results.JSONNum(sd.Mean), SDSD: results.JSONNum(sd.SD), Weight: results.JSONNum(w.Mean), WeightSD: results.JSONNum(w.SD)}
		if ref != nil && len(ref.Mean) >= 4*k {
			r := &CompRef{}
			for q, p := range [3]results.ParamRow{mu, sd, w} {
				i := (q+1)*k + j
				r.Value[q], r.MCSE[q] = ref.Mean[i], ref.MCSE[i]
				r.Diff[q] = results.JSONNum(mcseDiff(p.Mean-ref.Mean[i], math.Hypot(p.MCSEMean, ref.MCSE[i])))
			}
			c.Ref = r
		}
		comps = append(comps, c)
	}
	return clusters, comps
}

// OffWarning is the warning of a run whose tables are more than
// Off MCSEs off a converged reference (nil when none is, or the
// reference did not converge: then RefWarning says so).
func OffWarning(ref *finitemix.MixReference, clusters []ClusterRow, comps []CompRow, dataSD float64) []results.Warning {
	if ref == nil || !ref.Converged {
		return nil
	}
	var off []string
	worst := 0.0
	for _, c := range clusters {
		if c.Diff != nil && math.Abs(float64(*c.Diff)) > Off && math.Abs(float64(c.Prob)-*c.RefProb) > Floor {
			off = append(off, fmt.Sprintf("P(K+ = %d) %.4f against %.4f (%.1f MCSEs)", c.Clusters, float64(c.Prob), *c.RefProb, float64(*c.Diff)))
			worst = max(worst, math.Abs(float64(*c.Diff)))
		}
	}
	for _, c := range comps {
		if c.Ref == nil {
			continue
		}
		run := [3]float64{float64(c.Mean), float64(c.SD), float64(c.Weight)}
		floor := [3]float64{Floor * dataSD, Floor * dataSD, Floor}
		for q, name := range [3]string{"mean", "sd", "weight"} {
			if d := float64(c.Ref.Diff[q]); math.Abs(d) > Off && math.Abs(run[q]-c.Ref.Value[q]) > floor[q] {
				off = append(off, fmt.Sprintf("component %d's %s %.4g against %.4g (%.1f MCSEs)", c.Component, name, run[q], c.Ref.Value[q], d))
				worst = max(worst, math.Abs(d))
			}
		}
	}
	if len(off) == 0 {
		return nil
	}
	return []results.Warning{{Code: "off_reference", Number: worst,
		Message: fmt.Sprintf("the run is more than %d MCSEs (its and the reference's in quadrature) off the converged --reference in %d entr(ies): %s; its chains missed part of the posterior or are too short to say: raise --keep, or run --seed with other values and compare", Off, len(off), strings.Join(off, "; "))}}
}

// mcseDiff is d/se: 0 where both are 0 (a number of clusters that neither
// the run nor the reference ever gives), not NaN.
func mcseDiff(d, se float64) float64 {
	if d == 0 {
		return 0
	}
	return d / se
}

// Write prints the number of clusters' table, beside the
// reference with one, and the components'.
func Write(w io.Writer, clusters []ClusterRow, comps []CompRow, ref *finitemix.MixReference) {
	fmt.Fprintln(w, "number of clusters K+ (non-empty components; Rao–Blackwellised, the p_clusters_k columns):")
	if ref != nil && !ref.Converged {
		fmt.Fprintf(w, "the reference did NOT converge (%s): its column and the differences from it are unreliable\n", ref.Problem)
	}
	if ref != nil {
		fmt.Fprintf(w, "%8s %11s %9s │ %11s %9s %12s\n", "clusters", "probability", "±mcse", "reference", "±mcse", "diff in mcse")
	} else {
		fmt.Fprintf(w, "%8s %11s %9s\n", "clusters", "probability", "±mcse")
	}
	for _, c := range clusters {
		if ref != nil {
			fmt.Fprintf(w, "%8d %11.4f %9.2g │ %11.4f %9.2g %12.2f\n", c.Clusters, c.Prob, c.MCSE, *c.RefProb, *c.RefMCSE, *c.Diff)
			continue
		}
		fmt.Fprintf(w, "%8d %11.4f %9.2g\n", c.Clusters, c.Prob, c.MCSE)
	}
	fmt.Fprintln(w, "components in the data's units, ordered by mean (posterior mean ± sd):")
	fmt.Fprintf(w, "%9s %23s %23s %17s\n", "component", "mean", "sd", "weight")
	for _, c := range comps {
		fmt.Fprintf(w, "%9d %23s %23s %17s\n", c.Component, pm(c.Mean, c.MeanSD, "%.4g"), pm(c.SD, c.SDSD, "%.4g"), pm(c.Weight, c.WeightSD, "%.3f"))
	}
	if ref == nil || len(comps) == 0 || comps[0].Ref == nil {
		return
	}
	fmt.Fprintln(w, "the reference's posterior means (± MCSE) and the run's differences from them in MCSEs:")
	fmt.Fprintf(w, "%9s %26s %26s %26s\n", "component", "mean", "sd", "weight")
	for _, c := range comps {
		var cell [3]string
		for q := range cell {
			cell[q] = fmt.Sprintf("%.4g ± %.2g (%+.1f)", c.Ref.Value[q], c.Ref.MCSE[q], float64(c.Ref.Diff[q]))
		}
		fmt.Fprintf(w, "%9d %26s %26s %26s\n", c.Component, cell[0], cell[1], cell[2])
	}
}

// pm is "mean ± sd" in format f.
func pm(mean, sd results.JSONNum, f string) string {
	return fmt.Sprintf(f+" ± "+f, float64(mean), float64(sd))
}
