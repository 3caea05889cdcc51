package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/output"
	"github.com/spf13/cobra"
)

// report prints a run's swap lines, its table (stdout) and warnings
// (stderr), writes its summary files (summary.json holds full) and then
// removes its checkpoints: nothing is left to resume.
func report(cmd *cobra.Command, res *analysis.Result, full any) error {
	for _, l := range res.SwapLines {
		fmt.Println(l)
	}
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

// finishChains is analysis.FinishChains with the command's stdout and its
// extra warnings as lines.
func finishChains(stderr io.Writer, dir *output.Dir, chains []*analysis.Chain, sum *analysis.Summary, full any, writeErr error, extra []string) error {
	var ws []analysis.Warning
	for _, m := range extra {
		ws = append(ws, analysis.Warning{Message: m})
	}
	return analysis.FinishChains(os.Stdout, stderr, dir, chains, sum, full, writeErr, ws)
}
