package main

import (
	"github.com/fresgld/fresgld/analysis"

	"github.com/spf13/cobra"
)

func init() {
	cmd := &cobra.Command{
		Use:   "repair DIR|FILE...",
		Short: "Complete the chain CSVs of a run that was killed",
		Long: `repair completes the chain CSVs of a run killed before it could finish them
(kill -9, an out-of-memory kill, a lost node): each chain-*.csv that ends
without its trailing statistics gets a trailing block that says so, with the
steps counted to its last draw; a partial last line, if the kill cut one, is
removed. Every whole draw is kept. Complete files are left alone. merge reads
killed runs without repair; repair is for tools that want the trailing block.
Each argument is a run's output directory or one chain's CSV file.`,
		Args: cobra.MinimumNArgs(1),
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
