package analysis

import (
	"testing"
)

// As many draws of as many coefficients on tall data are the user's call:
// refused only where p > N.
func TestHeldDrawsTall(t *testing.T) {
	if err := heldDraws(5000, 3001, 4, 3001); err != nil {
		t.Errorf("p = N: %v", err)
	}
	if err := heldDraws(5000, 3001, 4, 20); err == nil {
		t.Error("p > N with 6·10⁷ numbers: not refused")
	}
}
