package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/figure"
)

// finishChains summarises the chains into *sum, prints the table on stdout
// and the warnings (extra ones first) on stderr, and writes summary.txt
// (the table), summary.json (full, which holds *sum) and the chain figures
// into out, and says it wrote those and the files in wrote. It returns an error when a chain stopped early or a file could
// not be written; everything that could be written is.
func finishChains(out string, chains []*stanChain, sum *chainsSummary, full any, writeErr error, extra []string, wrote string) error {
	s, err := summarizeChains(chains)
	if err != nil {
		return errors.Join(writeErr, err)
	}
	*sum = s
	var tbl bytes.Buffer
	writeTable(&tbl, s)
	os.Stdout.Write(tbl.Bytes())
	for _, w := range extra {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	writeWarnings(os.Stderr, s)
	errs := []error{writeErr, os.WriteFile(filepath.Join(out, "summary.txt"), tbl.Bytes(), 0o644)}
	if s.Draws > 0 {
		note, err := chainFigures(out, chains, s)
		if note != "" {
			fmt.Println("figures:", note)
		}
		errs = append(errs, err)
	}
	errs = append(errs, writeJSON(filepath.Join(out, "summary.json"), full))
	fmt.Printf("wrote %s: %s\n", out, wrote)
	return errors.Join(append(errs, stoppedError(s, len(chains)))...)
}

// figurePanels is the most variables a chain figure shows.
const figurePanels = 12

// chainFigures draws trace, rank, marginal and replica figures of the
// chains the summary pools. With more than figurePanels variables it shows
// those with the largest R̂ and says so in the returned note.
func chainFigures(out string, chains []*stanChain, s chainsSummary) (note string, err error) {
	var used []*stanChain
	for _, c := range chains {
		if slices.Contains(s.Chains, c.Header.ID) {
			used = append(used, c)
		}
	}
	c0 := used[0]
	col := map[string]int{}
	for j, n := range c0.Columns {
		col[n] = j
	}
	rows := slices.Clone(s.Parameters)
	if len(rows) > figurePanels {
		// Largest R̂ first, NaN (undefined R̂) before any number.
		slices.SortStableFunc(rows, func(a, b paramRow) int {
			switch {
			case math.IsNaN(a.Rhat) && !math.IsNaN(b.Rhat):
				return -1
			case math.IsNaN(b.Rhat) && !math.IsNaN(a.Rhat):
				return 1
			case a.Rhat > b.Rhat:
				return -1
			case a.Rhat < b.Rhat:
				return 1
			}
			return 0
		})
		rows = rows[:figurePanels]
		note = fmt.Sprintf("the %d of %d variables with the largest R̂", figurePanels, len(s.Parameters))
	}
	var vars []figure.Variable
	for _, r := range rows {
		v := figure.Variable{Name: fmt.Sprintf("%s (R̂ %.3f)", r.Name, r.Rhat)}
		for _, c := range used {
			v.Chains = append(v.Chains, c.Cols[col[r.Name]][:s.Draws])
		}
		vars = append(vars, v)
	}
	h := c0.Header
	first := h.Burn + h.Thin
	const cols = 3
	pw, ph := 6*vg.Centimeter, 4.5*vg.Centimeter
	var errs []error
	if ps, err := figure.Traces(vars, first, h.Thin); err == nil {
		errs = append(errs, figure.SaveGrid(ps, cols, pw, ph, filepath.Join(out, "trace")))
	} else {
		errs = append(errs, err)
	}
	if ps, err := figure.Ranks(vars); err == nil {
		errs = append(errs, figure.SaveGrid(ps, cols, pw, ph, filepath.Join(out, "ranks")))
	} else {
		errs = append(errs, err)
	}
	if ps, err := figure.Marginals(vars); err == nil {
		errs = append(errs, figure.SaveGrid(ps, cols, pw, ph, filepath.Join(out, "marginals")))
	} else {
		errs = append(errs, err)
	}
	K := len(s.Clamped)
	var ids []int
	var levels [][][]float64
	for _, c := range used {
		var lv [][]float64
		for l := range K {
			lv = append(lv, c.Cols[col[replicaCol(l+1)]][:s.Draws])
		}
		ids, levels = append(ids, c.Header.ID), append(levels, lv)
	}
	if ps, err := figure.Replicas(ids, levels, first, h.Thin); err == nil {
		errs = append(errs, figure.SaveGrid(ps, 2, 9*vg.Centimeter, ph, filepath.Join(out, "replicas")))
	} else {
		errs = append(errs, err)
	}
	return note, errors.Join(errs...)
}

// stoppedError reports the chains that stopped early; their draws are kept.
func stoppedError(s chainsSummary, n int) error {
	var errs []error
	for _, c := range s.Stopped {
		errs = append(errs, fmt.Errorf("chain %d of %d stopped after %d steps (its draws are kept): %s", c.Chain, n, c.Steps, c.Error))
	}
	return errors.Join(errs...)
}
