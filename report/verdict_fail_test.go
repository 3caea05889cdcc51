package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// R̂ far above 1 or a bulk ESS in single digits fails the run, at the
// thresholds defined once (RhatFail, ESSFailMin), each edge read both
// ways; the stuck run (R̂ 6.1e15) was only doubtful. A failed
// comparison with an exact answer on the same page keeps a run from
// trusted.
func TestJudgeFails(t *testing.T) {
	good := diag.Summary{SD: 1, ESSBulk: ESSTotalMin, Rhat: RhatMax}
	base := func() Judged {
		return Judged{Parameters: []Variable{{"x", good}}, Chains: 4, Draws: 4000}
	}
	cases := []struct {
		name  string
		edit  func(*Judged)
		level string
		why   string
	}{
		{"R̂ at 1.1", func(j *Judged) { j.Parameters[0].Rhat = RhatFail }, Doubtful, "R̂ > 1.01"},
		{"R̂ past 1.1", func(j *Judged) { j.Parameters[0].Rhat = math.Nextafter(RhatFail, 2) }, Failed, "exceeds 1.1"},
		{"stuck, R̂ 6.1e15", func(j *Judged) { j.Parameters[0].Rhat = 6091493150819684 }, Failed, "R̂ of 6.091e+15"},
		{"NaN R̂", func(j *Judged) { j.Parameters[0].Rhat = math.NaN() }, Doubtful, "R̂ > 1.01"},
		{"ESS 10", func(j *Judged) { j.Parameters[0].ESSBulk = ESSFailMin }, Doubtful, "bulk ESS"},
		{"ESS 9.9", func(j *Judged) { j.Parameters[0].ESSBulk = 9.9 }, Failed, "bulk ESS of 9.9 is below 10"},
		{"exact failed", func(j *Judged) { j.ExactFailed = []string{"P(x1 in the slab): 1 against 0.5 exact"} }, Doubtful, "exact answer, below, failed: P(x1"},
	}
	for _, c := range cases {
		j := base()
		c.edit(&j)
		v := Judge(j)
		if v.Level != c.level || !strings.Contains(strings.Join(v.Reasons, "; "), c.why) {
			t.Errorf("%s: %s %q, want %s with %q", c.name, v.Level, v.Reasons, c.level, c.why)
		}
	}
}

// The perfect fit: the run holds x1 in the slab in every draw
// (MCSE 0) where the exact posterior says 0.5, and its means lie 9.25
// exact sds off. The row was "not judged (constant)", and the report
// trusted the run beside it.
func TestExactFailuresConstantRow(t *testing.T) {
	tab := ExactTable("", []ExactRow{
		{Name: "P(x1 in the slab)", Run: 1, MCSE: 0, Exact: 0.5},
		{Name: "P(x2 in the slab)", Run: 1, MCSE: 0, Exact: 1},
		{Name: "posterior mean of x1", Run: 2, MCSE: 0.01, Exact: 2.01},
	})
	byKey := map[string]json.RawMessage{"distance_to_exact": json.RawMessage(`{"max_mean_error_sds": 9.25, "max_mean_error_mcse": 0.01}`)}
	got := exactFailures(tab, byKey)
	if len(got) != 2 || !strings.Contains(got[0], "P(x1 in the slab): 1 against 0.5 exact") || !strings.Contains(got[1], "9.25 exact sds") {
		t.Errorf("failures %q, want x1's inclusion and the 9.25-sd mean error", got)
	}
}
