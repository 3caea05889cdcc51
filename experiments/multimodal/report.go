package multimodal

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Row is one method on one problem, pooled over seeds (one chain each):
// the pooled estimate is the mean of the runs' estimates and its Monte
// Carlo standard error the runs' sd over √runs.
type Row struct {
	Problem string
	Method  string
	Runs    int
	// InclErr is the largest |pooled inclusion − exact| over the
	// coefficients, InclMCSE its MCSE and InclVar the coefficient.
	InclErr, InclMCSE float64
	InclVar           string
	// RunInclErr is the mean over runs of each run's own largest error.
	RunInclErr float64
	// MeanErr is the largest |pooled mean − exact mean|/exact sd, MeanMCSE
	// its MCSE (in exact sds).
	MeanErr, MeanMCSE float64
	MeanVar           string
	// Pattern[k] is the pooled weight of the exact posterior's k-th
	// heaviest pattern, PatternErr the largest |error| of the five.
	Pattern    []float64
	PatternErr float64
	// Cost and CPU are per run: per-example evaluations and CPU seconds.
	Cost, CPU float64
	// Curve[c] is the pooled largest inclusion error at checkpoint c, at
	// mean cost CurveCost[c].
	Curve, CurveCost []float64
	Steps            float64 // per run
	Acceptance       float64 // accepted / attempted swaps, all pairs
	SwapShare        float64 // swap energies, confirmations and anchors in Cost, tuning's included
	Levels           float64 // mean ladder size
	// TripsPerM is the round trips per 10⁶ steps of the cold level in the
	// sampling runs, all runs pooled; TuningShare the adaptive ladder's
	// tuning over the budget (above 1 when it outspent it); HotCPU the mean
	// over runs of the hottest level's CPU per step over the coldest's (NaN
	// on one level).
	TripsPerM, TuningShare, HotCPU float64
	// Parts are the shares of Cost in each part of the Breakdown, pooled
	// over runs (nil for NUTS).
	Parts []float64
	// Taus and PairRates are the first run's ladder and its swap
	// acceptance per pair: the adaptive ladders differ from run to run,
	// so their pairs do not pool.
	Taus, PairRates []float64
}

// Pool pools the runs of one method on pr.
func Pool(pr *Problem, method string, rs []Result) Row {
	r := Row{Problem: pr.Name, Method: method, Runs: len(rs)}
	n := len(rs)
	last := func(x Result) Estimate { return x.At[len(x.At)-1] }
	var acc, att, swap, trips, steps, tune, budget, cost float64
	r.Parts = make([]float64, len(BreakdownNames))
	for _, x := range rs {
		budget += x.Budget
		cost += x.Cost
		for i, v := range x.Parts.parts() {
			r.Parts[i] += v
		}
		trips += float64(x.RoundTrips)
		steps += float64(x.Steps)
		tune += x.TuningCost
		r.HotCPU += x.HotCPU / float64(n)
		r.Cost += x.Cost / float64(n)
		r.CPU += x.CPU / float64(n)
		r.Steps += float64(x.Steps) / float64(n)
		r.Levels += float64(len(x.Taus)) / float64(n)
		r.RunInclErr += maxErr(last(x).Incl, pr.Exact.Inclusion) / float64(n)
		acc += float64(x.Swaps)
		att += float64(x.Attempts)
		swap += x.SwapCost
	}
	if att > 0 {
		r.Acceptance = acc / att
	}
	r.SwapShare = swap / (r.Cost * float64(n))
	r.TuningShare = tune / budget
	r.Taus, r.PairRates = rs[0].Taus, rs[0].PairRates
	for i := range r.Parts {
		r.Parts[i] /= cost
	}
	if steps > 0 {
		r.TripsPerM = 1e6 * trips / steps
	}
	ests := make([]Estimate, n)
	for i, x := range rs {
		ests[i] = last(x)
	}
	incl, inclSE := pooled(ests, func(e Estimate) []float64 { return e.Incl })
	mean, meanSE := pooled(ests, func(e Estimate) []float64 { return e.Mean })
	r.InclErr, r.MeanErr = -1, -1
	for j := range incl {
		if e := math.Abs(incl[j] - pr.Exact.Inclusion[j]); e > r.InclErr || math.IsNaN(e) {
			r.InclErr, r.InclMCSE, r.InclVar = e, inclSE[j], pr.Names[j]
		}
		sd := pr.Exact.SD[j]
		if e := math.Abs(mean[j]-pr.Exact.Mean[j]) / sd; e > r.MeanErr || math.IsNaN(e) {
			r.MeanErr, r.MeanMCSE, r.MeanVar = e, meanSE[j]/sd, pr.Names[j]
		}
	}
	r.Pattern, _ = pooled(ests, func(e Estimate) []float64 { return e.Pattern })
	for k, w := range r.Pattern {
		r.PatternErr = math.Max(r.PatternErr, math.Abs(w-pr.Exact.Patterns[k].Weight))
	}
	for c := range rs[0].At {
		at := make([]Estimate, n)
		var cost float64
		for i, x := range rs {
			at[i] = x.At[c]
			cost += x.At[c].Cost / float64(n)
		}
		m, _ := pooled(at, func(e Estimate) []float64 { return e.Incl })
		r.Curve = append(r.Curve, maxErr(m, pr.Exact.Inclusion))
		r.CurveCost = append(r.CurveCost, cost)
	}
	return r
}

// pooled is the mean over estimates of f(e) and its standard error.
func pooled(es []Estimate, f func(Estimate) []float64) (mean, se []float64) {
	p := len(f(es[0]))
	mean, se = make([]float64, p), make([]float64, p)
	n := float64(len(es))
	for _, e := range es {
		for j, v := range f(e) {
			mean[j] += v / n
		}
	}
	for _, e := range es {
		for j, v := range f(e) {
			se[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range se {
		se[j] = math.Sqrt(se[j] / (n - 1) / n)
	}
	return mean, se
}

// maxErr is the largest |a_j − b_j| (NaN if any is NaN).
func maxErr(a, b []float64) float64 {
	m := 0.0
	for j := range a {
		e := math.Abs(a[j] - b[j])
		if math.IsNaN(e) {
			return e
		}
		m = math.Max(m, e)
	}
	return m
}

// CostFor is the cost at which row r's pooled error curve first falls to
// err, interpolated linearly in log cost between checkpoints; +Inf if it
// never does within the budget.
func (r Row) CostFor(err float64) float64 {
	for c, e := range r.Curve {
		if e <= err {
			if c == 0 {
				return r.CurveCost[0]
			}
			e0, c0, c1 := r.Curve[c-1], math.Log(r.CurveCost[c-1]), math.Log(r.CurveCost[c])
			return math.Exp(c0 + (c1-c0)*(e0-err)/(e0-e))
		}
	}
	return math.Inf(1)
}

// Markdown writes the accuracy table of the rows (one problem's), with the
// exact posterior's inclusion probabilities and heaviest patterns above it.
func Markdown(w io.Writer, pr *Problem, rows []Row) {
	fmt.Fprintf(w, "**%s** (%s). Exact inclusion probabilities: %s. Heaviest patterns (slab coefficients: weight): %s.\n\n",
		pr.Name, pr.Note, exactIncl(pr), exactPatterns(pr))
	fmt.Fprintln(w, "| method | runs | largest inclusion error (coef.) ± MCSE | error / MCSE | mean of the runs' own | largest \\|mean err\\|/sd ± MCSE | top-5 pattern weights (exact above) | largest pattern error | cost / run | CPU s / run | steps / run | levels | swap acceptance | swap share of cost | tuning share of cost | round trips / 10⁶ cold steps | hot / cold time per step (levels alone) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		if math.IsNaN(r.InclErr) {
			fmt.Fprintf(w, "| %s | %d | no draws: the budget went to tuning and swap confirmations | | | | | | %.3g | %.2f | %s | %s | %s |\n",
				r.Method, r.Runs, r.Cost, r.CPU, steps(r.Steps), levels(r.Levels), ladderCells(r))
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %.4f (%s) ± %.4f | %.1f | %.4f | %.3f (%s) ± %.3f | %s | %.4f | %.3g | %.2f | %s | %s | %s |\n",
			r.Method, r.Runs, r.InclErr, r.InclVar, r.InclMCSE, r.InclErr/r.InclMCSE, r.RunInclErr, r.MeanErr, r.MeanVar, r.MeanMCSE,
			weights(r.Pattern), r.PatternErr, r.Cost, r.CPU, steps(r.Steps), levels(r.Levels), ladderCells(r))
	}
	fmt.Fprintln(w)
}

// BreakdownMarkdown writes where each row's cost went, as shares of it.
func BreakdownMarkdown(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "| problem | method | %s |\n", strings.Join(BreakdownNames, " | "))
	fmt.Fprintln(w, "|---|---|"+strings.Repeat("---|", len(BreakdownNames)))
	for _, r := range rows {
		if r.Parts == nil {
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", r.Problem, r.Method)
		for _, v := range r.Parts {
			fmt.Fprintf(w, " %.3f |", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// PairMarkdown writes the first run's ladder and swap acceptance per pair
// for each row with more than one level.
func PairMarkdown(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| problem | method | ladder τ (first run) | swap acceptance per pair, cold pair first (first run) |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		if len(r.Taus) < 2 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Problem, r.Method, list(r.Taus, "%.3g"), list(r.PairRates, "%.3f"))
	}
	fmt.Fprintln(w)
}

func list(xs []float64, f string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf(f, x)
	}
	return strings.Join(s, ", ")
}

// CurveMarkdown writes each row's pooled largest inclusion error at the
// checkpoints.
func CurveMarkdown(w io.Writer, rows []Row, checkpoints []float64) {
	fmt.Fprint(w, "| problem | method |")
	for _, c := range checkpoints {
		fmt.Fprintf(w, " %g of the budget |", c)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "|---|---|"+strings.Repeat("---|", len(checkpoints)))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s |", r.Problem, r.Method)
		for _, e := range r.Curve {
			fmt.Fprintf(w, " %.4f |", e)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// ladderCells are the swap columns of row r: dashes on one level.
func ladderCells(r Row) string {
	on := r.Levels > 1
	return strings.Join([]string{dash(r.Acceptance, on, "%.3f"), dash(r.SwapShare, on, "%.2f"), dash(r.TuningShare, on, "%.3f"),
		dash(r.TripsPerM, on, "%.0f"), dash(r.HotCPU, on, "%.2f")}, " | ")
}

func dash(v float64, ok bool, f string) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf(f, v)
}

func steps(s float64) string {
	if s == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3g", s)
}

func levels(l float64) string {
	if l == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3g", l)
}

func weights(ws []float64) string {
	var b strings.Builder
	for k, w := range ws {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.3f", w)
	}
	return b.String()
}

func exactIncl(pr *Problem) string {
	var b strings.Builder
	for j, v := range pr.Exact.Inclusion {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.3f", pr.Names[j], v)
	}
	return b.String()
}

func exactPatterns(pr *Problem) string {
	var b strings.Builder
	for k, pt := range pr.Exact.Patterns[:min(Patterns, len(pr.Exact.Patterns))] {
		if k > 0 {
			b.WriteString("; ")
		}
		var in []string
		for j, g := range pt.Include {
			if g {
				in = append(in, pr.Names[j])
			}
		}
		fmt.Fprintf(&b, "%s: %.3f", strings.Join(in, " "), pt.Weight)
	}
	return b.String()
}
