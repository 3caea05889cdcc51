// Command fresgld runs replica-exchange stochastic gradient Langevin samplers
// on the paper's experiments and on a user's own data.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
	Use:           "fresgld",
	Short:         "Fast replica exchange stochastic gradient Langevin dynamics",
	Long:          help("fresgld"),
	SilenceUsage:  true,
	SilenceErrors: true,
}

// reproduceCmd groups the studies that reproduce the paper's experiments.
// Without a study it prints its help; an unknown study is an error.
var reproduceCmd = &cobra.Command{
	Use:   "reproduce",
	Short: "Run the studies that reproduce the paper's experiments",
	Args:  cobra.NoArgs,
	RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
}

func init() {
	rootCmd.AddCommand(reproduceCmd)
	rootCmd.Version = buildVersion()
}

func main() {
	if err := execute(); err != nil {
		fmt.Fprintln(os.Stderr, "fresgld:", err)
		os.Exit(1)
	}
}

// execute runs the command line. A panic is a bug of ours, not the user's:
// it is reported as an internal error with a request to file it, not as a
// stack dump.
func execute() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report it with the command line that caused it): %v", r)
		}
	}()
	return rootCmd.Execute()
}
