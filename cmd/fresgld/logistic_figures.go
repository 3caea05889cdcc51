package main

import (
	"fmt"
	"math"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/output"
)

// Figure sizes: one panel per coefficient, at most maxPanels of them, each
// trace drawn through at most maxTracePoints samples (evenly thinned) so
// that an SVG stays well under 2 MB (36 panels × 1000 points ≈ 1 MB).
const (
	maxPanels      = 36
	panelCols      = 4
	maxTracePoints = 1000
	// bigOutput is the number of sample values above which the command
	// says what it is writing, since the figures take a while.
	bigOutput = 1_000_000
)

// panels picks the coefficients to draw: all of them up to maxPanels, else
// the maxPanels whose posterior mean lies most sds from 0, in their order.
// The note says which were drawn.
func panels(mean, sd []float64) (idx []int, note string) {
	p := len(mean)
	idx = make([]int, p)
	for j := range idx {
		idx[j] = j
	}
	if p <= maxPanels {
		return idx, ""
	}
	z := func(j int) float64 {
		v := math.Abs(mean[j]) / sd[j]
		if math.IsNaN(v) {
			return math.Inf(1) // non-finite coefficients are the first to see
		}
		return v
	}
	slices.SortStableFunc(idx, func(a, b int) int { return -cmpFloat(z(a), z(b)) })
	idx = idx[:maxPanels]
	slices.Sort(idx)
	return idx, fmt.Sprintf("%d of %d coefficients, those with the largest |mean|/sd", maxPanels, p)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeFigures writes trace.png/svg and marginals.png/svg: one panel per
// coefficient drawn.
func writeFigures(out *output.Dir, tr exchange.Trace, names []string, thin int, mean, sd []float64) error {
	idx, note := panels(mean, sd)
	if note != "" {
		fmt.Fprintf(os.Stderr, "figures: %s\n", note)
	}
	big := tr.Len()*tr.P > bigOutput
	if big {
		fmt.Fprintf(os.Stderr, "writing the figures (%d panels of %d samples)…\n", len(idx), tr.Len())
	}
	step := max(1, (tr.Len()+maxTracePoints-1)/maxTracePoints)
	var traces, margins []*plot.Plot
	for _, j := range idx {
		xy := make(plotter.XYs, 0, tr.Len()/step+1)
		for i := 0; i < tr.Len(); i += step {
			xy = append(xy, plotter.XY{X: float64((i + 1) * thin), Y: tr.At(i)[j]})
		}
		pt := plot.New()
		pt.Title.Text = names[j]
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("trace of %s: %w", names[j], err)
		}
		l.Color = figure.Palette[0]
		pt.Add(l)
		traces = append(traces, pt)

		xs := tr.Coord(j)
		lo, hi := slices.Min(xs), slices.Max(xs)
		if !(hi > lo) {
			lo, hi = lo-0.5, lo+0.5
		}
		pm := plot.New()
		pm.Title.Text = names[j]
		h, err := plotter.NewLine(figure.Histogram(xs, lo, hi, 40))
		if err != nil {
			return fmt.Errorf("marginal of %s: %w", names[j], err)
		}
		h.Color = figure.Palette[0]
		pm.Add(h)
		margins = append(margins, pm)
	}
	title := func(ps []*plot.Plot, x string) {
		for _, p := range ps {
			p.X.Label.Text = x
		}
	}
	title(traces, "step after burn-in")
	title(margins, "coefficient")
	rows := (len(idx) + panelCols - 1) / panelCols
	w, h := 26*vg.Centimeter, vg.Length(rows)*5.5*vg.Centimeter
	for _, f := range []struct {
		name string
		ps   []*plot.Plot
	}{{"trace", traces}, {"marginals", margins}} {
		var grid [][]*plot.Plot
		for r := range rows {
			grid = append(grid, f.ps[r*panelCols:min((r+1)*panelCols, len(f.ps))])
		}
		if err := figure.SaveGrid(grid, w, h, out.File(f.name)); err != nil {
			return err
		}
		out.Record(f.name+".png", f.name+".svg")
		if big {
			fmt.Fprintf(os.Stderr, "wrote %s.png and %s.svg\n", f.name, f.name)
		}
	}
	return nil
}
