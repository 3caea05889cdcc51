package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// ExactTolerance is the most MCSEs a run's estimate may lie from the
// exact value and pass: a correct run's error, about normal with sd the
// MCSE, exceeds 3 of them with probability 0.0027 per row.
const ExactTolerance = 3

// floatResolution is the relative precision below which an MCSE is
// rounding, not Monte Carlo error: the exact answers come from Cholesky
// factorisations and sums in float64, whose relative error is some
// condition number times 2⁻⁵² (1e-13 at a condition number of 10³), and a
// draw's value (an inclusion probability of 1 − 10⁻¹⁵) carries as much.
const floatResolution = 1e-12

// ExactRow is one estimate of a run against the exact value.
type ExactRow struct {
	Name             string
	Run, MCSE, Exact float64
}

// ExactTable is rows as the report shows them: the run's estimate ± MCSE,
// the exact value, the error in MCSEs and whether it is within
// ExactTolerance of them. A row without a positive, finite MCSE (a
// quantity constant in every draw) is not judged, and says so: a NaN
// never passes.
func ExactTable(caption string, rows []ExactRow) *Table {
	t := &Table{Caption: caption, Columns: []string{"quantity", "run", "± MCSE", "exact", "|run − exact| / MCSE", fmt.Sprintf("within %d MCSE", ExactTolerance)}}
	for _, r := range rows {
		z := math.Abs(r.Run-r.Exact) / r.MCSE
		verdict, zs, flag := "pass", fmt.Sprintf("%.2f", z), false
		switch {
		case r.MCSE == 0 && !(math.Abs(r.Run-r.Exact) <= constantTolerance):
			// Constant in every draw, and not the exact value: no Monte
			// Carlo error explains it (a perfect fit's run at inclusion 1
			// against an exact 0.5).
			verdict, zs, flag = "FAIL (constant, yet not the exact value)", "∞", true
		case !(r.MCSE > 0) || math.IsInf(r.MCSE, 0):
			verdict, zs = "not judged (no MCSE: constant)", "–"
		case r.MCSE < floatResolution*max(math.Abs(r.Run), math.Abs(r.Exact)):
			verdict, zs = "not judged (MCSE below float precision)", "–"
		case !(z <= ExactTolerance):
			verdict, flag = "FAIL", true
		}
		t.Rows = append(t.Rows, []Cell{{Text: r.Name}, {Text: fmt.Sprintf("%.4g", r.Run)}, {Text: fmt.Sprintf("%.2g", r.MCSE)},
			{Text: fmt.Sprintf("%.4g", r.Exact)}, {Text: zs, Flag: flag}, {Text: verdict, Flag: flag}})
	}
	return t
}

// constantTolerance is how far a quantity constant in every draw (MCSE
// 0) may lie from the exact value and pass: rounding, as floatResolution.
const constantTolerance = 1e-9

// exactFailures are the comparisons with the exact answer on a report's
// page that failed: the table's FAIL rows, and the largest mean error
// when it exceeds ExactTolerance of its MCSE.
func exactFailures(t *Table, byKey map[string]json.RawMessage) []string {
	var out []string
	if t != nil {
		for _, r := range t.Rows {
			if last := r[len(r)-1]; last.Flag {
				out = append(out, fmt.Sprintf("%s: %s against %s exact", r[0].Text, r[1].Text, r[3].Text))
			}
		}
	}
	var d struct {
		SDs  *float64 `json:"max_mean_error_sds"`
		MCSE *float64 `json:"max_mean_error_mcse"`
	}
	if json.Unmarshal(byKey["distance_to_exact"], &d) == nil && d.SDs != nil && d.MCSE != nil && !(*d.SDs <= ExactTolerance*(*d.MCSE)) && *d.SDs > constantTolerance {
		out = append(out, fmt.Sprintf("largest |mean − exact mean| %.3g exact sds, %.3g times its MCSE", *d.SDs, *d.SDs / *d.MCSE))
	}
	return out
}

// exactNames are the readable names of the distances to an exact answer
// that summary.json holds.
var exactNames = map[string]string{
	"tv":                           "total variation distance to the exact density",
	"tv_bins":                      "bins of that total variation",
	"w1":                           "Wasserstein-1 distance to the exact density",
	"max_mean_error_sds":           "largest |mean − exact mean| / exact sd",
	"max_mean_error_mcse":          "its MCSE (in exact sds)",
	"max_mean_error_variable":      "its variable",
	"max_inclusion_error":          "largest |inclusion − exact inclusion|",
	"max_inclusion_error_mcse":     "its MCSE",
	"max_inclusion_error_variable": "its variable",
}

// exactSection builds the comparison with an exact answer from a run's
// summary.json: regress --exact's per-coefficient means and inclusion
// probabilities, gmm's weight of the right mode, as a table; the
// distances and the exact posterior's heaviest patterns as a group.
func exactSection(byKey map[string]json.RawMessage, params []Variable) (*Table, Group, bool) {
	var rows []ExactRow
	mean := map[string]Variable{}
	for _, p := range params {
		mean[p.Name] = p
	}
	var coefs []struct {
		Name           string   `json:"variable"`
		Inclusion      *float64 `json:"inclusion"`
		InclusionMCSE  *float64 `json:"inclusion_mcse"`
		ExactMean      *float64 `json:"exact_mean"`
		ExactInclusion *float64 `json:"exact_inclusion"`
	}
	if json.Unmarshal(byKey["per_coefficient"], &coefs) == nil {
		for _, c := range coefs {
			if p, ok := mean[c.Name]; ok && c.ExactMean != nil {
				rows = append(rows, ExactRow{Name: "posterior mean of " + c.Name, Run: p.Mean, MCSE: p.MCSEMean, Exact: *c.ExactMean})
			}
		}
		for _, c := range coefs {
			if c.ExactInclusion != nil && c.Inclusion != nil && c.InclusionMCSE != nil {
				rows = append(rows, ExactRow{Name: "P(" + c.Name + " in the slab)", Run: *c.Inclusion, MCSE: *c.InclusionMCSE, Exact: *c.ExactInclusion})
			}
		}
	}
	var m struct {
		W     *float64 `json:"right_mode_weight"`
		WMCSE *float64 `json:"right_mode_weight_mcse"`
		Exact *float64 `json:"right_mode_weight_exact"`
	}
	if json.Unmarshal(byKey["metrics"], &m) == nil && m.W != nil && m.Exact != nil {
		mcse := math.NaN()
		if m.WMCSE != nil {
			mcse = *m.WMCSE
		}
		rows = append(rows, ExactRow{Name: "weight of the right mode, P(θ > 0)", Run: *m.W, MCSE: mcse, Exact: *m.Exact})
	}
	g := Group{Heading: "Distances to the exact answer"}
	for _, key := range []string{"distance_to_exact", "metrics"} {
		raw, ok := byKey[key]
		if !ok {
			continue
		}
		for _, it := range flatten("", raw) {
			if strings.HasPrefix(it.Name, "right_mode_weight") {
				continue // in the table
			}
			if x, err := parseNumber(it.Value); err == nil {
				it.Value = fmt.Sprintf("%.4g", x)
			}
			if n, ok := exactNames[it.Name]; ok {
				it.Name = n
			} else {
				it.Name = strings.ReplaceAll(it.Name, "_", " ")
			}
			g.Items = append(g.Items, it)
		}
	}
	var patterns []struct {
		Included []string `json:"included"`
		Weight   float64  `json:"weight"`
	}
	if json.Unmarshal(byKey["exact_patterns"], &patterns) == nil {
		for i, p := range patterns {
			g.Items = append(g.Items, Item{Name: fmt.Sprintf("exact posterior's pattern %d", i+1), Value: fmt.Sprintf("weight %.4f, slab: %s", p.Weight, strings.Join(p.Included, " "))})
		}
	}
	var t *Table
	if len(rows) > 0 {
		t = ExactTable(fmt.Sprintf("the run's estimates against the exact answer: pass when within %d MCSE (a correct run fails a row with probability 0.0027)", ExactTolerance), rows)
	}
	return t, g, t != nil || len(g.Items) > 0
}

// parseNumber reads a JSON number.
func parseNumber(s string) (float64, error) {
	var x float64
	err := json.Unmarshal([]byte(s), &x)
	return x, err
}
