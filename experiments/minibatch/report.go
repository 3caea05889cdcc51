package minibatch

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/report"
	"github.com/fresgld/fresgld/figure"
)

func budget(b float64) string {
	if math.IsNaN(b) {
		return "not reached"
	}
	return fmt.Sprintf("%.3g", b)
}

// Markdown writes the study's tables: the setting, accuracy against cost,
// and per method the budget to reach each target, the hot chain's share of
// the cost, swaps and clamps.
func (s Summary) Markdown(w io.Writer) {
	st := s.Setting
	fmt.Fprintf(w, "Problem %s: τ1 = %g, τ2 = %g, η = %.4g, cold n = %d, swap attempts with probability a·η = %g per step (m-reSGLD a1 = %g), hot n automatic (share %g of 2τ2η, checked every %d steps), burn-in %.3g per-example evaluations, %d seeds.\n\n",
		s.Problem, st.Tau1, st.Tau2, st.Eta, st.NCold, st.SwapA*st.Eta, st.A1, st.Share, st.Every, st.BurnCost, s.Seeds)
	if st.Correction == exchange.Full {
		fmt.Fprintf(w, "fresgld and corrected-sgld correct their noise against each minibatch draw's full gradient covariance (--correction full), not only its diagonal.\n\n")
	}
	arms := make([]string, len(s.Methods))
	for i, m := range s.Methods {
		arms[i] = m.Method
	}
	for k, name := range s.Metrics {
		report.BudgetTable(w, name+" (mean ± se over seeds) against per-example evaluations:", st.Budgets, arms,
			func(a, b int) (float64, float64) { return s.Methods[a].Mean[b][k], s.Methods[a].SE[b][k] })
	}
	var re *MethodSummary
	for i := range s.Methods {
		if s.Methods[i].Method == "resgld" {
			re = &s.Methods[i]
		}
	}
	vs := func(m MethodSummary, r []float64, k int) string {
		if re == nil || math.IsNaN(r[k]) {
			return "—"
		}
		var rr float64
		if &r[0] == &m.Reach[0] {
			rr = re.Reach[k]
		} else {
			rr = re.ReachReSGLD[k]
		}
		if math.IsNaN(rr) {
			return "—"
		}
		return fmt.Sprintf("%.2f×", r[k]/rr)
	}
	fmt.Fprintf(w, "Cost to reach a fixed accuracy (first budget at which the mean over seeds falls to it, interpolated log-linearly; \"vs reSGLD\" is the ratio to reSGLD's cost):\n\n| method |")
	for k, name := range s.Metrics {
		fmt.Fprintf(w, " to %s ≤ %g | vs reSGLD |", name, s.Targets[k])
		if re != nil {
			fmt.Fprintf(w, " to %s ≤ %.3f (reSGLD's final) | vs reSGLD |", name, re.Mean[len(re.Mean)-1][k])
		}
	}
	cols := 2
	if re != nil {
		cols = 4
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", cols*len(s.Metrics)))
	for _, m := range s.Methods {
		fmt.Fprintf(w, "| %s |", m.Method)
		for k := range s.Metrics {
			fmt.Fprintf(w, " %s | %s |", budget(m.Reach[k]), vs(m, m.Reach, k))
			if re != nil {
				fmt.Fprintf(w, " %s | %s |", budget(m.ReachReSGLD[k]), vs(m, m.ReachReSGLD, k))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nWhere the cost goes (means over seeds; clamped steps per step):\n\n| method | hot share of cost | swap acceptance | clamped steps cold / hot | hot n final (range) | steps |\n|---|---|---|---|---|---|\n")
	for _, m := range s.Methods {
		hotn := "—"
		if m.HotNHi > 0 {
			hotn = fmt.Sprintf("%.1f (%d–%d)", m.HotN, m.HotNLo, m.HotNHi)
		}
		swap := "—"
		if m.Method != "sgld" && m.Method != string(CorrectedSGLD) {
			swap = fmt.Sprintf("%.4f", m.SwapRate)
		}
		fmt.Fprintf(w, "| %s | %.3f | %s | %.3f / %.3f | %s | %.0f |\n", m.Method, m.HotShare, swap, m.ClampCold, m.ClampHot, hotn, m.Steps)
	}
	fmt.Fprintln(w)
}

// Plot draws metric k against the per-example evaluations, log–log, one
// line per method with mean ± se error bars, and the target as a dashed
// line.
func (s Summary) Plot(k int, base string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s against cost (%d seeds)", s.Problem, s.Metrics[k], s.Seeds)
	p.X.Label.Text = "per-example evaluations"
	p.Y.Label.Text = s.Metrics[k]
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, ticks125{}
	p.Legend.Top = true
	for i, m := range s.Methods {
		var pts plotter.XYs
		var errs plotter.YErrors
		for b, x := range s.Setting.Budgets {
			v, se := m.Mean[b][k], m.SE[b][k]
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: v})
			lo := math.Min(se, 0.9*v) // keep the bar positive on a log axis
			errs = append(errs, struct{ Low, High float64 }{lo, se})
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := figure.Palette[i%len(figure.Palette)]
		l.Color, sc.Color = c, c
		l.Width = vg.Points(1.3)
		sc.Shape = draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.Color = c
		p.Add(l, sc, eb)
		p.Legend.Add(m.Method, l, sc)
	}
	bs := s.Setting.Budgets
	tl, err := plotter.NewLine(plotter.XYs{{X: bs[0], Y: s.Targets[k]}, {X: bs[len(bs)-1], Y: s.Targets[k]}})
	if err != nil {
		return err
	}
	tl.Color = color.Gray{Y: 0x60}
	tl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(tl)
	p.Legend.Add("target", tl)
	return figure.Save(p, 16*vg.Centimeter, 11*vg.Centimeter, base)
}

// ticks125 marks 1, 2 and 5 times the powers of ten on a log axis, so that a
// range of less than a decade still gets labels.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
			}
		}
	}
	return ts
}
