package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// The verdict reads every threshold at its edge: a value on the right
// side is trusted, the next float past it doubtful, a NaN doubtful, a
// constant not judged; a chain stopped on an error fails the run.
func TestJudge(t *testing.T) {
	good := diag.Summary{SD: 1, ESSBulk: ESSTotalMin, Rhat: RhatMax}
	pair := Pair{Levels: [2]int{1, 2}, Attempts: 1000, Accepts: int(SwapAcceptMin * 1000)}
	base := func() Judged {
		return Judged{Parameters: []Variable{{"x", good}, {"c", diag.Summary{SD: 0, Rhat: math.NaN(), ESSBulk: math.NaN()}}},
			Chains: 4, Pairs: []Pair{pair}, Draws: 4000}
	}
	if v := Judge(base()); v.Level != Trusted || len(v.Reasons) != 0 {
		t.Fatalf("a run on every threshold: %+v, want trusted", v)
	}
	checkJudged(t, base, []judgeCase{
		{"R̂ past 1.01", func(j *Judged) { j.Parameters[0].Rhat = math.Nextafter(RhatMax, 2) }, Doubtful, "R̂ > 1.01"},
		{"NaN R̂", func(j *Judged) { j.Parameters[0].Rhat = math.NaN() }, Doubtful, "R̂ > 1.01"},
		{"ESS below 400", func(j *Judged) { j.Parameters[0].ESSBulk = ESSTotalMin - 1 }, Doubtful, "bulk ESS"},
		{"ESS below 100 a chain", func(j *Judged) { j.Chains = 5 }, Doubtful, "bulk ESS"},
		{"NaN ESS", func(j *Judged) { j.Parameters[0].ESSBulk = math.NaN() }, Doubtful, "bulk ESS"},
		{"few swaps", func(j *Judged) { j.Pairs[0].Accepts-- }, Doubtful, "levels 1–2 accepted 0.099"},
		{"a warning", func(j *Judged) { j.Warnings = 1 }, Doubtful, "1 warning"},
		{"interrupted", func(j *Judged) { j.Stopped = []string{"chain 2 interrupted after 10 draws"} }, Doubtful, "chain 2 interrupted"},
		{"stopped on an error", func(j *Judged) { j.Failed, j.Stopped = true, []string{"chain 1 stopped on an error"} }, Failed, "chain 1 stopped"},
		{"no draws", func(j *Judged) { j.Draws = 0 }, Failed, "no draws"},
	})
}

// A row passes within ExactTolerance MCSEs and fails past them; a row
// without an MCSE, or one below float precision, is not judged, and a NaN
// never passes.
func TestExactTable(t *testing.T) {
	tb := ExactTable("", []ExactRow{
		{"in", 1 + (ExactTolerance-0.1)*0.01, 0.01, 1},
		{"out", 1 + (ExactTolerance+0.1)*0.01, 0.01, 1},
		{"const", 1, 0, 1},
		{"float", 1, 1e-17, 1 - 1e-14},
		{"nan", math.NaN(), 0.01, 1},
	})
	want := map[string]string{"in": "pass", "out": "FAIL", "const": "not judged", "float": "not judged", "nan": "FAIL"}
	for _, r := range tb.Rows {
		if got := r[len(r)-1].Text; !strings.HasPrefix(got, want[r[0].Text]) {
			t.Errorf("%s: %q, want %q", r[0].Text, got, want[r[0].Text])
		}
	}
}

// Settings chosen automatically read "auto" (with the value chosen where
// the run recorded one), a 0 that stands for automatic or off says so, and
// the _automatic flags are folded in; other values stay as written.
func TestReadableSettings(t *testing.T) {
	got := readable([]Item{
		{"eta", "0"}, {"eta_automatic", "true"},
		{"thin", "4698"}, {"thin_automatic", "true"},
		{"burn", "300"}, {"burn_automatic", "false"},
		{"hot_batch", "0"}, {"hot_batch_automatic", "true"},
		{"cycle", "0"}, {"cycle_automatic", "true"},
		{"exact_every", "0"}, {"keep", "0"}, {"seed", "1"},
	})
	want := []Item{{"eta", "auto"}, {"thin", "auto: 4698"}, {"burn", "300"}, {"hot_batch", "auto (sized as the run goes)"},
		{"cycle", "off"}, {"exact_every", "auto (⌈4KN/n⌉ steps)"}, {"keep", "0"}, {"seed", "1"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %v, want %v", i, got[i], want[i])
		}
	}
}

// regress's per-coefficient table names the exact_* columns only when the
// run wrote them (--exact).
func TestCoefficientCaption(t *testing.T) {
	without, ok := coefficientTable([]byte(`[{"variable":"age","mean":0.1,"sd":0.2,"inclusion":0.5,"inclusion_mcse":0.01}]`))
	if !ok || strings.Contains(without.Caption, "exact") {
		t.Errorf("without exact columns: caption %q", without.Caption)
	}
	with, ok := coefficientTable([]byte(`[{"variable":"age","mean":0.1,"sd":0.2,"inclusion":0.5,"inclusion_mcse":0.01,"exact_mean":0.1}]`))
	if !ok || !strings.Contains(with.Caption, "exact_*") {
		t.Errorf("with exact columns: caption %q", with.Caption)
	}
}

// judgeCase is one edit of a run and the verdict it must then get: its
// level, with why in its reasons.
type judgeCase struct {
	name  string
	edit  func(*Judged)
	level string
	why   string
}

// checkJudged judges each case's edit of base.
func checkJudged(t *testing.T, base func() Judged, cases []judgeCase) {
	t.Helper()
	for _, c := range cases {
		j := base()
		c.edit(&j)
		v := Judge(j)
		if v.Level != c.level || !strings.Contains(strings.Join(v.Reasons, "; "), c.why) {
			t.Errorf("%s: %s %q, want %s with %q", c.name, v.Level, v.Reasons, c.level, c.why)
		}
	}
}

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
	checkJudged(t, base, []judgeCase{
		{"R̂ at 1.1", func(j *Judged) { j.Parameters[0].Rhat = RhatFail }, Doubtful, "R̂ > 1.01"},
		{"R̂ past 1.1", func(j *Judged) { j.Parameters[0].Rhat = math.Nextafter(RhatFail, 2) }, Failed, "exceeds 1.1"},
		{"stuck, R̂ 6.1e15", func(j *Judged) { j.Parameters[0].Rhat = 6091493150819684 }, Failed, "R̂ of 6.091e+15"},
		{"NaN R̂", func(j *Judged) { j.Parameters[0].Rhat = math.NaN() }, Doubtful, "R̂ > 1.01"},
		{"ESS 10", func(j *Judged) { j.Parameters[0].ESSBulk = ESSFailMin }, Doubtful, "bulk ESS"},
		{"ESS 9.9", func(j *Judged) { j.Parameters[0].ESSBulk = 9.9 }, Failed, "bulk ESS of 9.9 is below 10"},
		{"exact failed", func(j *Judged) { j.ExactFailed = []string{"P(x1 in the slab): 1 against 0.5 exact"} }, Doubtful, "exact answer, below, failed: P(x1"},
	})
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
