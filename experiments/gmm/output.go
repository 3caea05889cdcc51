package gmm

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/output"
)

// Range and bins of the density figures.
const figLo, figHi, figBins = -8.0, 6.0, 70

// Write saves the per-seed CSV, the JSON and Markdown summaries under
// results and one density figure per fixed size under figures, and returns
// the Markdown.
func (g GMM) Write(res Result, results, figures string) (string, error) {
	sum := Summarise(res.Rows, res.Exact.Right)
	var md bytes.Buffer
	if err := WriteMarkdown(&md, sum, g.Bins); err != nil {
		return "", err
	}
	if err := os.MkdirAll(results, 0o755); err != nil {
		return "", err
	}
	var csvb, js bytes.Buffer
	if err := WriteCSV(&csvb, res.Rows); err != nil {
		return "", err
	}
	if err := WriteJSON(&js, sum); err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{g.Name + ".csv": csvb.Bytes(), g.Name + ".json": js.Bytes(), g.Name + ".md": md.Bytes()} {
		if err := output.WriteBytes(filepath.Join(results, name), b); err != nil {
			return "", fmt.Errorf("writing %s: %w", name, err)
		}
	}
	for _, z := range g.Sizes {
		if z.Budget > 0 {
			continue // the equal-cost run is a table, not a picture
		}
		if err := g.figure(res, z.Name, filepath.Join(figures, g.Name+"-"+z.Name)); err != nil {
			return "", err
		}
	}
	return md.String(), nil
}

func (g GMM) figure(res Result, size, base string) error {
	ex := res.Exact.Grid
	exact := make(plotter.XYs, 0, 561)
	for i := 0; i <= 560; i++ {
		x := figLo + (figHi-figLo)*float64(i)/560
		exact = append(exact, plotter.XY{X: x, Y: ex.At(x)})
	}
	var curves []figure.Curve
	n := 0
	for _, v := range study.Variants {
		s := res.Figure[size][v.Name]
		n = len(s)
		curves = append(curves, figure.Curve{Name: v.Name, XY: figure.Histogram(s, figLo, figHi, figBins)})
	}
	noise := "fixed noise"
	if g.StateNoise {
		noise = "state-dependent noise"
	}
	p, err := figure.Densities(fmt.Sprintf("Gaussian mixture, %s: %d samples (seed 1)", noise, n), exact, curves)
	if err != nil {
		return err
	}
	return figure.Save(p, 18*vg.Centimeter, 11*vg.Centimeter, base)
}
