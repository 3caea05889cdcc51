package plan

import (
	"strings"
	"testing"
)

// rejectingTerms is a model that has rejected states, as modelproc.Model
// and stan.Native report them.
type rejectingTerms struct{ n int64 }

func (*rejectingTerms) Dim() int                              { return 1 }
func (*rejectingTerms) Len() int                              { return 1 }
func (*rejectingTerms) Term(grad, _ []float64, _ int) float64 { clear(grad); return 0 }
func (*rejectingTerms) Prior(grad, x []float64) float64 {
	if grad != nil {
		grad[0] = x[0]
	}
	return x[0] * x[0] / 2
}

func (r *rejectingTerms) Rejected() (int64, string) { return r.n, "outside support" }

// Divergences on a model that rejected states name the rejects and the
// remedy for a support's edge, beside --adapt-delta; without rejects, the
// warning is as before.
func TestDivergenceWarningNamesRejects(t *testing.T) {
	// The mode search's 2 rejects, before the warmups, are not the
	// divergences' cause, nor 10 rejects beside 490 divergences.
	for _, n := range []int64{2, 12, 1986} {
		np := &NUTSPlan{t: &rejectingTerms{n: n}, rejects0: 2, deltaFlag: true, chains: map[int]*nutsChain{1: {n: 1000, divergent: 490}}}
		np.cfg.Delta = 0.8
		var msg string
		for _, w := range np.Warnings() {
			if w.Code == "divergent" {
				msg = w.Message
			}
		}
		if !strings.Contains(msg, "490 of 1000 NUTS transitions") || !strings.Contains(msg, "raise --adapt-delta (now 0.8) to 0.9") {
			t.Errorf("%d rejects: %q", n, msg)
		}
		if named := strings.Contains(msg, `the model rejected 1984 states in NUTS's warmups and transitions (the latest: "outside support")`) && strings.Contains(msg, "unconstrained parameter"); named != (n-2 >= 490) {
			t.Errorf("%d rejects: %q", n, msg)
		}
	}
}
