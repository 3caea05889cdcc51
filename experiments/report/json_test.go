package report

import (
	"encoding/json"
	"math"
	"testing"
)

// TestNumJSON checks that non-finite values become null and finite ones
// keep their value.
func TestNumJSON(t *testing.T) {
	b, err := json.Marshal(Nums2([][]float64{{1.5, math.NaN()}, {math.Inf(1), math.Inf(-1)}}))
	if err != nil || string(b) != "[[1.5,null],[null,null]]" {
		t.Errorf("got %s, %v", b, err)
	}
}
