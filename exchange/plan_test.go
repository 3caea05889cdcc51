package exchange

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestPlanBounds checks each bound of a Plan: one step past it is refused
// with an error naming the setting, and the bound itself is accepted.
func TestPlanBounds(t *testing.T) {
	s := unitLadder(t)
	top := s.Levels() - 1
	for _, c := range []struct {
		p    Plan
		want string
	}{
		{Plan{Burn: -1, Keep: 1, Thin: 1}, "burn-in"},
		{Plan{Keep: 0, Thin: 1}, "samples to keep"},
		{Plan{Keep: 1, Thin: 0}, "thinning"},
		{Plan{Keep: 1, Thin: 1, Budget: -1}, "cost budget"},
		{Plan{Keep: 1, Thin: 1, Budget: math.NaN()}, "cost budget"},
		{Plan{Keep: 1, Thin: 1, Level: -1}, fmt.Sprintf("levels 0..%d", top)},
		{Plan{Keep: 1, Thin: 1, Level: top + 1}, fmt.Sprintf("levels 0..%d", top)},
	} {
		if err := c.p.validate(s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.p, err, c.want)
		}
	}
	for _, p := range []Plan{{Keep: 1, Thin: 1}, {Keep: 1, Thin: 1, Level: top}} {
		if err := p.validate(s); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
}
