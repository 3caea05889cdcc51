package analysis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/dataset"
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

// Unstandardised columns whose sizes differ beyond 1/√ε are refused with
// both columns named and the remedy; just under, accepted: a column of
// normal draws ×3e7 beside the intercept was sampled, ×1e8 made the mode's
// Hessian near-singular. Without the intercept, one column alone has
// nothing to differ from.
func TestRawScaleSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	read := func(scale float64) *dataset.Data {
		var b strings.Builder
		b.WriteString("x1,x2,y\n")
		for i := range 200 {
			fmt.Fprintf(&b, "%g,%g,%d\n", scale*rng.NormFloat64(), rng.NormFloat64(), i%2)
		}
		d, err := dataset.Read(strings.NewReader(b.String()), "d.csv", dataset.Options{Label: "y", NoStandardize: true})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := RawScale(read(3e7), true); err != nil {
		t.Errorf("×3e7: %v", err)
	}
	err := RawScale(read(1e8), true)
	if err == nil || !strings.Contains(err.Error(), `column 1's ("x1") values have a root mean square of 1`) || !strings.Contains(err.Error(), "drop --no-standardize") {
		t.Errorf("×1e8: %v", err)
	}
	if err := RawScale(read(1e100), false); err == nil || !strings.Contains(err.Error(), `column 2's ("x2")`) {
		t.Errorf("×1e100 beside x2, no intercept: %v", err)
	}
}
