package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"
)

// report prints a run's table (stdout) and warnings (stderr), writes its
// summary files (summary.json holds full) and then removes its
// checkpoints: nothing is left to resume.
func report(cmd *cobra.Command, res *analysis.Result, full any) error {
	if err := results.Report(os.Stdout, cmd.ErrOrStderr(), res.Dir(), res.Chains, &res.Summary, full, res.Err); err != nil {
		return err // an interrupted or stopped chain keeps its checkpoint
	}
	return res.Finished()
}

// printLines prints each line on stdout.
func printLines(lines []string) {
	for _, l := range lines {
		fmt.Println(l)
	}
}
