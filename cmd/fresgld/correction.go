package main

import (
	"fmt"

	"github.com/fresgld/fresgld/exchange"
)

// parseCorrection reads --correction for method m. Only f-reSGLD corrects
// its noise, so asking another method for the full correction is an error
// rather than a setting silently ignored.
func parseCorrection(s string, m exchange.Method) (exchange.Correction, error) {
	c, err := exchange.ParseCorrection(s)
	if err != nil {
		return 0, fmt.Errorf("--correction: %w", err)
	}
	if c != exchange.Diagonal && m != exchange.FReSGLDMethod {
		return 0, fmt.Errorf("--correction %v: method %s injects uncorrected noise; only fresgld corrects it", c, m)
	}
	return c, nil
}
