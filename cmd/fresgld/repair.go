package main

import (
	"github.com/fresgld/fresgld/analysis"

	"github.com/spf13/cobra"
)

func init() {
	cmd := &cobra.Command{
		Use:   "repair DIR|FILE...",
		Short: "Complete the chain CSVs of a run that was killed",
		Long:  help("repair"),
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := analysis.ChainFiles(args)
			if err != nil {
				return err
			}
			return analysis.Repair(cmd.OutOrStdout(), files)
		},
	}
	rootCmd.AddCommand(cmd)
}
