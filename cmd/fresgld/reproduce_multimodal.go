package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/multimodal"
)

// multimodalFlags are the settings of the multimodal study.
type multimodalFlags struct {
	runsFlags
	Workers int
	// Problems and Methods select a part of the study: comma-separated
	// names, empty for all.
	Problems, Methods string
	Swaps             string
}

func init() {
	f := &multimodalFlags{}
	cmd := studyCommand("multimodal", "Replica exchange where it pays: spike-and-slab regressions with exact answers, the 25-Gaussian mixture, SGLD, cyclical SGLD, reSGLD, f-reSGLD and NUTS", help("reproduce-multimodal"), func(cmd *cobra.Command) error { return runMultimodal(cmd, f) })
	fl := cmd.Flags()
	f.bind(cmd, multimodal.Full.Seeds, "runs (one chain each) per method and problem", "a seconds-long run at a tiny size, without NUTS (for tests)")
	fl.IntVar(&f.Workers, "workers", 2, "runs in parallel (CPU seconds are counted per run's thread)")
	fl.StringVar(&f.Problems, "problems", "", "run only these problems (diabetes, uscrime, synthetic-1e5, synthetic-1e6, mixture)")
	fl.StringVar(&f.Swaps, "swaps", "exact", "exact (from sufficient statistics) or screened (as before issue 28)")
	fl.StringVar(&f.Methods, "methods", "", "run only these regression methods (sgld, csgld, resgld, fresgld, fresgld-adaptive)")
	reproduceCmd.AddCommand(cmd)
}

func runMultimodal(cmd *cobra.Command, f *multimodalFlags) error {
	if err := f.checkSeeds(); err != nil {
		return err
	}
	if f.Workers < 1 {
		return fmt.Errorf("--workers = %d: must be ≥ 1", f.Workers)
	}
	sz := multimodal.Full
	if f.Smoke {
		sz = multimodal.Smoke
	}
	sz.Seeds = f.seeds(cmd, sz.Seeds)
	switch f.Swaps {
	case "exact":
	case "screened":
		sz.Screened = true
	default:
		return fmt.Errorf("--swaps = %q: want exact or screened", f.Swaps)
	}
	sz.Only = commaList(f.Problems)
	for _, m := range commaList(f.Methods) {
		sz.Methods = append(sz.Methods, multimodal.Method(m))
	}
	if err := sz.Check(); err != nil {
		return fmt.Errorf("--problems, --methods: %w", err)
	}
	results, work, done, err := f.dirs(cmd, "multimodal")
	if err != nil {
		return err
	}
	defer done()
	res, err := multimodal.Measure(sz, f.Workers, work, logLine)
	if err != nil {
		return err
	}
	return printAndWrite(filepath.Join(results, "multimodal.md"), fmt.Sprintf("fresgld reproduce multimodal --seeds %d%s", sz.Seeds, selection(f)), res.Write)
}

// selection is the command line's part that selects problems and methods.
func selection(f *multimodalFlags) string {
	var s string
	if f.Problems != "" {
		s += " --problems " + f.Problems
	}
	if f.Methods != "" {
		s += " --methods " + f.Methods
	}
	if f.Swaps != "exact" {
		s += " --swaps " + f.Swaps
	}
	return s
}

// commaList splits a comma-separated list (nil for an empty one).
func commaList(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}
