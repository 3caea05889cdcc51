package minibatch

import (
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
)

// TestSDVariantsSmoke runs every follow-up variant on the breast-cancer
// problem at the smoke size: scores finite at each budget, one-chain
// variants report no hot clamps, and the corrected chains take the same
// number of steps whichever loop runs them (each spends NCold per step; the
// smoothed exchange chain's AutoBatch adds one pilot draw).
func TestSDVariantsSmoke(t *testing.T) {
	ref, dim := committedReference(t)
	pr, err := BreastCancerProblem(ref, Smoke)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, v := range SDVariants {
		r, err := RunSD(pr, ref, v, 1)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		for b, sc := range r.Score {
			for k, x := range sc {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s: score %d at budget %d is %v", v.Name, k, b, x)
				}
			}
		}
		if len(r.Ratio) != dim {
			t.Errorf("%s: %d sd ratios, want %d", v.Name, len(r.Ratio), dim)
		}
		if v.Method == CorrectedSGLD {
			if r.ClampStepsHot != 0 {
				t.Errorf("%s: a one-chain run reports hot clamps", v.Name)
			}
			steps[v.Name] = r.Steps
		}
	}
	lo, hi := math.MaxInt, 0
	for _, s := range steps {
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi-lo > 1 {
		t.Errorf("corrected chains took from %d to %d steps on the same budget: %v", lo, hi, steps)
	}
	for _, bad := range []SDVariant{
		{Name: "bad", Method: exchange.SGLDMethod, Correction: exchange.Full},
		{Name: "bad", Method: CorrectedSGLD, Correction: exchange.Full, SmoothCold: true},
	} {
		if _, err := RunSD(pr, ref, bad, 1); err == nil || !strings.Contains(err.Error(), "full correction") {
			t.Errorf("%+v: error %v, want one naming the full correction", bad, err)
		}
	}
	if vs, err := SelectSDVariants([]string{"fresgld-full", "sgld"}); err != nil || len(vs) != 2 || vs[0].Key != "sgld" || vs[1].Correction != exchange.Full {
		t.Errorf("SelectSDVariants: %v, %v", vs, err)
	}
	if _, err := SelectSDVariants([]string{"sgld", "hmc"}); err == nil || !strings.Contains(err.Error(), `"hmc"`) {
		t.Errorf("unknown variant: error %v, want one naming it", err)
	}
}

// TestSDMarkdownReach checks the cost column against the main study's
// reSGLD: a variant whose sd error goes 0.2 → 0.05 → 0.0125 over budgets
// 1, 10, 100 reaches reSGLD's final 0.025 two thirds of the way from 0.05
// to 0.0125, interpolated linearly in the error and in the log of the budget
// (as the main study does): at 10^(5/3) ≈ 46.4, 0.46× reSGLD's cost 100;
// one that stays at 0.2 never does.
func TestSDMarkdownReach(t *testing.T) {
	budgets := []float64{1, 10, 100}
	pr := Problem{Name: "bc", Setting: Setting{Budgets: budgets}}
	series := func(sd ...float64) (m, se [][]float64) {
		for _, v := range sd {
			m, se = append(m, []float64{0, v, 0}), append(se, []float64{0, 0, 0})
		}
		return
	}
	var sums []SDSummary
	for _, v := range []struct {
		name string
		sd   []float64
	}{{"fast", []float64{0.2, 0.05, 0.0125}}, {"flat", []float64{0.2, 0.2, 0.2}}} {
		m, se := series(v.sd...)
		sums = append(sums, SDSummary{Variant: v.name, Mean: m, SE: se})
	}
	rm, _ := series(0.3, 0.1, 0.025)
	main := &Summary{Seeds: 20, Methods: []MethodSummary{{Method: "resgld", Mean: rm}}}
	var b strings.Builder
	SDMarkdown(&b, pr, 2, nil, nil, nil, sums, main)
	for _, want := range []string{"| fast | 46.4 | 0.46× |", "| flat | not reached | — |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
