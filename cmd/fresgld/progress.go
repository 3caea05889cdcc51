package main

import (
	"io"
	"os"

	"github.com/fresgld/fresgld/progress"
	"github.com/spf13/cobra"
)

// quiet is --quiet: no progress on stderr. Warnings and errors still print.
var quiet bool

func init() {
	rootCmd.PersistentFlags().BoolVarP(&quiet, "quiet", "q", false, "print no progress on stderr (warnings and errors still print)")
}

// progressTo is where a command's progress goes: its stderr, or nowhere
// under --quiet.
func progressTo(cmd *cobra.Command) io.Writer {
	if quiet {
		return nil
	}
	return cmd.ErrOrStderr()
}

// progressFunc makes a progress reporter, on stderr, for a study's runs of
// total steps in all.
func progressFunc(label string, total int) func(done, total int) {
	if quiet {
		return nil
	}
	return progress.NewProgress(os.Stderr, label, total).Callback()
}
