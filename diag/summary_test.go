package diag

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// PooledMean weighs every draw alike, whatever its chain's length: the
// chains 1, 2 and 6 pool to 3, where the chains' means would average 3.75.
func TestPooledMean(t *testing.T) {
	if m := PooledMean([][]float64{{1, 2}, {6}}); m != 3 {
		t.Errorf("PooledMean = %v, want 3", m)
	}
}

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

// Draws of 10²⁰⁰ or 10⁻²⁰⁰ (a mixture's means on data of that size) have
// the summary of the same draws at size 1, scaled: the sums of squares
// once read them as an sd and MCSEs of +Inf, or of 0. The fields in the
// draws' units must agree to rounding (1e-12). The ESSs, R̂ and k̂ do not
// depend on the scale, but rounding at another scale can swap two nearly
// equal distances from the median (folded R̂ reads 1.006302 at scales 1,
// 3 and 0.5 and 1.006329 at 10¹⁰ on these draws), so to 1e-4.
func TestSummarizeAnyScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := make([][]float64, 4)
	for c := range base {
		base[c] = make([]float64, 300)
		x := 0.0
		for i := range base[c] {
			x = 0.7*x + rng.NormFloat64() // autocorrelated, so that every field is read
			base[c][i] = 2 + x
		}
	}
	want := Summarize(base)
	for _, scale := range []float64{0x1p700, 0x1p-700, 1e200, 1e-200} {
		y := make([][]float64, len(base))
		for c := range base {
			y[c] = make([]float64, len(base[c]))
			for i, v := range base[c] {
				y[c][i] = v * scale
			}
		}
		got := Summarize(y)
		w := want
		units := []*float64{&w.Mean, &w.SD, &w.MCSEMean, &w.MCSESd, &w.Q5, &w.Q50, &w.Q95, &w.MCSEQ5, &w.MCSEQ95}
		for _, f := range units {
			*f *= scale
		}
		gf, wf := got.fields(), w.fields()
		for i := range gf {
			g, x := *gf[i], *wf[i]
			tol := 1e-4
			if i < len(units) {
				tol = 1e-12
			}
			if math.IsNaN(g) || math.IsInf(g, 0) || math.Abs(g-x) > tol*math.Abs(x) {
				t.Errorf("draws ×%g: field %d is %v, want %v", scale, i, g, x)
			}
		}
	}
}
