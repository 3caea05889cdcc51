// Command fresgld runs replica-exchange stochastic gradient Langevin samplers
// on the paper's experiments and on a user's own data.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
	Use:   "fresgld",
	Short: "Fast replica exchange stochastic gradient Langevin dynamics",
	Long: `fresgld samples multimodal distributions with replica-exchange Langevin
chains whose energies and gradients are only estimated (minibatches, cheap
solvers). It runs the paper's experiments, measured against exact answers,
and Bayesian logistic regression on your own CSV data.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// reproduceCmd groups the studies that reproduce the paper's experiments.
var reproduceCmd = &cobra.Command{
	Use:   "reproduce",
	Short: "Run the studies that reproduce the paper's experiments",
}

func init() { rootCmd.AddCommand(reproduceCmd) }

func main() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "fresgld:", err)
		os.Exit(1)
	}
}
