package modes

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/results"
)

// occupancyRhat is the split R̂ of a mode's indicator above which the
// chains are said not to have crossed between the modes: the same 1.01
// the table's R̂ is judged by would fire on every short run of a
// two-mode posterior, where each chain's share of a mode is a binomial
// count with long runs; 1.05 means the chains' shares differ by several
// of their own standard errors.
const occupancyRhat = 1.05

// Occupancy is the share of a chain's draws nearest each mode the search
// found (in the metric of the mode's Hessian), and the pooled share.
type Occupancy struct {
	Chain  [][]float64 // Chain[c][k]: chain c's share at mode k
	Pooled []float64
	Rhat   []float64 // split R̂ of each mode's indicator over the chains
	names  []string  // the parameters, as the modes' coordinates are named
	kept   []int     // the index, among the chains given, of each in Chain
}

// Occupancy assigns every draw of the chains (their columns names, the
// parameters) to its nearest mode. A chain without draws (one that an
// interrupt stopped before it started) has no shares and is left out: its
// 0/0 made the warning say "the chains together NaN%".
func (s *ModeSearch) Occupancy(chains []*results.Chain, names []string) *Occupancy {
	var drawn []*results.Chain
	var kept []int
	for c, ch := range chains {
		if ch.Trace(names).Len() > 0 {
			drawn = append(drawn, ch)
			kept = append(kept, c)
		}
	}
	chains = drawn
	K, p := len(s.Modes), len(names)
	ind := make([][][]float64, K) // ind[k][c]: indicator trace
	for k := range ind {
		ind[k] = make([][]float64, len(chains))
	}
	d := mat.NewVecDense(p, nil)
	for c, ch := range chains {
		tr := ch.Trace(names)
		for i := 0; i < tr.Len(); i++ {
			x := tr.Data[i*p : (i+1)*p]
			best, bd := 0, math.Inf(1)
			for k, m := range s.Modes {
				for j := range x {
					d.SetVec(j, x[j]-m.Theta[j])
				}
				if v := mat.Inner(d, m.H, d); v < bd {
					best, bd = k, v
				}
			}
			for k := range ind {
				v := 0.0
				if k == best {
					v = 1
				}
				ind[k][c] = append(ind[k][c], v)
			}
		}
	}
	o := &Occupancy{Chain: make([][]float64, len(chains)), Pooled: make([]float64, K), Rhat: make([]float64, K), names: names, kept: kept}
	var n float64
	for c := range chains {
		o.Chain[c] = make([]float64, K)
		for k := range K {
			o.Chain[c][k] = stat.Mean(ind[k][c], nil)
			o.Pooled[k] += o.Chain[c][k] * float64(len(ind[k][c]))
		}
		n += float64(len(ind[0][c]))
	}
	// R̂ needs chains of one length: the first draws of each, as many as
	// the shortest has, as the table's R̂ (an interrupted chain is
	// shorter; R̂ of unequal chains was NaN, which with shares of 46% and
	// 47% read as "no chain moved between it and the others").
	short := math.MaxInt
	for c := range chains {
		short = min(short, len(ind[0][c]))
	}
	for k := range K {
		o.Pooled[k] /= n
		cut := make([][]float64, len(chains))
		for c := range chains {
			cut[c] = ind[k][c][:short]
		}
		o.Rhat[k] = diag.Rhat(cut)
	}
	return o
}

// Warnings says, when the chains disagree on a mode's share beyond
// occupancyRhat, which chain and mode differ most from the pooled share.
// ids name the chains occupancy was given; those without draws it left out.
func (o *Occupancy) Warnings(s *ModeSearch, ids []int) []results.Warning {
	if len(o.Chain) == 0 {
		return nil
	}
	if o.kept != nil {
		all := ids
		ids = make([]int, len(o.kept))
		for c, i := range o.kept {
			ids[c] = all[i]
		}
	}
	worst, wr := -1, 0.0
	for k, r := range o.Rhat {
		if math.IsNaN(r) && o.disagree(k) {
			// No chain moved on or off mode k, yet their shares differ:
			// each sat wholly at or away from it (R̂'s within-chain
			// variance is 0), the plainest failure to cross.
			r = math.Inf(1)
		}
		if r > occupancyRhat && r > wr { // NaN left: every chain wholly at, or wholly away from, mode k
			worst, wr = k, r
		}
	}
	if worst < 0 {
		return nil
	}
	c := 0
	for i, sh := range o.Chain {
		if math.Abs(sh[worst]-o.Pooled[worst]) > math.Abs(o.Chain[c][worst]-o.Pooled[worst]) {
			c = i
		}
	}
	gap := math.Abs(o.Chain[c][worst] - o.Pooled[worst])
	rhat := fmt.Sprintf("R̂ of that mode's indicator %.3g", wr)
	if math.IsInf(wr, 1) {
		rhat = "no chain moved between it and the others"
	}
	return []results.Warning{{
		Code:   "modes-not-crossed",
		Number: gap,
		Message: fmt.Sprintf("the chains did not cross between the modes the search found: chain %d spent %.0f%% of its draws nearest mode %d (U = %.6g, Laplace weight %.3g), the chains together %.0f%% (%s); %s",
			ids[c], 100*o.Chain[c][worst], worst+1, s.Modes[worst].U, s.Modes[worst].Weight, 100*o.Pooled[worst], rhat, o.differ(s, worst)),
		Remedy: "let the plan run its ladder (drop --levels 1 if given), or run a ladder of your own (--method fresgld, more --levels and a higher --tau2), or a longer run (raise --keep); the modes' weights in this run are not to be trusted",
	}}
}

// differ says in which parameters mode k differs most from the heaviest
// other mode, so that the user knows which of their estimates the chains'
// disagreement moves: the two farthest apart in the other mode's
// conditional sds (1/√H_jj), with both modes' values; the second only
// if it is a sd or more apart.
func (o *Occupancy) differ(s *ModeSearch, k int) string {
	ref := 0
	if k == 0 {
		ref = 1
	}
	a, b := s.Modes[k], s.Modes[ref]
	z := make([]float64, len(o.names))
	idx := make([]int, len(o.names))
	for j := range z {
		z[j], idx[j] = math.Abs(a.Theta[j]-b.Theta[j])*math.Sqrt(b.H.At(j, j)), j
	}
	sort.SliceStable(idx, func(i, j int) bool { return z[idx[i]] > z[idx[j]] })
	var parts []string
	for i, j := range idx[:min(2, len(idx))] {
		if i > 0 && z[j] < 1 { // within a sd: not where they differ
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%.4g against %.4g, %.3g sds apart)", o.names[j], a.Theta[j], b.Theta[j], z[j]))
	}
	return fmt.Sprintf("mode %d differs most from mode %d in %s", k+1, ref+1, strings.Join(parts, " and "))
}

// disagree reports whether the chains' shares at mode k differ.
func (o *Occupancy) disagree(k int) bool {
	for _, sh := range o.Chain {
		if sh[k] != o.Chain[0][k] {
			return true
		}
	}
	return false
}
