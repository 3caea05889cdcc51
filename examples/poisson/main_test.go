package main

import (
	"io"
	"math"
	"testing"
)

// The example runs whole (four chains of 1000 draws by package analysis's
// defaults) and its posterior agrees with MALA's:
//   - every mean within 4 combined Monte Carlo standard errors,
//     √(MCSE² + SE²), the run's MCSE from its summary and MALA's by batch
//     means (a normal deviate beyond 4 has probability 6·10⁻⁵);
//   - every sd within 4/√(2·ESS) relatively (the relative sd of an sd
//     estimated from ESS effective draws is about 1/√(2·ESS)) plus the
//     bias bound the run states (0 for the plan's Metropolis-adjusted
//     chain; a bound below 0.1 otherwise).
func TestExampleAgainstMALA(t *testing.T) {
	c, err := run(io.Discard, io.Discard, t.TempDir(), 1000, 100_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	bias := c.SDBias
	if !(bias >= 0 && bias < 0.1) {
		t.Fatalf("the run states an sd bias of %v", bias)
	}
	for _, r := range c.Rows {
		if !(math.Abs(r.Z()) <= 4) {
			t.Errorf("%s: mean %v, MALA %v: %.2f combined MCSE apart", r.Name, r.Mean, r.RefMean, r.Z())
		}
		tol := 4/math.Sqrt(2*r.ESS) + bias
		if !(math.Abs(r.SD/r.RefSD-1) <= tol) {
			t.Errorf("%s: sd %v, MALA %v: ratio %.4f beyond 1 ± %.4f", r.Name, r.SD, r.RefSD, r.SD/r.RefSD, tol)
		}
	}
}
