package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/report"
)

// LadderSummary is the sampling run's ladder: where the levels were, how
// often each pair rejected, and how the replicas travelled.
type LadderSummary struct {
	Steps  int       `json:"steps"`
	Taus   []float64 `json:"taus"`
	Scheme string    `json:"scheme"`
	Window int       `json:"window"`
	// Rejection is per pair, under the noisy rule (null for a pair never
	// attempted); Lambda is Λ̂ = Σ rejection, null if any pair is null.
	Rejection []*float64 `json:"rejection"`
	Lambda    *float64   `json:"lambda"`
	// RoundTrips and Restarts are summed over replicas; TripRate is per
	// round (per step under sweep), Bound the non-reversible rate
	// 1/(2 + 2Λ̂) it approaches with many levels and fresh energies.
	RoundTrips  int               `json:"round_trips"`
	Restarts    int               `json:"restarts"`
	TripRate    float64           `json:"round_trip_rate"`
	Bound       *float64          `json:"rate_bound"`
	Recommended *int              `json:"recommended_levels"`
	Tuning      *exchange.Adapted `json:"tuning,omitempty"`
}

func summariseLadder(cfg exchange.Config, st exchange.Stats, ad *exchange.Adapted) *LadderSummary {
	if len(cfg.Levels) < 2 {
		return nil
	}
	s := &LadderSummary{Steps: st.Steps, Scheme: cfg.Swap.Scheme.String(), Window: max(cfg.Swap.Window, 1), Tuning: ad}
	for _, lv := range cfg.Levels {
		s.Taus = append(s.Taus, lv.Tau)
	}
	lam := 0.0
	for _, p := range st.Pairs {
		if p.Attempts == 0 {
			s.Rejection, lam = append(s.Rejection, nil), math.NaN()
			continue
		}
		r := p.Rejection()
		s.Rejection = append(s.Rejection, &r)
		lam += r
	}
	t := exchange.Sum(st.Replicas)
	s.RoundTrips, s.Restarts = t.RoundTrips, t.Restarts
	if st.Steps > 0 {
		s.TripRate = float64(s.RoundTrips) / float64(cfg.Swap.Round(st.Steps-1)+1)
	}
	if !math.IsNaN(lam) {
		bound, rec := 1/(2+2*lam), max(2, int(math.Ceil(2*lam)))
		s.Lambda, s.Bound, s.Recommended = &lam, &bound, &rec
	}
	return s
}

// print writes the per-round table: the tuning rounds, then the sampling run.
func (s *LadderSummary) print(w io.Writer) {
	fmt.Fprintln(w, "round  steps     Λ̂      round trips  rate/round  1/(2+2Λ̂)  rejection per pair")
	row := func(name string, steps int, lam float64, trips int, rate, bound float64, rej string) {
		fmt.Fprintf(w, "%-6s %-9d %-7.3f %-12d %-11.4f %-10.4f %s\n", name, steps, lam, trips, rate, bound, rej)
	}
	if s.Tuning != nil {
		for _, r := range s.Tuning.Rounds {
			row(strconv.Itoa(r.Round), r.Steps, r.Lambda, r.RoundTrips, r.TripRate, r.Bound, joinFloats(r.Rejection, "%.3f", " "))
		}
	}
	if s.Lambda == nil {
		fmt.Fprintf(w, "sample %-9d a pair was never offered a swap: no barrier estimate; %d round trips\n", s.Steps, s.RoundTrips)
		return
	}
	row("sample", s.Steps, *s.Lambda, s.RoundTrips, s.TripRate, *s.Bound, joinOpt(s.Rejection, "%.3f", " "))
	fmt.Fprintf(w, "ladder: %d levels τ = %s (%s swaps, window %d); Λ̂ = %.3f, recommended K ≈ 2Λ̂ = %d\n",
		len(s.Taus), joinFloats(s.Taus, "%.4g", ", "), s.Scheme, s.Window, *s.Lambda, *s.Recommended)
}

// report summarises every chain's ladder into dst, prints the per-round
// table of the first chain (one line for each other), and writes rounds.csv
// (every chain's tuning rounds and sampling run, with cost) and the first
// chain's ladder trace (ladder-trace.png/svg) into out. It returns the
// warnings of ladders that barely communicate. Nothing for K = 1.
func LadderReport(stdout io.Writer, out *output.Dir, chains []*Chain, cfgs map[int]exchange.Config, tunings map[int]*exchange.Adapted, dst *[]*LadderSummary, title string) ([]string, error) {
	var ws []ladderWarning
	for i, c := range chains {
		id := c.Header.ID
		s := summariseLadder(cfgs[id], c.Ladder, tunings[id])
		if s == nil {
			return nil, nil
		}
		*dst = append(*dst, s)
		if c.Ladder.Steps > 0 { // a chain that never started has no ladder to judge
			ws = append(ws, s.warnings(id)...)
		}
		if i == 0 {
			fmt.Fprintf(stdout, "chain %d's ladder:\n", id)
			s.print(stdout)
		} else if s.Lambda != nil {
			fmt.Fprintf(stdout, "chain %d's ladder: %d levels, Λ̂ = %.3f, %d round trips (%.4f a round; 1/(2+2Λ̂) = %.4f)\n", id, len(s.Taus), *s.Lambda, s.RoundTrips, s.TripRate, *s.Bound)
		}
	}
	err := out.WriteFile("rounds.csv", func(w io.Writer) error {
		fmt.Fprintln(w, "chain,round,steps,levels,lambda,round_trips,restarts,round_trip_rate,rate_bound,grad_units,energy_units,taus,rejection")
		for i, c := range chains {
			writeRounds(w, c.Header.ID, (*dst)[i], c.Ladder)
		}
		return nil
	})
	return foldWarnings(ws), errors.Join(err, ladderTrace(out, chains[0], title))
}

// ladderWarning is one chain's finding: text before and after a number
// (the same for every chain with the same ladder) and the number; without
// a number, format is "".
type ladderWarning struct {
	chain        int
	before, tail string
	format       string // of the number, e.g. "%.1f%%"
	value        float64
}

// foldWarnings turns the chains' findings into one warning per finding:
// four near-identical lines, one per chain, become one naming the chains
// and the number's range across them (issue 20).
func foldWarnings(ws []ladderWarning) []string {
	type key struct{ before, format, tail string }
	var order []key
	groups := map[key][]ladderWarning{}
	for _, w := range ws {
		k := key{w.before, w.format, w.tail}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], w)
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		ids := make([]string, len(g))
		lo, hi := g[0].value, g[0].value
		for i, w := range g {
			ids[i] = strconv.Itoa(w.chain)
			lo, hi = math.Min(lo, w.value), math.Max(hi, w.value)
		}
		who := "chain " + ids[0]
		if len(g) > 1 {
			who = "chains " + strings.Join(ids, ", ")
		}
		num := ""
		if k.format != "" {
			num = fmt.Sprintf(k.format, lo)
			if a, b := fmt.Sprintf(k.format, lo), fmt.Sprintf(k.format, hi); a != b {
				// "91.7%" and "92.0%" make "91.7–92.0%": the unit once.
				unit := strings.TrimLeft(a, "0123456789.-+e")
				num = strings.TrimSuffix(a, unit) + "–" + b
			}
		}
		out = append(out, who+": "+k.before+num+k.tail)
	}
	return out
}

// poorRejection is the rejection rate above which a pair is reported as
// barely communicating: fewer than one attempt in ten swaps, so a replica
// waits ten rounds on average to cross it. It is the report's verdict's
// floor of swap acceptance, the same for every command.
const poorRejection = 1 - report.SwapAcceptMin

// warnings says where a chain's ladder barely communicates, with the number
// and a remedy: a pair that rejects nearly every swap, and a run in which no
// replica went from the coldest level to the hottest and back (the cold
// level then never received a state mixed at the hottest level).
func (s *LadderSummary) warnings(id int) []ladderWarning {
	var w []ladderWarning
	for l, r := range s.Rejection {
		if r != nil && *r > poorRejection {
			w = append(w, ladderWarning{chain: id, before: fmt.Sprintf("levels %d–%d (τ = %.4g, %.4g) rejected ", l+1, l+2, s.Taus[l], s.Taus[l+1]),
				format: "%.1f%%", value: 100 * *r, tail: " of their swap attempts: the ladder barely communicates there; add levels (--levels auto, or more --levels)"})
		}
	}
	if s.RoundTrips == 0 {
		w = append(w, ladderWarning{chain: id, before: fmt.Sprintf("no replica made a round trip between the coldest and the hottest level in %d steps, so the cold level never received a state mixed at the hottest: run longer or tune the ladder (--levels auto)", s.Steps)})
	}
	return w
}

// writeRounds writes one chain's rows of rounds.csv: its tuning rounds and
// its sampling run.
func writeRounds(w io.Writer, id int, s *LadderSummary, st exchange.Stats) {
	if s.Tuning != nil {
		for _, r := range s.Tuning.Rounds {
			fmt.Fprintf(w, "%d,%d,%d,%d,%g,%d,%d,%g,%g,%g,%g,%s,%s\n", id, r.Round, r.Steps, len(r.Taus), r.Lambda, r.RoundTrips, r.Restarts, r.TripRate, r.Bound,
				r.GradUnits, r.EnergyUnits, joinFloats(r.Taus, "%g", ";"), joinFloats(r.Rejection, "%g", ";"))
		}
	}
	var g, e float64
	for _, lv := range st.Levels {
		g += lv.Cost.TotalGrad().Units
		e += lv.Cost.TotalEnergy().Units
	}
	lam, bound := "", ""
	if s.Lambda != nil {
		lam, bound = fmt.Sprint(*s.Lambda), fmt.Sprint(*s.Bound)
	}
	fmt.Fprintf(w, "%d,sample,%d,%d,%s,%d,%d,%g,%s,%g,%g,%s,%s\n", id, st.Steps, len(s.Taus), lam, s.RoundTrips, s.Restarts, s.TripRate, bound,
		g, e, joinFloats(s.Taus, "%g", ";"), joinOpt(s.Rejection, "%g", ";"))
}

func joinFloats(xs []float64, format, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(parts, sep)
}

// joinOpt is joinFloats with "null" for a missing value.
func joinOpt(xs []*float64, format, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = "null"
		if x != nil {
			parts[i] = fmt.Sprintf(format, *x)
		}
	}
	return strings.Join(parts, sep)
}

// traceRecords is the most draws the ladder trace shows: more lines than a
// figure's width can hold would hide every excursion.
const traceRecords = 200

// ladderTrace draws the level of each replica of chain c at its first
// retained draws (the replica columns of its CSV) as ladder-trace.png/svg.
func ladderTrace(out *output.Dir, c *Chain, title string) error {
	col := map[string]int{}
	for j, n := range c.Columns {
		col[n] = j
	}
	K := 0
	for ; ; K++ {
		if _, ok := col[ReplicaCol(K+1)]; !ok {
			break
		}
	}
	n := 0
	if K > 0 {
		n = min(len(c.Cols[col[ReplicaCol(1)]]), traceRecords)
	}
	if K < 2 || n == 0 {
		return nil
	}
	steps, at := make([]int, n), make([][]int, n)
	for i := range n {
		steps[i] = c.Header.Burn + (i+1)*c.Header.Thin
		at[i] = make([]int, K)
		for l := range K {
			at[i][l] = int(c.Cols[col[ReplicaCol(l+1)]][i]) - 1
		}
	}
	p, err := figure.ReplicaTrace(fmt.Sprintf("%s, chain %d: level of each replica", title, c.Header.ID), steps, at)
	if err != nil {
		return err
	}
	if err := figure.Save(p, 8*vg.Inch, 4*vg.Inch, out.File("ladder-trace")); err != nil {
		return err
	}
	out.Record("ladder-trace.png", "ladder-trace.svg")
	return nil
}
