package gmm

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/experiments/report"
)

// Summary is one method at one size, over the seeds.
type Summary struct {
	Study, Size, Method string
	Seeds               int
	Samples             report.Stat
	TV, W1, W2          report.Stat
	Right               report.Stat // fraction on the right mode (exact: ExactRight)
	RightErr            report.Stat // |Right − ExactRight|
	ExactRight          float64
	SwapRate            report.Stat
	Grad, Energy        report.Stat
	VarGrad             report.Stat
	Seconds             report.Stat
}

// Summarise reduces rows to one Summary per (size, method), in row order.
func Summarise(rows []Row, exactRight float64) []Summary {
	type key struct{ size, method string }
	var order []key
	groups := map[key][]Row{}
	for _, r := range rows {
		k := key{r.Size, r.Method}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []Summary
	for _, k := range order {
		g := groups[k]
		st := func(f func(Row) float64) report.Stat {
			xs := make([]float64, 0, len(g))
			for _, r := range g {
				if x := f(r); !math.IsNaN(x) {
					xs = append(xs, x)
				}
			}
			if len(xs) == 0 {
				return report.Stat{Mean: math.NaN(), SE: math.NaN()}
			}
			m, se := diag.MeanSE(xs)
			return report.Stat{Mean: m, SE: se}
		}
		out = append(out, Summary{
			Study: g[0].Study, Size: k.size, Method: k.method, Seeds: len(g),
			Samples:    st(func(r Row) float64 { return float64(r.Samples) }),
			TV:         st(func(r Row) float64 { return r.TV }),
			W1:         st(func(r Row) float64 { return r.W1 }),
			W2:         st(func(r Row) float64 { return r.W2 }),
			Right:      st(func(r Row) float64 { return r.Right }),
			RightErr:   st(func(r Row) float64 { return math.Abs(r.Right - exactRight) }),
			ExactRight: exactRight,
			SwapRate:   st(func(r Row) float64 { return r.SwapRate }),
			Grad:       st(func(r Row) float64 { return r.Grad }),
			Energy:     st(func(r Row) float64 { return r.Energy }),
			VarGrad:    st(func(r Row) float64 { return r.VarGrad }),
			Seconds:    st(func(r Row) float64 { return r.Seconds }),
		})
	}
	return out
}

// WriteCSV writes one line per run.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"study", "size", "method", "seed", "samples", "tv", "w1", "w2", "right_weight", "swap_rate", "swaps",
		"grad_evals", "energy_evals", "var_grad_evals", "var_energy_evals", "clamped_steps", "seconds"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for _, r := range rows {
		cw.Write([]string{r.Study, r.Size, r.Method, strconv.Itoa(r.Seed), strconv.Itoa(r.Samples), f(r.TV), f(r.W1), f(r.W2),
			f(r.Right), f(r.SwapRate), strconv.Itoa(r.Swaps), f(r.Grad), f(r.Energy), f(r.VarGrad), f(r.VarEnergy),
			strconv.FormatInt(r.Clamped, 10), f(r.Seconds)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the summaries.
func WriteJSON(w io.Writer, s []Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteMarkdown writes one table per size: mean ± standard error over seeds.
func WriteMarkdown(w io.Writer, s []Summary, bins int) error {
	var b strings.Builder
	size := ""
	for _, r := range s {
		if r.Size != size {
			size = r.Size
			fmt.Fprintf(&b, "\n%s, size %s (%d seeds; mean ± standard error; exact right-mode weight %.4f; TV on %d bins)\n\n", r.Study, size, r.Seeds, r.ExactRight, bins)
			b.WriteString("| method | samples | TV | W1 | W2 | right weight | \\|right − exact\\| | swap rate | gradient evals | energy evals | of which variance grads | seconds |\n")
			b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Method, report.G(r.Samples.Mean), r.TV, r.W1, r.W2,
			r.Right, r.RightErr, r.SwapRate, report.G(r.Grad.Mean), report.G(r.Energy.Mean), report.G(r.VarGrad.Mean), r.Seconds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
