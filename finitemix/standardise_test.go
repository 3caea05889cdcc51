package finitemix

import (
	"math"
	"strings"
	"testing"
)

// The mixture standardises its column whatever the values' size: values
// of 10⁻²⁹⁹ once squared their differences to 0 ("all 100 values are
// 1e-299"), values of 10²⁰⁰ to +Inf (a NaN start); both must give the
// standardised values of 1…100 to rounding. A constant column is refused
// by its value, and one whose values differ only by rounding (which once
// standardised to noise, a NaN start) as such.
func TestMixtureStandardisesAnyScale(t *testing.T) {
	base := make([]float64, 100)
	for i := range base {
		base[i] = float64(i + 1)
	}
	want, err := NewFiniteMixture(base, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{1e-299, 1e200} {
		y := make([]float64, len(base))
		for i, v := range base {
			y[i] = v * scale
		}
		m, err := NewFiniteMixture(y, 3, 1)
		if err != nil {
			t.Fatalf("values ×%g: %v", scale, err)
		}
		for i := range y {
			if math.Abs(m.Z[i]-want.Z[i]) > 1e-12 {
				t.Fatalf("values ×%g: z[%d] = %v, want %v", scale, i, m.Z[i], want.Z[i])
			}
		}
		if r := m.SD / (want.SD * scale); math.Abs(r-1) > 1e-12 {
			t.Errorf("values ×%g: sd %v, want %v", scale, m.SD, want.SD*scale)
		}
	}
	same := make([]float64, 50)
	near := make([]float64, 50)
	for i := range same {
		same[i], near[i] = 0.1, 0.1
		if i%2 == 1 {
			near[i] = math.Nextafter(0.1, 1)
		}
	}
	for _, c := range []struct {
		y    []float64
		want string
	}{{same, "all 50 values are 0.1"}, {near, "differ only in their last digits"}} {
		if _, err := NewFiniteMixture(c.y, 3, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}
