package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// PM formats a mean and its standard error to three decimals: "—" for a
// NaN mean, the mean alone for a NaN error.
func PM(m, se float64) string {
	switch {
	case math.IsNaN(m):
		return "—"
	case math.IsNaN(se):
		return fmt.Sprintf("%.3f", m)
	}
	return fmt.Sprintf("%.3f ± %.3f", m, se)
}

// BudgetTable writes caption, then a Markdown table with a row per budget
// and a column per arm whose cells are cell(arm, budget) as PM, then a
// blank line.
func BudgetTable(w io.Writer, caption string, budgets []float64, arms []string, cell func(arm, b int) (mean, se float64)) {
	fmt.Fprintf(w, "%s\n\n| evaluations |", caption)
	for _, a := range arms {
		fmt.Fprintf(w, " %s |", a)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(arms)))
	for b, x := range budgets {
		fmt.Fprintf(w, "| %.3g |", x)
		for a := range arms {
			fmt.Fprintf(w, " %s |", PM(cell(a, b)))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}
