package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/swaplaw"
)

// swapLawFlags are the settings of the accepted-swap-law study.
type swapLawFlags struct {
	Seeds int
	Max   float64
	Smoke bool
	out   outFlags
}

func init() {
	f := &swapLawFlags{}
	cmd := studyCommand("swap-law", "Do minibatch swaps follow S? Accepted swaps at exact min(1, S) < 0.01 against the exact rule", help("reproduce-swap-law"), func(cmd *cobra.Command) error { return runSwapLaw(cmd, f) })
	fl := cmd.Flags()
	fl.IntVar(&f.Seeds, "seeds", 3, "seeds per method, mode and τ2")
	fl.Float64Var(&f.Max, "max", 100, "run length: the largest budget, in multiples of the burn-in cost")
	fl.BoolVar(&f.Smoke, "smoke", false, "a seconds-long run at a tiny size (for tests)")
	f.out.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}

func runSwapLaw(cmd *cobra.Command, f *swapLawFlags) error {
	if f.Seeds < 1 || f.Seeds > 1000 {
		return fmt.Errorf("--seeds = %d: must lie in [1, 1000]", f.Seeds)
	}
	if !(f.Max > 3) || f.Max > 1e4 {
		return fmt.Errorf("--max = %v: must lie in (3, 10000] times the burn-in cost", f.Max)
	}
	sz := minibatch.Size{Points: 2, Max: f.Max}
	if f.Smoke {
		sz = minibatch.Smoke
	}
	results, err := f.out.results(cmd, "swaplaw")
	if err != nil {
		return err
	}
	prs, err := swaplaw.Problems(sz)
	if err != nil {
		return err
	}
	rows, err := swaplaw.MeasureAll(prs, f.Seeds, os.Stderr)
	if err != nil {
		return err
	}
	table := func(w io.Writer) { swaplaw.Markdown(w, rows) }
	return printAndWrite(filepath.Join(results, "swaplaw.md"), fmt.Sprintf("fresgld reproduce swap-law --seeds %d --max %g", f.Seeds, sz.Max), table)
}
