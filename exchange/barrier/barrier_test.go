package barrier

import (
	"math"
	"testing"
)

// TestNewRefuses: a rejection rate that is no probability, or
// temperatures that do not increase, are refused.
func TestNewRefuses(t *testing.T) {
	if _, err := New([]float64{1, 2, 3}, []float64{0.1, math.NaN()}); err == nil {
		t.Error("New accepted a NaN rejection rate")
	}
	if _, err := New([]float64{1, 1, 3}, []float64{0.1, 0.2}); err == nil {
		t.Error("New accepted equal temperatures")
	}
}
