package main

import (
	"os"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// run executes the command line args and returns its error. Flags keep
// their values between Execute calls, so it first resets every flag of every
// command to its default.
func run(t *testing.T, args ...string) error {
	t.Helper()
	var reset func(c *cobra.Command)
	reset = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			f.Value.Set(f.DefValue)
			f.Changed = false
		})
		for _, sub := range c.Commands() {
			reset(sub)
		}
	}
	reset(rootCmd)
	rootCmd.SetArgs(args)
	return rootCmd.Execute()
}

// mustRun is run for a command line that must succeed: its error fails
// the test at once.
func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if err := run(t, args...); err != nil {
		t.Fatal(err)
	}
}

// skipShort skips t under go test -short, saying why: a check that builds
// the command, compiles a model or runs one in another process.
func skipShort(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
}

// longChecks says whether FRESGLD_LONG=1 asks for the long checks: every
// case of the tests that run the command for seconds a case, and the Slurm
// cluster. .ci/run sets it in a step of its own.
func longChecks() bool { return os.Getenv("FRESGLD_LONG") == "1" }

// long skips t unless FRESGLD_LONG=1: a check of several CPU-seconds that
// the default suite (go test ./..., which must pass with margin on a busy
// two-core machine) leaves to .ci/run's long step.
func long(t *testing.T) {
	t.Helper()
	if !longChecks() {
		t.Skip("a long check: run with FRESGLD_LONG=1 (.ci/run's long step does)")
	}
}
