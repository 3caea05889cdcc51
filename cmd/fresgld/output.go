package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/fresgld/fresgld/analysis"
	"github.com/spf13/cobra"
)

// report prints a run's table (stdout) and warnings (stderr), writes its
// summary files (summary.json holds full) and then removes its
// checkpoints: nothing is left to resume.
func report(cmd *cobra.Command, res *analysis.Result, full any) error {
	if err := analysis.Report(os.Stdout, cmd.ErrOrStderr(), res.Dir(), res.Chains, &res.Summary, full, res.Err); err != nil {
		return err // an interrupted or stopped chain keeps its checkpoint
	}
	return res.Finished()
}

// encodeJSON writes v to w as indented JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// names returns θ1, θ2, ... for p coordinates.
func coordNames(p int) []string {
	n := make([]string, p)
	for j := range n {
		n[j] = "theta" + strconv.Itoa(j+1)
	}
	return n
}

// printLines prints each line on stdout.
func printLines(lines []string) {
	for _, l := range lines {
		fmt.Println(l)
	}
}
