package figure

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Key is a panel with no axes that says which colour is which line (the
// i-th label takes Palette[i], as chainLine colours line i) and carries the
// figure's caption: a grid of panels has no room for a legend inside each
// without covering lines, and a reader must not have to guess.
//
// The label ExactLabel takes the exact density's black line instead.
func Key(labels []string, caption string) (*plot.Plot, error) {
	p := plot.New()
	p.HideAxes()
	p.Title.Text = wrap(caption, 48)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Top, p.Legend.Left = true, true
	for i, lab := range labels {
		l, err := chainLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}}, i)
		if err != nil {
			return nil, err
		}
		l.Width = vg.Points(1.5)
		if lab == ExactLabel {
			l.Color, l.Width = color.Black, vg.Points(2)
		}
		p.Legend.Add(lab, l)
	}
	return p, nil
}

// ExactLabel names the exact density's line in a Key.
const ExactLabel = "exact density"

// wrap breaks s into lines of at most width runes at spaces.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines, line = append(lines, line), w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// tidyTicks are gonum's default ticks with every label of an axis in one
// format: the default formats each tick on its own, so that "250.00" stood
// beside "300", and tiny values printed six digits ("2.87567e-140"). The
// labels take the fewest decimals (fixed, or in a mantissa for very large
// or small numbers) that tell the ticks apart exactly enough.
type tidyTicks struct{}

func (tidyTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	var vals []float64
	for _, t := range ts {
		if t.Label != "" {
			vals = append(vals, t.Value)
		}
	}
	format := tickFormat(vals)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = format(ts[i].Value)
		}
	}
	return ts
}

// tickFormat returns the formatter of the values: fixed notation with the
// fewest decimals that render every value within a thousandth of the
// smallest gap between them, for magnitudes in [1e-3, 1e6); above or below,
// the same in exponent notation. Zero is "0".
func tickFormat(vals []float64) func(float64) string {
	big, gap := 0.0, math.Inf(1)
	for i, v := range vals {
		big = math.Max(big, math.Abs(v))
		if i > 0 {
			gap = math.Min(gap, math.Abs(v-vals[i-1]))
		}
	}
	if math.IsInf(gap, 1) || gap == 0 {
		gap = math.Max(big, 1)
	}
	verb := byte('f')
	if big != 0 && (big < 1e-3 || big >= 1e6) {
		verb = 'e'
	}
	for d := 0; d <= 15; d++ {
		ok := true
		for _, v := range vals {
			back, err := strconv.ParseFloat(strconv.FormatFloat(v, verb, d, 64), 64)
			ok = ok && err == nil && math.Abs(back-v) <= gap*1e-3
		}
		if ok {
			return func(v float64) string {
				if v == 0 {
					return "0"
				}
				return strconv.FormatFloat(v, verb, d, 64)
			}
		}
	}
	return func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
}

// integerTicks label the whole numbers lo..hi and nothing between: the
// replica ids, of which 1.5 means nothing.
type integerTicks struct{ lo, hi int }

func (t integerTicks) Ticks(_, _ float64) []plot.Tick {
	var ts []plot.Tick
	for v := t.lo; v <= t.hi; v++ {
		ts = append(ts, plot.Tick{Value: float64(v), Label: strconv.Itoa(v)})
	}
	return ts
}
