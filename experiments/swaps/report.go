package swaps

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/report"
)

func g3(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf("%.3g", x)
}

// Setting writes the problem's setting in one paragraph.
func Setting(w io.Writer, pr minibatch.Problem) {
	st := pr.Setting
	p := Periods(pr.Terms.Len(), st.NCold)
	fmt.Fprintf(w, "Problem %s: N = %d, τ1 = %g, τ2 = %g, η = %.4g, cold n = %d, swap attempts with probability a·η = %g per step (exact mode: every W = %d steps), anchor passes every m = %d steps, m-reSGLD a1 = %g, hot n automatic (share %g of 2τ2η), burn-in %.3g per-example evaluations, budgets %.3g to %.3g; swap noise = τδ²V/2 in nats, attempts above %g nats declined (data modes); exact S checked at every accepted swap and every %d-th attempt (not counted as cost).\n\n",
		pr.Name, pr.Terms.Len(), st.Tau1, st.Tau2, st.Eta, st.NCold, st.SwapA*st.Eta, p, anchorPeriod(pr.Terms.Len(), st), st.A1, st.Share, st.BurnCost, st.Budgets[0], st.Budgets[len(st.Budgets)-1], float64(MaxNoise), CheckEvery)
}

// swapRows writes the swap table of groups.
func swapRows(w io.Writer, metric string, gs []Group, last int) {
	fmt.Fprintf(w, "| arm | final %s | swap acceptance | exact-S acceptance on the same path | swap noise (nats) | declined for noise > %g | accepted swaps | with exact min(1,S) < %g | predicted by min(1,S) | smallest accepted log S | swap+anchor cost / gradient cost |\n|---|---|---|---|---|---|---|---|---|---|---|\n", metric, float64(MaxNoise), Low)
	for _, g := range gs {
		if g.Arm == "sgld" {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %.4f | %.4f | %s | %.3f | %d | %s | %s | %s | %.3f |\n", g.Arm, report.PM(g.Mean[last][0], g.SE[last][0]),
			g.SwapRate, g.ExactRate, g3(g.Noise), g.CapRate, g.Accepts, frac(g.LowFrac), frac(g.LowPred), g3(g.MinLogS), g.Extra)
	}
	fmt.Fprintln(w)
}

func frac(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.3f", x)
}

// Markdown writes the tuning table.
func (t Tuning) Markdown(w io.Writer, pr minibatch.Problem) {
	fmt.Fprintf(w, "Tuning run (seeds %d–%d, never used below): every exchange method under every swap-energy mode; the mode with the lowest final %s (draw excluded) is chosen.\n\n", TuneSeed, TuneSeed+t.Seeds-1, pr.Metrics[0])
	swapRows(w, pr.Metrics[0], t.Groups, len(pr.Setting.Budgets)-1)
	fmt.Fprintf(w, "Chosen:")
	for _, m := range []string{"resgld", "mresgld", "fresgld"} {
		for meth, mode := range t.Best {
			if string(meth) == m {
				fmt.Fprintf(w, " %s → %s;", m, mode)
			}
		}
	}
	fmt.Fprintf(w, "\n\n")
}

// Markdown writes the comparison tables.
func (c Comparison) Markdown(w io.Writer, pr minibatch.Problem) {
	st := pr.Setting
	arms := make([]string, len(c.Groups))
	for i, g := range c.Groups {
		arms[i] = g.Arm
	}
	for k, name := range pr.Metrics {
		report.BudgetTable(w, fmt.Sprintf("%s (mean ± se over %d seeds) against per-example evaluations (gradients, swap energies and anchor passes):", name, c.Seeds),
			st.Budgets, arms, func(a, b int) (float64, float64) { return c.Groups[a].Mean[b][k], c.Groups[a].SE[b][k] })
	}
	re := c.Groups[1]
	last := len(st.Budgets) - 1
	fmt.Fprintf(w, "Cost to reach reSGLD's final accuracy (first budget at which the mean falls to it, interpolated log-linearly):\n\n| arm |")
	for k, name := range pr.Metrics {
		fmt.Fprintf(w, " to %s ≤ %.3f | vs reSGLD |", name, re.Mean[last][k])
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", 2*len(pr.Metrics)))
	for _, g := range c.Groups {
		fmt.Fprintf(w, "| %s |", g.Arm)
		for k := range pr.Metrics {
			r, rr := g.ReachReSGLD[k], re.ReachReSGLD[k]
			v := "—"
			if !math.IsNaN(r) && !math.IsNaN(rr) {
				v = fmt.Sprintf("%.2f×", r/rr)
			}
			if math.IsNaN(r) {
				fmt.Fprintf(w, " not reached | %s |", v)
			} else {
				fmt.Fprintf(w, " %.3g | %s |", r, v)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nSwaps in the comparison runs (accepted swaps pooled over seeds):\n\n")
	swapRows(w, pr.Metrics[0], c.Groups, last)
}
