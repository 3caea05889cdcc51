package tempering

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Write writes the study's tables and goals as Markdown.
func Write(w io.Writer, rs []*Result) {
	for _, r := range rs {
		r.write(w)
	}
	fmt.Fprintln(w, "Goals (set in the issue before any run):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | goal | measured | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rs {
		for _, g := range r.Goals() {
			met := "**no**"
			if g.Met {
				met = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Workload.Name, g.Goal, g.Verdict, met)
		}
	}
	fmt.Fprintln(w)
}

func (r *Result) write(w io.Writer) {
	wl := r.Workload
	fmt.Fprintf(w, "**%s** (%s). Reference: %s. Reference %s: %s.\n\n", wl.Name, wl.About, wl.RefNote, wl.Quantity, named(wl.Names, wl.Ref))
	fmt.Fprintf(w, "Mode separation, from the default's mode search: %s.\n\n", separation(r.Rows[0].Runs))
	fmt.Fprintf(w, "Every method at the default's CPU time, %.3g s a run (%d runs of 4 chains each):\n\n", r.Target, len(r.Rows[0].Runs))
	fmt.Fprintf(w, "| method | largest %s error of the runs pooled (column) ± MCSE | error / MCSE | a run's own largest error ± se | CPU s / run | levels | cold-pair swap acceptance (runs with a ladder) | round trips per 10⁶ cold steps (runs with a ladder) | swaps' share of cost | tuning's share of cost | runs warned modes-not-crossed | length |\n", wl.Quantity)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, row := range r.Rows {
		run := row.Runs[0]
		ls := row.ladders()
		levels := fmt.Sprint(ls.lo)
		if ls.hi > ls.lo {
			levels = fmt.Sprintf("%d–%d", ls.lo, ls.hi)
		}
		swap, rt := "—", "—"
		if ls.ladders > 0 {
			swap, rt = fmt.Sprintf("%.3f", ls.accept), fmt.Sprintf("%.3g", ls.trips)
		}
		length := row.Note
		if length == "" {
			length = run.Note
		}
		if length == "" {
			length = "its own rule"
		}
		fmt.Fprintf(w, "| %s | %.4f (%s) ± %.4f | %.1f | %.4f ± %.4f | %.3g | %s | %s | %s | %.2f | %.2f | %d of %d | %s |\n",
			row.Method, row.Err, row.Coef, row.MCSE, row.Err/row.MCSE, row.RunErr, row.RunErrSE, row.CPU, levels, swap, rt, ls.share, ls.tune, ls.warned, len(row.Runs), length)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "A run's own largest %s error at shares of its draws, against its CPU seconds (mean over runs):\n", wl.Quantity)
	fmt.Fprintln(w)
	fmt.Fprint(w, "| method |")
	for _, f := range prefixes {
		fmt.Fprintf(w, " %s of the draws |", share(f))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "|---|%s\n", strings.Repeat("---|", len(prefixes)))
	for _, row := range r.Rows {
		if len(row.Runs[0].Curve) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s |", row.Method)
		for i := range prefixes {
			var cpu, e float64
			for _, x := range row.Runs {
				cpu += x.Curve[i].CPU / float64(len(row.Runs))
				e += x.Curve[i].Err / float64(len(row.Runs))
			}
			fmt.Fprintf(w, " %.4f at %.3g s |", e, cpu)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	if r.NUTSNote != "" {
		fmt.Fprintf(w, "%s.\n\n", r.NUTSNote)
	} else {
		fmt.Fprintln(w, "NUTS runs 1000 warmup iterations a chain however short the target, so where those alone outlast the default's CPU time it runs longer than the others (its CPU column) and is scored on all its draws.")
		fmt.Fprintln(w)
	}
}

// ladderStats are a row's runs summed: the levels' range, the mean shares
// of cost in swaps and tuning, the runs warned modes-not-crossed and, over
// the runs with a ladder, the mean cold-pair acceptance and the round trips
// per 10⁶ cold steps.
type ladderStats struct {
	lo, hi, warned, ladders    int
	share, tune, accept, trips float64
}

func (row Row) ladders() ladderStats {
	ls := ladderStats{lo: row.Runs[0].Levels, hi: row.Runs[0].Levels}
	trips, steps := 0, 0
	for _, x := range row.Runs {
		ls.share += x.SwapShare / float64(len(row.Runs))
		ls.tune += x.TuneShare / float64(len(row.Runs))
		ls.lo, ls.hi = min(ls.lo, x.Levels), max(ls.hi, x.Levels)
		if slices.Contains(x.Warnings, "modes-not-crossed") {
			ls.warned++
		}
		if x.Levels < 2 {
			continue
		}
		ls.ladders++
		trips += x.RoundTrips
		steps += x.ColdSteps
		ls.accept += x.SwapAccept
	}
	if ls.ladders > 0 {
		ls.accept /= float64(ls.ladders)
		ls.trips = 1e6 * float64(trips) / float64(steps)
	}
	return ls
}

// separation says the modes each run's search found and the barrier
// between the heaviest and the others of weight ≥ 0.005.
func separation(runs []*Run) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, fmt.Sprintf("%d modes, barrier %.3g nats", r.Modes, r.Barrier))
	}
	return "runs 1–" + fmt.Sprint(len(runs)) + ": " + strings.Join(parts, "; ")
}

func share(f float64) string {
	if f == 1 {
		return "all"
	}
	return fmt.Sprintf("1/%.0f", 1/f)
}

func named(names []string, v []float64) string {
	var parts []string
	for j, n := range names {
		parts = append(parts, fmt.Sprintf("%s %.3f", n, v[j]))
	}
	return strings.Join(parts, ", ")
}

// Goal is one goal's verdict on one workload.
type Goal struct {
	Goal, Verdict string
	Met           bool
}

// Goals judges the goals: at the same CPU time, NUTS and the one
// level each miss by ≥ 0.1, and the default is within 0.02 and 3 MCSE;
// the adaptive minibatch ladder spends ≤ 25% of its cost on swaps (and
// their confirmations) while making ≥ 20 round trips per 10⁶ cold steps.
func (r *Result) Goals() []Goal {
	var gs []Goal
	for _, row := range r.Rows {
		v := fmt.Sprintf("%.4f (%s) ± %.4f", row.Err, row.Coef, row.MCSE)
		switch row.Method {
		case "default":
			gs = append(gs, Goal{"default: within 0.02 and 3 MCSE of the reference", v, row.Err <= 0.02 && row.Err <= 3*row.MCSE})
		case "one level", "NUTS":
			gs = append(gs, Goal{row.Method + ": misses by ≥ 0.1 at the default's CPU time", v, row.Err >= 0.1})
		case "fresgld ladder":
			ls := row.ladders()
			gs = append(gs, Goal{row.Method + ": swaps ≤ 25% of the cost, with ≥ 20 round trips per 10⁶ cold steps",
				fmt.Sprintf("swaps %.2f of the cost, %.3g round trips", ls.share, ls.trips), ls.share <= 0.25 && ls.trips >= 20})
		}
	}
	return gs // a NaN error meets no goal: every comparison with it is false
}
