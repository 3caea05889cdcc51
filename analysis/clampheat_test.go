package analysis

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/plan"
)

// TestHeatWarningNamesTheDirection checks the warning given before
// sampling through the Go API (Defaults puts it in Result.Warnings): on the
// heavy-tailed data at n = 64 it says the sds come out too small, with a
// negative Number of the forecast's size, and a remedy batch at which the
// forecast is within the tolerance; at n = 16 it says too large; with
// uncorrelated features and n = 64 (the clamp alone, sds ≈ 1.10 measured) it
// says too large; at the whole data set (n = N) it says nothing. A warning
// that kept the clamp-only sign fails the n = 64 case; one that never fires
// fails all three.
func TestHeatWarningNamesTheDirection(t *testing.T) {
	for _, c := range []struct {
		rho  float64
		n    int
		want string // "small", "large" or "" (no warning)
	}{
		{0.6, 64, "small"},
		{0.6, 16, "large"},
		{0, 64, "large"},
		{0.6, 500, ""},
	} {
		l := testenergy.Logistic(t, c.rho)
		mode, lmax := testenergy.Mode(t, l)
		o := DefaultOptions()
		o.Method, o.Batch, o.Eta = exchange.CorrectedMethod, c.n, 0.2/lmax
		m := plan.Model{Terms: l}
		var res Result
		w, err := heatWarning(m, o, mode)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if w != nil {
				t.Errorf("rho %v, n = %d: warning %q, want none", c.rho, c.n, w.Message)
			}
			continue
		}
		if w == nil {
			t.Errorf("rho %v, n = %d: no warning, want %q", c.rho, c.n, c.want)
			continue
		}
		res.warn(nil, *w)
		t.Log(w.Message)
		if !strings.Contains(w.Message, "too "+c.want) || (w.Number < 0) != (c.want == "small") {
			t.Errorf("rho %v, n = %d: warning %q (number %.4f), want too %s", c.rho, c.n, w.Message, w.Number, c.want)
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Code != "clamp-heat" {
			t.Errorf("the result's warnings %v", res.Warnings)
		}
		if !strings.HasPrefix(w.Remedy, "--batch ") && !strings.Contains(w.Remedy, "--eta") {
			t.Errorf("remedy %q names no flag", w.Remedy)
		}
	}
}
