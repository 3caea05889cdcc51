package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/fresgld/fresgld/analysis"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultCheckpointEvery is --checkpoint-every's default, in seconds: a
// checkpoint costs one sampler state and an fsync, far less than a minute
// of sampling, and a preempted job loses at most that.
const defaultCheckpointEvery = 30

func addCheckpointFlag(fl *pflag.FlagSet, every *float64) {
	fl.Float64Var(every, "checkpoint-every", defaultCheckpointEvery, "seconds between checkpoints (chain-<c>.ckpt, written also at an interrupt and kept until the run completes) from which fresgld resume continues the run; 0: none")
}

func checkEvery(v float64) error {
	if !(v >= 0) || v > 1e9 {
		return fmt.Errorf("--checkpoint-every = %v: must lie in [0, 1e9] seconds (0: no checkpoints)", v)
	}
	return nil
}

// runArgs is the flags the user set on cmd, as --name=value, for resume
// to replay. --out is left out: resume names the directory.
func runArgs(cmd *cobra.Command) []string {
	var args []string
	// VisitAll and Changed, not Visit: Visit walks every flag ever set on
	// the flag set, which a flag reset to its default (a resume, the tests'
	// runs of several commands in one process) stays in.
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && f.Name != "out" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// resuming is set by fresgld resume while it runs the command it resumes.
var resuming *analysis.Resume

func init() {
	var chain int
	cmd := &cobra.Command{
		Use:   "resume DIR",
		Short: "Continue an interrupted gmm, logistic, mixture, regress or sample run from its checkpoints",
		Long:  help("resume"),
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runResume(cmd, args[0], chain) },
	}
	cmd.Flags().IntVar(&chain, "chain", 0, "resume only chain c's checkpoint (one task of an array job)")
	rootCmd.AddCommand(cmd)
}

func runResume(cmd *cobra.Command, dir string, chain int) error {
	spec, err := analysis.ReadCheckpoints(dir, chain, buildVersion())
	if err != nil {
		return err
	}
	sub, _, err := rootCmd.Find([]string{spec.Command})
	if err != nil || sub.Name() != spec.Command || sub.RunE == nil {
		return fmt.Errorf("%s: the checkpoint names command %q, which this fresgld does not have", spec.Path, spec.Command)
	}
	// The command's flags start from their defaults, as in a fresh
	// process, and take the checkpoint's values; --out is DIR.
	sub.Flags().VisitAll(func(f *pflag.Flag) {
		f.Value.Set(f.DefValue)
		f.Changed = false
	})
	if err := sub.ParseFlags(append(slices.Clone(spec.Args), "--out="+spec.Dir)); err != nil {
		return fmt.Errorf("%s: the checkpoint's command line: %w", spec.Path, err)
	}
	if wd, err := os.Getwd(); err == nil && spec.Cwd != "" && spec.Cwd != wd {
		// The flags' paths (--data) are relative to where the run started.
		if err := os.Chdir(spec.Cwd); err != nil {
			return fmt.Errorf("%s: the run's working directory %s: %w (its paths, such as --data, are relative to it)", spec.Path, spec.Cwd, err)
		}
		defer os.Chdir(wd)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "resuming fresgld %s in %s: %s\n", spec.Command, dir, spec.Note())
	resuming = spec
	defer func() { resuming = nil }()
	sub.SetContext(cmd.Context())
	return sub.RunE(sub, nil)
}

// workingDir is the directory relative paths are taken from ("" if it
// cannot be told).
func workingDir() string {
	wd, _ := os.Getwd()
	return wd
}
