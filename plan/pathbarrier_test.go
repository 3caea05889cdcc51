package plan

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/modes"
)

// valley is U(x, y) = h(x² − 1)² + (y − c(1 − x²))²/(2s²): two modes at
// (±1, 0), U = 0, joined by the curved valley y = c(1 − x²), along which
// U = h(x² − 1)². The lowest path's barrier is exactly h, at (0, c); the
// straight segment crosses x = 0 at y = 0, h + c²/(2s²) high.
type valley struct{ h, c, s float64 }

func (v valley) Dim() int { return 2 }

func (v valley) U(t []float64) float64 {
	x, y := t[0], t[1]
	r := y - v.c*(1-x*x)
	return v.h*(x*x-1)*(x*x-1) + r*r/(2*v.s*v.s)
}

func (v valley) Grad(g, t []float64) {
	x, y := t[0], t[1]
	r := y - v.c*(1-x*x)
	g[0] = 4*v.h*x*(x*x-1) + r*2*v.c*x/(v.s*v.s)
	g[1] = r / (v.s * v.s)
}

// The plan sizes its ladder of MALA levels from the segment's barrier, not
// the lowest path's (see NewModePlan): on the valley (pass h = 5 nats,
// segment 27.2) its hottest level is at τ = 27.2/planBarrier, 5 levels
// in two dimensions where the pass would give 3.
func TestModePlanLadderFromSegment(t *testing.T) {
	v := valley{h: 5, c: 2, s: 0.3}
	m := Model{Terms: modes.EnergyTerms(v)}
	s, err := modes.SearchModes(m.Terms, []float64{0.5, 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := NewModePlan(m, s, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	seg := v.h + v.c*v.c/(2*v.s*v.s)
	if top := mp.Taus[len(mp.Taus)-1]; math.Abs(top-seg/planBarrier) > 0.01 || len(mp.Taus) != 5 {
		t.Errorf("ladder %v, want 5 levels up to %.4g; %s", mp.Taus, seg/planBarrier, mp.Note())
	}
}
