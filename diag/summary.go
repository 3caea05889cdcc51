package diag

import (
	"encoding/json"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Summary is what posterior::summarise_draws reports for one parameter, with
// the Monte Carlo standard errors beside: the pooled mean, sd and 5/50/95%
// quantiles, the MCSEs of the mean, sd and outer quantiles, bulk and tail
// ESS, R̂, and the tails' Pareto k̂ (KHat, posterior's pareto_khat). A NaN field (posterior's NA) marshals to JSON null, as does
// ±Inf (JSON has no infinities; a mean can be one), and null unmarshals to
// NaN.
type Summary struct {
	Mean     float64 `json:"mean"`
	SD       float64 `json:"sd"`
	MCSEMean float64 `json:"mcse_mean"`
	MCSESd   float64 `json:"mcse_sd"`
	Q5       float64 `json:"q5"`
	Q50      float64 `json:"q50"`
	Q95      float64 `json:"q95"`
	MCSEQ5   float64 `json:"mcse_q5"`
	MCSEQ95  float64 `json:"mcse_q95"`
	ESSBulk  float64 `json:"ess_bulk"`
	ESSTail  float64 `json:"ess_tail"`
	Rhat     float64 `json:"rhat"`
	KHat     float64 `json:"khat"`
}

// Summarize computes every field of Summary for one parameter's chains,
// sharing the sort and the effective sample sizes between them.
func Summarize(chains [][]float64) Summary {
	d := drawsPool.Get().(*draws)
	defer drawsPool.Put(d)
	return d.summarize(chains)
}

func (d *draws) summarize(chains [][]float64) Summary {
	if e := extremeExponent(chains); e != 0 {
		return d.summarizeScaled(chains, e)
	}
	if !d.load(chains) {
		nan := math.NaN()
		return Summary{nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan}
	}
	mean, sd := d.mean, d.sdAll()
	essMean := d.essMean()
	ess5, ess95 := d.essQuantile(0.05), d.essQuantile(0.95)
	essTail := nanMin(ess5, ess95)
	return Summary{
		Mean:     mean,
		SD:       sd,
		MCSEMean: mcseMean(sd, essMean),
		MCSESd:   d.mcseSd(),
		Q5:       d.quantile(0.05),
		Q50:      d.quantile(0.5),
		Q95:      d.quantile(0.95),
		MCSEQ5:   d.mcseQuantile(0.05, ess5),
		MCSEQ95:  d.mcseQuantile(0.95, ess95),
		ESSBulk:  d.essBulk(),
		ESSTail:  essTail,
		Rhat:     d.rhat(),
		KHat:     d.khat(essTail),
	}
}

// extremeExponent is the binary exponent of the draws' largest |value|
// where squaring them would overflow or underflow (beyond 2^±500), else 0:
// the sums of squares behind the sd, the MCSEs and R̂ read draws of 10²⁰⁰
// as +Inf and draws of 10⁻²⁰⁰ as 0.
func extremeExponent(chains [][]float64) int {
	big := 0.0
	for _, c := range chains {
		for _, v := range c {
			if !(math.Abs(v) <= big) && !math.IsNaN(v) {
				big = math.Abs(v)
			}
		}
	}
	if big == 0 || math.IsInf(big, 0) {
		return 0
	}
	if _, e := math.Frexp(big); e > 500 || e < -500 {
		return e
	}
	return 0
}

// summarizeScaled summarizes the draws times 2^−e, a power of two, which
// is exact, and scales back what is in the draws' units: the ESSs, R̂ and
// k̂ do not depend on the scale.
func (d *draws) summarizeScaled(chains [][]float64, e int) Summary {
	scaled := make([][]float64, len(chains))
	for c, ch := range chains {
		scaled[c] = make([]float64, len(ch))
		for i, v := range ch {
			scaled[c][i] = math.Ldexp(v, -e)
		}
	}
	s := d.summarize(scaled)
	for _, f := range []*float64{&s.Mean, &s.SD, &s.MCSEMean, &s.MCSESd, &s.Q5, &s.Q50, &s.Q95, &s.MCSEQ5, &s.MCSEQ95} {
		*f = math.Ldexp(*f, e)
	}
	return s
}

// summaryJSON mirrors Summary with nil for NaN.
type summaryJSON struct {
	Mean     *float64 `json:"mean"`
	SD       *float64 `json:"sd"`
	MCSEMean *float64 `json:"mcse_mean"`
	MCSESd   *float64 `json:"mcse_sd"`
	Q5       *float64 `json:"q5"`
	Q50      *float64 `json:"q50"`
	Q95      *float64 `json:"q95"`
	MCSEQ5   *float64 `json:"mcse_q5"`
	MCSEQ95  *float64 `json:"mcse_q95"`
	ESSBulk  *float64 `json:"ess_bulk"`
	ESSTail  *float64 `json:"ess_tail"`
	Rhat     *float64 `json:"rhat"`
	KHat     *float64 `json:"khat"`
}

func (s *Summary) fields() []*float64 {
	return []*float64{&s.Mean, &s.SD, &s.MCSEMean, &s.MCSESd, &s.Q5, &s.Q50, &s.Q95,
		&s.MCSEQ5, &s.MCSEQ95, &s.ESSBulk, &s.ESSTail, &s.Rhat, &s.KHat}
}

func (j *summaryJSON) fields() []**float64 {
	return []**float64{&j.Mean, &j.SD, &j.MCSEMean, &j.MCSESd, &j.Q5, &j.Q50, &j.Q95,
		&j.MCSEQ5, &j.MCSEQ95, &j.ESSBulk, &j.ESSTail, &j.Rhat, &j.KHat}
}

// MarshalJSON writes NaN and ±Inf as null, which encoding/json otherwise
// refuses.
func (s Summary) MarshalJSON() ([]byte, error) {
	var j summaryJSON
	jf := j.fields()
	for i, f := range s.fields() {
		if !math.IsNaN(*f) && !math.IsInf(*f, 0) {
			v := *f
			*jf[i] = &v
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads null (or a missing field) as NaN.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	jf := j.fields()
	for i, f := range s.fields() {
		*f = math.NaN()
		if *jf[i] != nil {
			*f = **jf[i]
		}
	}
	return nil
}

// SummarizeAll summarises every parameter, params[p] being parameter p's
// chains, on runtime.GOMAXPROCS(0) goroutines.
func SummarizeAll(params [][][]float64) []Summary {
	out := make([]Summary, len(params))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(params)) {
		wg.Go(func() {
			var d draws // scratch for the worker's lifetime, beyond the pool's reach of the GC
			for {
				p := int(next.Add(1)) - 1
				if p >= len(params) {
					return
				}
				out[p] = d.summarize(params[p])
			}
		})
	}
	wg.Wait()
	return out
}
