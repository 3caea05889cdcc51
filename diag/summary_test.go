package diag

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestSummaryJSONCarriesNaNAsNull(t *testing.T) {
	// Constant draws: posterior reports NA for R̂, the ESSs and the MCSEs.
	s := Summarize([][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"rhat":null`) || !strings.Contains(string(b), `"mean":1`) {
		t.Errorf("JSON %s: want rhat null and mean 1", b)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.Rhat) || !math.IsNaN(back.ESSBulk) || back.Mean != 1 {
		t.Errorf("round trip %+v: want NaN R̂ and ESS, mean 1", back)
	}
}

func TestSummarizeAllMatchesSummarize(t *testing.T) {
	// The parallel path must give each parameter exactly its own summary,
	// whatever the worker and its scratch saw before: shapes and NA cases
	// are mixed so that reused scratch would show.
	params := benchParams(6, 4, 300, 0.5)
	params = append(params, [][]float64{{1, 1, 1}, {1, 1, 1}}, benchParams(1, 2, 51, 0)[0], [][]float64{{math.NaN(), 1, 2, 3}})
	all := SummarizeAll(params)
	for p, chains := range params {
		a, b := all[p], Summarize(chains)
		af, bf := a.fields(), b.fields()
		for i := range af {
			if *af[i] != *bf[i] && !(math.IsNaN(*af[i]) && math.IsNaN(*bf[i])) {
				t.Errorf("parameter %d field %d: SummarizeAll %v, Summarize %v", p, i, *af[i], *bf[i])
			}
		}
	}
}

func TestSummarizeEveryShape(t *testing.T) {
	// Shapes posterior handles specially (no draws, one draw, the split
	// quirk at 2 and 3 draws, odd lengths) and unequal chains must give a
	// summary, never a panic; unequal or empty chains give NaN throughout.
	for m := 0; m <= 3; m++ {
		for n := 0; n <= 7; n++ {
			chains := benchParams(1, m, n, 0.3)[0]
			s := Summarize(chains)
			if (m == 0 || n == 0) && !math.IsNaN(s.Mean) {
				t.Errorf("%d chains of %d draws: mean %v, want NaN", m, n, s.Mean)
			}
			if m > 0 && n > 0 && math.IsNaN(s.Mean) {
				t.Errorf("%d chains of %d draws: mean NaN", m, n)
			}
		}
	}
	if s := Summarize([][]float64{{1, 2, 3}, {1, 2}}); !math.IsNaN(s.Mean) || !math.IsNaN(s.Rhat) {
		t.Errorf("unequal chains: %+v, want NaN", s)
	}
}
