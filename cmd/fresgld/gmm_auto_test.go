package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/results"
)

// gmm --method auto runs the plan on the mixture's exact energy: a ladder
// over the barrier between the two modes, whose pooled right-mode weight
// lies within 4 Monte Carlo standard errors of the exact 0.6 (the MCSE of
// the indicator x > 0 over the chains, diag.MCSEMean; a normal error
// beyond 4 has probability 6·10⁻⁵), with every chain crossing (R̂ of the
// indicator ≤ 1.01). It refuses the paper's flags it would ignore.
func TestGMMAuto(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "gmm", "--method", "auto", "--out", out)
	var right [][]float64
	for c := 1; c <= 4; c++ {
		ch, err := results.ReadStanCSV(filepath.Join(out, fmt.Sprintf("chain-%d.csv", c)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ch.Comments, "#     algorithm = preconditioned_mala_replica_exchange") {
			t.Errorf("chain %d: the header does not name the plan's ladder", c)
		}
		var in []float64
		for _, x := range ch.Cols[slices.Index(ch.Columns, "theta1")] {
			in = append(in, math.Max(0, math.Copysign(1, x)))
		}
		right = append(right, in)
	}
	s := diag.Summarize(right)
	if se := diag.MCSEMean(right); !(math.Abs(s.Mean-0.6) <= 4*se) || !(s.Rhat <= 1.01) {
		t.Errorf("right-mode weight %.4f, exact 0.6, MCSE %.3g, R̂ %.3f", s.Mean, se, s.Rhat)
	}
	err := run(t, "gmm", "--method", "auto", "--eta", "0.01", "--out", filepath.Join(t.TempDir(), "o"))
	if err == nil || !strings.Contains(err.Error(), "--eta") {
		t.Errorf("--method auto --eta: %v", err)
	}
}
