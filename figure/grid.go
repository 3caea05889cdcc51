package figure

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fresgld/fresgld/output"
)

// SaveGrid draws plots in a grid of rows (a nil plot leaves its cell empty)
// and writes base.png and base.svg, each whole or not at all.
func SaveGrid(rows [][]*plot.Plot, width, height vg.Length, base string) error {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	for _, ext := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(width, height, ext)
		if err != nil {
			return err
		}
		tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		full := make([][]*plot.Plot, len(rows))
		for i, r := range rows {
			full[i] = make([]*plot.Plot, cols)
			copy(full[i], r)
		}
		cs := plot.Align(full, tiles, draw.New(c))
		for i, r := range full {
			for j, p := range r {
				if p != nil {
					p.Draw(cs[i][j])
				}
			}
		}
		if err := output.WriteFile(base+"."+ext, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return fmt.Errorf("figure %w", err)
		}
	}
	return nil
}
