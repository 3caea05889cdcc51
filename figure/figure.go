// Package figure saves gonum plots as the PNG and SVG files the commands and
// documents show, and draws the figures several commands share.
package figure

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/output"
)

// Save writes p as base.png and base.svg, creating base's directory.
func Save(p *plot.Plot, width, height vg.Length, base string) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("figure %s: %w", base, err)
	}
	for _, ext := range []string{".png", ".svg"} {
		wt, err := p.WriterTo(width, height, ext[1:])
		if err != nil {
			return fmt.Errorf("figure %s%s: %w", base, ext, err)
		}
		// Whole or not at all: an interrupt never leaves a 0-byte figure.
		if err := output.WriteFile(base+ext, func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
			return fmt.Errorf("figure %w", err)
		}
	}
	return nil
}
