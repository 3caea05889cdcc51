package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// The checks and the scratch space of the studies whose MCSE is the spread
// of their runs (multimodal, tempering).

// runsFlags are the settings such a study's command shares: --seeds,
// --smoke and the output flags.
type runsFlags struct {
	Seeds int
	Smoke bool
	out   outFlags
}

// bind registers --seeds (seeds by default, what one seed runs), --smoke
// (what the smoke size is) and the output flags.
func (r *runsFlags) bind(cmd *cobra.Command, seeds int, seedsUsage, smokeUsage string) {
	cmd.Flags().IntVar(&r.Seeds, "seeds", seeds, seedsUsage)
	cmd.Flags().BoolVar(&r.Smoke, "smoke", false, smokeUsage)
	r.out.bind(cmd)
}

// checkSeeds refuses a number of runs whose spread is no MCSE, or more
// than a study can mean.
func (r *runsFlags) checkSeeds() error {
	if r.Seeds < 2 || r.Seeds > 1000 {
		return fmt.Errorf("--seeds = %d: must lie in [2, 1000] (the MCSE is the runs' spread)", r.Seeds)
	}
	return nil
}

// seeds is the study's number of seeds: --seeds, but at the smoke size
// the size's own, smoke, unless --seeds is given.
func (r *runsFlags) seeds(cmd *cobra.Command, smoke int) int {
	if !r.Smoke || cmd.Flags().Changed("seeds") {
		return r.Seeds
	}
	return smoke
}

// dirs readies the study's tables directory under sub (outFlags.results,
// free the further flags --docs allows) and makes the scratch directory of
// its NUTS runs; done removes the scratch.
func (r *runsFlags) dirs(cmd *cobra.Command, sub string, free ...string) (results, work string, done func(), err error) {
	if results, err = r.out.results(cmd, sub, free...); err != nil {
		return "", "", nil, err
	}
	if work, err = os.MkdirTemp("", "fresgld-nuts-"); err != nil {
		return "", "", nil, err
	}
	return results, work, func() { os.RemoveAll(work) }, nil
}

// logLine prints a study's progress line on stderr.
func logLine(s string) { fmt.Fprintln(os.Stderr, s) }
