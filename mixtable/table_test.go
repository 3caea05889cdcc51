package mixtable

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/results"
)

// A run more than Off MCSEs off a converged reference, in a
// probability of k clusters or a component's mean, sd or weight, gets the
// off_reference warning naming the entry (so it is never trusted); within
// it, or beside a reference that did not converge (RefWarning's case),
// none.
func TestMixtureOffReference(t *testing.T) {
	ref := &finitemix.MixReference{Converged: true}
	d := func(x float64) *results.JSONNum { v := results.JSONNum(x); return &v }
	p := 0.5
	clusters := []ClusterRow{{Clusters: 1, Prob: 0.5, RefProb: &p, Diff: d(2.9)}}
	comps := []CompRow{{Component: 2, Mean: 1.92, Ref: &CompRef{Value: [3]float64{1.778, 0.2, 0.1}, Diff: [3]results.JSONNum{2.99, -1, 0}}}}
	if w := OffWarning(ref, clusters, comps, 1); w != nil {
		t.Errorf("within 3 MCSEs: %v", w)
	}
	comps[0].Ref.Diff[0] = 57
	w := OffWarning(ref, clusters, comps, 1)
	if len(w) != 1 || w[0].Code != "off_reference" || !strings.Contains(w[0].Message, "component 2's mean 1.92 against 1.778 (57.0 MCSEs)") {
		t.Errorf("57 MCSEs off: %v", w)
	}
	clusters[0].Prob, clusters[0].Diff = 0.48, d(-3.2)
	comps[0].Ref.Diff[0] = 0
	if w := OffWarning(ref, clusters, comps, 1); len(w) != 1 || !strings.Contains(w[0].Message, "P(K+ = 1) 0.4800 against 0.5000 (-3.2 MCSEs)") {
		t.Errorf("P(K+) 3.2 MCSEs off: %v", w)
	}
	// A rare event's tiny difference is not called off, whatever its
	// MCSEs say (Floor).
	clusters[0].Prob, clusters[0].Diff = 0.5008, d(-4.5)
	if w := OffWarning(ref, clusters, comps, 1); w != nil {
		t.Errorf("0.0008 off: %v", w)
	}
	ref.Converged = false
	if w := OffWarning(ref, clusters, comps, 1); w != nil {
		t.Errorf("beside an unconverged reference: %v", w)
	}
}
