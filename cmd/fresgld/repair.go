package main

import (
	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/results"
)

func init() {
	cmd := &cobra.Command{
		Use:   "repair DIR|FILE...",
		Short: "Complete the chain CSVs of a run that was killed",
		Long:  help("repair"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := results.ChainFiles(args)
			if err != nil {
				return err
			}
			return results.Repair(cmd.OutOrStdout(), files)
		},
	}
	rootCmd.AddCommand(cmd)
}
