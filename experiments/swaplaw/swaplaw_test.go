package swaplaw

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/experiments/minibatch"
)

// TestAcceptedSwapsFollowS runs the study at a smoke size (budgets up to 4×
// the burn-in cost, one seed): under every mode, the accepted swaps whose
// exact min(1, S) is below 0.01 must not exceed what the exact rule would
// accept at the same attempts by more than 3 Poisson sds. With
// FRESGLD_SWAPLAW_MAX=300 and FRESGLD_SWAPLAW_SEEDS=3 it is the study of
// docs/experiments/swaplaw.md, printed with -v.
func TestAcceptedSwapsFollowS(t *testing.T) {
	sz, seeds := minibatch.Smoke, 1
	if v, err := strconv.ParseFloat(os.Getenv("FRESGLD_SWAPLAW_MAX"), 64); err == nil {
		sz = minibatch.Size{Points: 2, Max: v}
	}
	if v, err := strconv.Atoi(os.Getenv("FRESGLD_SWAPLAW_SEEDS")); err == nil {
		seeds = v
	}
	prs, err := Problems(sz)
	if err != nil {
		t.Fatal(err)
	}
	var all []Row
	for _, pr := range prs {
		rows, err := Measure(pr, seeds, nil)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
	var b strings.Builder
	Markdown(&b, all)
	t.Log("\n" + b.String())
	for _, r := range all {
		if !r.Within() {
			t.Errorf("%s τ2 = %g %s/%v: %d accepted swaps at exact min(1, S) < 0.01, the exact rule would accept %.2f (bound %.2f)", r.Problem, r.Tau2, r.Method, r.Mode, r.LowAccepts, r.Expected, r.Bound())
		}
		if r.Attempts == 0 {
			t.Errorf("%s τ2 = %g %s/%v: no attempts", r.Problem, r.Tau2, r.Method, r.Mode)
		}
	}
}

// Within passes one accepted swap against an expectation of 0.06 (the
// Poisson tail 0.058) and fails five against 0.06 (tail 6e-9).
func TestWithin(t *testing.T) {
	if !(Row{LowAccepts: 1, Expected: 0.06}).Within() {
		t.Error("1 against 0.06 refused")
	}
	if (Row{LowAccepts: 5, Expected: 0.06}).Within() {
		t.Error("5 against 0.06 passed")
	}
	if !(Row{LowAccepts: 0, Expected: 0}).Within() {
		t.Error("0 against 0 refused")
	}
}
