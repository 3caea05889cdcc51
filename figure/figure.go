// Package figure saves gonum plots as the PNG and SVG files the commands and
// documents show, and draws the figures several commands share.
package figure

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Save writes p as base.png and base.svg, creating base's directory.
func Save(p *plot.Plot, width, height vg.Length, base string) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return fmt.Errorf("figure %s: %w", base, err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(width, height, base+ext); err != nil {
			return fmt.Errorf("figure %s%s: %w", base, ext, err)
		}
	}
	return nil
}
