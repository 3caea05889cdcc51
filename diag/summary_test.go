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
