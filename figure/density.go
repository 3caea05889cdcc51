package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is a named line of a density figure.
type Curve struct {
	Name string
	XY   plotter.XYs
}

// Palette is the colour of the i-th line after the exact curve, distinct
// enough on screen and in print.
var Palette = []color.Color{
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // pink
}

// Densities draws the exact density in black and one line per curve.
func Densities(title string, exact plotter.XYs, curves []Curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "θ"
	p.Y.Label.Text = "density"
	p.Legend.Top = true
	ex, err := plotter.NewLine(exact)
	if err != nil {
		return nil, err
	}
	ex.Width = vg.Points(2)
	ex.Color = color.Black
	p.Add(ex)
	p.Legend.Add("exact", ex)
	for i, c := range curves {
		l, err := paletteLine(c.XY, i, vg.Points(1.3), vg.Points(4))
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add(c.Name, l)
	}
	p.Legend.ThumbnailWidth = vg.Points(20)
	return p, nil
}

// Histogram turns samples into a density curve over bins equal bins on
// [lo, hi] (the step heights joined at bin centres), comparable with an
// exact density drawn on the same axes.
func Histogram(samples []float64, lo, hi float64, bins int) plotter.XYs {
	counts := make([]float64, bins)
	w := (hi - lo) / float64(bins)
	for _, x := range samples {
		i := int(math.Floor((x - lo) / w))
		if i >= 0 && i < bins {
			counts[i]++
		}
	}
	xy := make(plotter.XYs, bins)
	for i, c := range counts {
		xy[i].X = lo + (float64(i)+0.5)*w
		xy[i].Y = c / (float64(len(samples)) * w)
	}
	return xy
}
