package exchange

import (
	"math"
	"strings"
	"testing"
)

// TestFiniteDiff checks that a non-finite swap-energy difference or variance
// is refused with an error naming the pair of levels and the step, and that
// finite ones pass.
func TestFiniteDiff(t *testing.T) {
	if err := finiteDiff(2, 7, -1, 0); err != nil {
		t.Errorf("finite difference refused: %v", err)
	}
	for _, c := range [][2]float64{{math.NaN(), 0}, {math.Inf(-1), 0}, {1, math.NaN()}, {1, math.Inf(1)}} {
		err := finiteDiff(2, 7, c[0], c[1])
		if err == nil || !strings.Contains(err.Error(), "levels 2 and 3") || !strings.Contains(err.Error(), "step 7") {
			t.Errorf("difference %v, variance %v: error %v, want one naming levels 2 and 3 and step 7", c[0], c[1], err)
		}
	}
}
