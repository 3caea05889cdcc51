package results

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
)

// The values adaptation froze at the end of burn-in are written in a
// chain's trailing lines and read back unchanged.
func TestFrozenLine(t *testing.T) {
	f := &exchange.Frozen{Step: 2000, Batch: []int{32, 7}, EnergySize: []int{32, 19}, Anchors: [][]float64{{0.5, -1.25}, {3, 0}}}
	st := ChainStats{Steps: 3000, Clamped: []int64{0, 0}, Frozen: FrozenNote(f)}
	want := "2000: minibatch sizes by level 32, 7; swap-energy sizes 32, 19; swap anchors at each replica's state at step 2000; anchor of replica 1 at (0.5, -1.25); anchor of replica 2 at (3, 0)"
	if st.Frozen != want {
		t.Errorf("frozen note %q, want %q", st.Frozen, want)
	}
	var back ChainStats
	found := false
	for _, l := range st.Lines() {
		found = found || strings.HasPrefix(l, statFrozen)
		if err := back.parse(l); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	if !found || back.Frozen != st.Frozen {
		t.Errorf("frozen line written %v, read back as %q", found, back.Frozen)
	}
	if FrozenNote(nil) != "" {
		t.Errorf("a sampler that never froze has the note %q", FrozenNote(nil))
	}
}
