package plan

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/modes"
)

// The plan sizes its ladder of MALA levels from the segment's barrier, not
// the lowest path's (see NewModePlan): on the valley (pass h = 5 nats,
// segment 27.2) its hottest level is at τ = 27.2/planBarrier, 5 levels
// in two dimensions where the pass would give 3.
func TestModePlanLadderFromSegment(t *testing.T) {
	v := testenergy.Valley{H: 5, C: 2, S: 0.3}
	m := Model{Terms: modes.EnergyTerms(v)}
	s, err := modes.SearchModes(m.Terms, []float64{0.5, 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := NewModePlan(m, s, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	seg := v.Segment()
	if top := mp.Taus[len(mp.Taus)-1]; math.Abs(top-seg/planBarrier) > 0.01 || len(mp.Taus) != 5 {
		t.Errorf("ladder %v, want 5 levels up to %.4g; %s", mp.Taus, seg/planBarrier, mp.Note())
	}
}
