package plan

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/modes"
)

// heavy2 is a 2-d product of Student-t densities with 2 degrees of
// freedom: NUTS's transitions there vary in length and energy, so the
// running sums of a chain's diagnostics move.
type heavy2 struct{}

func (heavy2) Dim() int { return 2 }

func (heavy2) U(x []float64) float64 {
	u := 0.0
	for _, v := range x {
		u += 1.5 * math.Log1p(v*v/2)
	}
	return u
}

func (heavy2) Grad(g, x []float64) {
	for i, v := range x {
		g[i] = 1.5 * v / (1 + v*v/2)
	}
}

// A NUTS chain restored from its sampler's checkpoint goes on as the
// uninterrupted one: the same draws, the same gradient count (it reused
// U and ∇U at the state it left; a resumed run counted one more), and
// the same divergences, depths and E-BFMI sums (they restarted from zero,
// so a resumed run forgot the divergences before its interrupt).
func TestNUTSResumeKeepsItsCounts(t *testing.T) {
	np, err := NewNUTSPlan(modes.EnergyTerms(heavy2{}), []int{1}, 3, nil, nil, nil, "test", NewStatus(context.Background(), 0))
	if err != nil {
		t.Fatal(err)
	}
	const half = 400
	whole, err := np.Sampler(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]float64
	for range 2 * half {
		if err := whole.Step(); err != nil {
			t.Fatal(err)
		}
		want = append(want, slices.Clone(whole.State(0)))
	}
	w := *np.chains[1]
	wantUnits := whole.Units()

	first, err := np.Sampler(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for range half {
		if err := first.Step(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := first.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := np.Sampler(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for i := half; i < 2*half; i++ {
		if err := resumed.Step(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(resumed.State(0), want[i]) {
			t.Fatalf("step %d: the resumed chain is at %v, the whole one at %v", i+1, resumed.State(0), want[i])
		}
	}
	r := *np.chains[1]
	if r.n != w.n || r.divergent != w.divergent || r.atMax != w.atMax || r.dSq != w.dSq || r.m2 != w.m2 || r.mean != w.mean {
		t.Errorf("resumed diagnostics n %d, divergent %d, at max %d, ΣΔE² %g; whole %d, %d, %d, %g", r.n, r.divergent, r.atMax, r.dSq, w.n, w.divergent, w.atMax, w.dSq)
	}
	if got := resumed.Units(); got != wantUnits {
		t.Errorf("the resumed chain counts %g gradients, the whole one %g", got, wantUnits)
	}
	t.Logf("%d transitions, %d divergent, %g gradients", w.n, w.divergent, wantUnits)
}
