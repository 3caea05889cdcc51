package main

import (
	"fmt"
	"os"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/output"
)

// mergeSummary is summary.json of a merge.
type mergeSummary struct {
	Files    []string    `json:"files"`
	Settings [][2]string `json:"settings"`
	results.Summary
}

func init() {
	var out string
	cmd := addArgsCommand("merge DIR|FILE...", "Pool the chains of separate runs and print their summary", cobra.MinimumNArgs(1),
		func(cmd *cobra.Command, args []string) error { return runMerge(cmd, args, out) })
	cmd.Flags().StringVar(&out, "out", "", "directory for summary.txt, summary.json and figures (default: print only)")
}

func runMerge(cmd *cobra.Command, args []string, out string) error {
	files, err := results.ChainFiles(args)
	if err != nil {
		return err
	}
	res, skipped, err := analysis.Merge(files)
	for _, s := range skipped {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning: left out:", s)
	}
	if err != nil {
		return err
	}
	if out == "" {
		results.WriteTable(os.Stdout, res.Summary)
		for _, w := range res.Summary.Warnings {
			fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
		}
		return res.Stopped()
	}
	dir, err := output.Prepare(out, analysis.SummaryOutputs()...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	sum := mergeSummary{Files: files, Settings: res.Chains[0].Header.Settings, Summary: res.Summary}
	return results.Report(os.Stdout, cmd.ErrOrStderr(), dir, res.Chains, &res.Summary, &sum, nil)
}
