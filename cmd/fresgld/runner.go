package main

import (
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/sampling"
)

// runSampling carries out the run s of cmd (sampling.Run.Do).
func runSampling(cmd *cobra.Command, s sampling.Run) error {
	return s.Do(cmd.Context(), cmd.ErrOrStderr())
}

// report prints a run's table and warnings and writes its summary files
// (sampling.Report).
func report(cmd *cobra.Command, res *analysis.Result, full any) error {
	return sampling.Report(cmd.ErrOrStderr(), res, full)
}

// settingsOf lists the fields of a command's flag struct for the chains'
// CSVs, the chain selection (chainFlags) left out (sampling.Settings).
func settingsOf(flags any) ([][2]string, error) {
	return sampling.Settings(flags, reflect.TypeFor[chainFlags]())
}

// runName names a run in its headline: the method, or the command under
// --method auto.
func runName(cmd *cobra.Command, m exchange.Method) string {
	if m == analysis.AutoMethod {
		return cmd.Name()
	}
	return string(m)
}

// settingsLines are the chains' CSV settings lines of the flags struct f
// (settingsOf) and the swap energies the run used.
func settingsLines(f any, o analysis.Options) [][2]string {
	s, _ := settingsOf(f)
	if mode := o.SwapMode(); mode != "" {
		s = append(s, [2]string{"swap_energies_used", mode})
	}
	return s
}

// addCommand adds `fresgld name` to fresgld: a command of no arguments,
// run by run, whose long help is help/name.txt.
func addCommand(name, short string, run func(*cobra.Command) error) *cobra.Command {
	return addArgsCommand(name, short, cobra.NoArgs, func(cmd *cobra.Command, _ []string) error { return run(cmd) })
}

// addArgsCommand adds `fresgld use` to fresgld: a command of the arguments
// args, run by run, whose long help is help/name.txt, name use's first
// word.
func addArgsCommand(use, short string, args cobra.PositionalArgs, run func(*cobra.Command, []string) error) *cobra.Command {
	name, _, _ := strings.Cut(use, " ")
	cmd := &cobra.Command{Use: use, Short: short, Long: help(name), Args: args, RunE: run}
	rootCmd.AddCommand(cmd)
	return cmd
}
