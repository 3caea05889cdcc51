package results

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// Shortfall is the factor the draws must grow by for the worst variable to
// meet the verdict: the bulk ESS's 400 (or 100 a chain) over its ESS, or
// its R̂'s excess over the threshold's, whichever is larger; 1 where every
// variable meets both; NaN where one is not finite. It fails with either
// term dropped, inverted or scaled, or with the judged variables not the
// verdict's (a Stan model's constant generated quantity is not judged).
func TestShortfall(t *testing.T) {
	row := func(name string, sd, ess, rhat float64) ParamRow {
		return ParamRow{Name: name, Summary: diag.Summary{SD: sd, ESSBulk: ess, Rhat: rhat}}
	}
	four := []int{1, 2, 3, 4}
	stan := [][2]string{{"stan", "m.stan"}}
	for _, c := range []struct {
		name   string
		rows   []ParamRow
		chains []int
		want   float64
		worst  string
	}{
		{"met", []ParamRow{row("a", 1, 400, 1.01)}, four, 1, ""},
		{"ess", []ParamRow{row("a", 1, 800, 1.0), row("b", 1, 250, 1.001)}, four, 1.6, "b"},
		{"ess per chain", []ParamRow{row("a", 1, 500, 1.0)}, []int{1, 2, 3, 4, 5, 6}, 1.2, "a"},
		{"rhat", []ParamRow{row("a", 1, 1000, 1.015), row("b", 1, 380, 1.0)}, four, 1.5, "a"},
		{"constant generated", []ParamRow{row("a", 1, 1000, 1.0), row("z", 0, math.NaN(), math.NaN())}, four, 1, ""},
	} {
		s := Summary{Parameters: c.rows, DiagChains: c.chains}
		f, w := Shortfall(s, stan)
		if math.Abs(f-c.want) > 1e-12 || w.Name != c.worst {
			t.Errorf("%s: shortfall %v of %q, want %v of %q", c.name, f, w.Name, c.want, c.worst)
		}
	}
	// A stuck parameter (NaN R̂) is judged, and the shortfall is NaN.
	s := Summary{Parameters: []ParamRow{row("a", 0, math.NaN(), math.NaN())}, DiagChains: four}
	if f, _ := Shortfall(s, nil); !math.IsNaN(f) {
		t.Errorf("a stuck parameter: shortfall %v, want NaN", f)
	}
}
