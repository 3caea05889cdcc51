package main

import (
	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/results"
)

func init() {
	addArgsCommand("repair DIR|FILE...", "Complete the chain CSVs of a run that was killed", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		files, err := results.ChainFiles(args)
		if err != nil {
			return err
		}
		return results.Repair(cmd.OutOrStdout(), files)
	})
}
