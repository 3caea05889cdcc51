package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
)

// The drift check fires on a chain moving steadily outward and not on a
// stationary one of the same length.
func TestDriftCheck(t *testing.T) {
	const n = 2000
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func(drift float64) chainChecks {
		tr := exchange.Trace{P: 2}
		for i := range n {
			tr.Data = append(tr.Data, rng.NormFloat64(), 1+drift*float64(i)/n+rng.NormFloat64())
		}
		return chainChecks{trace: tr, names: []string{"a", "b"}}
	}
	// A drift of 20 sds over the run moves the half means 10 sds apart, with
	// within-half sds near √(1 + 10²/12) ≈ 3.05: z ≈ 3.3 > driftSDs.
	if w := mk(20).drifting(); w == nil || !strings.Contains(w.Message, "coefficient b") {
		t.Errorf("steady drift not reported: %v", w)
	}
	// Stationary: half means differ by about √(2/1000) ≈ 0.045 sds.
	if w := mk(0).drifting(); w != nil {
		t.Errorf("stationary chain reported: %q", w.Message)
	}
}
