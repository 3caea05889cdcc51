package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/plan"
)

// TestDefaultsForecastsTheNoise checks that a Go caller gets the forecast:
// Defaults (which analysis.Run calls before sampling) on the heavy-tailed
// logistic regression with correlated features, a forced batch of 64 and
// the corrected method, puts a clamp-heat warning in Result.Warnings that
// says the sds come out too small, with a negative Number (the forecast
// variance ratio minus 1 at the coordinate the noise moves most). It fails
// if Defaults stops calling the forecast or drops its warning.
func TestDefaultsForecastsTheNoise(t *testing.T) {
	l := testenergy.Logistic(t, 0.6)
	o := DefaultOptions()
	o.Method, o.Batch = exchange.CorrectedMethod, 64
	var res Result
	if _, err := Defaults(context.Background(), plan.Model{Terms: l}, &o, &res); err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if w.Code == "clamp-heat" {
			t.Log(w.Message)
			if !strings.Contains(w.Message, "too small") || !(w.Number < -0.05) {
				t.Errorf("clamp-heat warning %q, number %.4f: want too small, below −0.05", w.Message, w.Number)
			}
			return
		}
	}
	t.Errorf("no clamp-heat warning among %v", res.Warnings)
}
