package figure

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Variable is one variable's draws, chain by chain: Chains[c][i] is draw i
// of chain c.
type Variable struct {
	Name   string
	Chains [][]float64
	// Unit is the unit of the values, for the axes ("": none known).
	Unit string
	// Exact, when set, is the exact marginal density, which Marginals
	// draws over the chains' (a black line).
	Exact func(float64) float64
}

// valueLabel is the axis label of v's values.
func (v Variable) valueLabel() string {
	if v.Unit == "" {
		return "value"
	}
	return "value (" + v.Unit + ")"
}

// MaxDrawn is the most points a line of a chain figure draws: longer
// chains are thinned for drawing only (every statistic is computed from all
// draws), which keeps the SVGs small.
const MaxDrawn = 250

// Grid lays panels out in rows of cols, for SaveGrid, and returns the
// figure's size for panels of panelW × panelH.
func Grid(panels []*plot.Plot, cols int, panelW, panelH vg.Length) (rows [][]*plot.Plot, w, h vg.Length) {
	cols = max(1, min(cols, len(panels)))
	for i := 0; i < len(panels); i += cols {
		rows = append(rows, panels[i:min(i+cols, len(panels))])
	}
	return rows, panelW * vg.Length(cols), panelH * vg.Length(len(rows))
}

func chainLine(xy plotter.XYs, c int) (*plotter.Line, error) {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color = Palette[c%len(Palette)]
	l.Width = vg.Points(0.6)
	return l, nil
}

// paletteLine is xy drawn width wide in Palette's i-th colour; past the
// palette's end the colours repeat, dashed (dash on, 2 points off), so
// that no two lines look alike.
func paletteLine(xy plotter.XYs, i int, width, dash vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Width = width
	l.Color = Palette[i%len(Palette)]
	if i >= len(Palette) {
		l.Dashes = []vg.Length{dash, vg.Points(2)}
	}
	return l, nil
}

// thinned is at most MaxDrawn evenly spaced points of xs against the step
// (draw i is step first + i·thin), shifted up by dy.
func thinned(xs []float64, first, thin int, dy float64) plotter.XYs {
	st := max(1, (len(xs)+MaxDrawn-1)/MaxDrawn)
	xy := make(plotter.XYs, 0, len(xs)/st+1)
	for i := 0; i < len(xs); i += st {
		xy = append(xy, plotter.XY{X: float64(first + i*thin), Y: xs[i] + dy})
	}
	return xy
}

func panel(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size = vg.Points(9)
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Marker = tidyTicks{}
	}
	return p
}

// Traces draws one panel per variable, the chains coloured, against the
// step (draw i is step first + i·thin).
func Traces(vars []Variable, first, thin int) ([]*plot.Plot, error) {
	var out []*plot.Plot
	for _, v := range vars {
		p := panel(v.Name)
		p.X.Label.Text = "step"
		p.Y.Label.Text = v.valueLabel()
		for c, xs := range v.Chains {
			l, err := chainLine(thinned(xs, first, thin, 0), c)
			if err != nil {
				return nil, fmt.Errorf("trace of %s: %w", v.Name, err)
			}
			p.Add(l)
		}
		out = append(out, p)
	}
	return out, nil
}

// RankBins is the number of bins of a rank histogram.
const RankBins = 20

// Ranks draws, per variable, each chain's histogram of the ranks of its
// draws among all chains' draws (ties get their average rank), with the
// count a chain would have in each bin if the chains were exchangeable
// (the dashed line). A chain that has not mixed piles up at one end.
func Ranks(vars []Variable) ([]*plot.Plot, error) {
	var out []*plot.Plot
	for _, v := range vars {
		ranks := rankAll(v.Chains)
		n := 0
		for _, xs := range v.Chains {
			n += len(xs)
		}
		p := panel(v.Name)
		p.X.Label.Text = "rank among all chains' draws"
		p.Y.Label.Text = "draws per bin"
		for c, rs := range ranks {
			counts := rankCounts(rs, n)
			xy := make(plotter.XYs, 0, 2*RankBins)
			for b, k := range counts {
				xy = append(xy, plotter.XY{X: float64(b) * float64(n) / RankBins, Y: k}, plotter.XY{X: float64(b+1) * float64(n) / RankBins, Y: k})
			}
			l, err := chainLine(xy, c)
			if err != nil {
				return nil, fmt.Errorf("ranks of %s: %w", v.Name, err)
			}
			p.Add(l)
		}
		if len(v.Chains) > 0 {
			e := float64(len(v.Chains[0])) / RankBins
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: e}, {X: float64(n), Y: e}})
			if err != nil {
				return nil, err
			}
			l.Color = color.Gray{Y: 0x60}
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			p.Add(l)
		}
		p.Y.Min = 0
		out = append(out, p)
	}
	return out, nil
}

// rankCounts is the histogram over RankBins equal bins of ranks among n.
func rankCounts(ranks []float64, n int) []float64 {
	counts := make([]float64, RankBins)
	for _, r := range ranks {
		counts[min(int((r-1)/float64(n)*RankBins), RankBins-1)]++
	}
	return counts
}

// rankAll returns the ranks (from 1, ties averaged) of every chain's draws
// among all draws.
func rankAll(chains [][]float64) [][]float64 {
	type idx struct{ c, i int }
	var all []idx
	for c, xs := range chains {
		for i := range xs {
			all = append(all, idx{c, i})
		}
	}
	val := func(k idx) float64 { return chains[k.c][k.i] }
	sort.SliceStable(all, func(a, b int) bool { return val(all[a]) < val(all[b]) })
	out := make([][]float64, len(chains))
	for c, xs := range chains {
		out[c] = make([]float64, len(xs))
	}
	for a := 0; a < len(all); {
		b := a + 1
		for b < len(all) && val(all[b]) == val(all[a]) {
			b++
		}
		r := float64(a+b+1) / 2 // average of ranks a+1..b
		for _, k := range all[a:b] {
			out[k.c][k.i] = r
		}
		a = b
	}
	return out
}

// MarginalBins is the number of bins of a marginal histogram.
const MarginalBins = 40

// Marginals draws, per variable, each chain's histogram density on the
// range of all chains' draws.
func Marginals(vars []Variable) ([]*plot.Plot, error) {
	var out []*plot.Plot
	for _, v := range vars {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, xs := range v.Chains {
			if len(xs) > 0 {
				lo, hi = math.Min(lo, slices.Min(xs)), math.Max(hi, slices.Max(xs))
			}
		}
		if !(hi > lo) {
			lo, hi = lo-0.5, lo+0.5
		}
		hi += (hi - lo) * 1e-9 // the largest draw falls in the last bin
		p := panel(v.Name)
		p.X.Label.Text = v.valueLabel()
		p.Y.Label.Text = "density (per unit of value)"
		for c, xs := range v.Chains {
			l, err := chainLine(Histogram(xs, lo, hi, MarginalBins), c)
			if err != nil {
				return nil, fmt.Errorf("marginal of %s: %w", v.Name, err)
			}
			p.Add(l)
		}
		if v.Exact != nil {
			const n = 400 // points: smooth at a panel's width
			xy := make(plotter.XYs, n+1)
			for i := range xy {
				xy[i].X = lo + (hi-lo)*float64(i)/n
				xy[i].Y = v.Exact(xy[i].X)
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, fmt.Errorf("exact marginal of %s: %w", v.Name, err)
			}
			l.Color, l.Width = color.Black, vg.Points(1.2)
			p.Add(l)
		}
		out = append(out, p)
	}
	return out, nil
}

// Replicas draws, per chain, which replica sits at each level of its ladder
// against the step: levels[l][i] is the replica (from 1) at level l at draw
// i. Lines that cross are swaps; a flat pair never swapped. Level l is drawn
// in Palette[l]; the figure's Key names the levels (a legend inside a
// panel covered the top level's line).
func Replicas(chainIDs []int, levels [][][]float64, first, thin int) ([]*plot.Plot, error) {
	var out []*plot.Plot
	for c, lv := range levels {
		p := panel(fmt.Sprintf("chain %d: replica at each level", chainIDs[c]))
		p.X.Label.Text = "step"
		p.Y.Label.Text = "replica"
		for l, xs := range lv {
			// Shifted a little per level, so that lines on top of each
			// other stay visible.
			line, err := chainLine(thinned(xs, first, thin, 0.08*float64(l)), l)
			if err != nil {
				return nil, fmt.Errorf("replicas of chain %d: %w", chainIDs[c], err)
			}
			line.StepStyle = plotter.PreStep
			p.Add(line)
		}
		p.Y.Tick.Marker = integerTicks{1, len(lv)}
		p.Y.Min, p.Y.Max = 0.8, float64(len(lv))+0.08*float64(len(lv)-1)+0.2
		out = append(out, p)
	}
	return out, nil
}
