package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/analysis"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultCheckpointEvery is --checkpoint-every's default, in seconds: a
// checkpoint costs one sampler state and an fsync, far less than a minute
// of sampling, and a preempted job loses at most that.
const defaultCheckpointEvery = 30

func addCheckpointFlag(fl *pflag.FlagSet, every *float64) {
	fl.Float64Var(every, "checkpoint-every", defaultCheckpointEvery, "seconds between checkpoints, for fresgld resume (0: none)")
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

// inputFlags are the flags that name a file a run reads.
var inputFlags = []string{"data", "stan", "init"}

// runInputs fingerprints the files the run of cmd reads: those its
// --data, --stan and --init name, and each word of --model-cmd's command
// that names a file (model.py, data.csv in 'python3 model.py data.csv'),
// but for an installed program (an executable named by an absolute path,
// as /usr/bin/python3: not the model's, and large). A file that cannot be
// read is left out: the command says so itself.
func runInputs(cmd *cobra.Command) []analysis.Input {
	ins := []analysis.Input{}
	add := func(flag, path string) {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || flag == "--model-cmd" && filepath.IsAbs(path) && st.Mode()&0o111 != 0 {
			return
		}
		if in, err := analysis.Fingerprint(flag, path); err == nil {
			ins = append(ins, in)
		}
	}
	for _, name := range inputFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() != "" {
			add("--"+name, f.Value.String())
		}
	}
	if f := cmd.Flags().Lookup("model-cmd"); f != nil {
		for _, w := range strings.Fields(f.Value.String()) {
			w = strings.Trim(w, `'"`)
			if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
				w = v // --data=file.csv
			}
			add("--model-cmd", w)
		}
	}
	return ins
}

func init() { rootCmd.PersistentPreRunE = guardOut }

// guardOut refuses, before any work, a run of a command with --overwrite
// whose --out holds a run of fresgld's own (finished or interrupted, of
// any command) that it would replace, unless --overwrite is given; the
// error names the run found and, for an interrupted one, the resume
// command. A resume (which runs the command itself) continues its run.
func guardOut(cmd *cobra.Command, _ []string) error {
	fl := cmd.Flags()
	ow, out := fl.Lookup("overwrite"), fl.Lookup("out")
	if ow == nil || out == nil || resuming != nil || ow.Value.String() == "true" {
		return nil
	}
	chain, _ := fl.GetInt("chain")
	if found := analysis.FindRun(out.Value.String(), max(chain, 0)); found != nil {
		return found.Refusal(chain)
	}
	return nil
}

// resuming is set by fresgld resume while it runs the command it resumes.
var resuming *analysis.Resume

func init() {
	var chain int
	cmd := addArgsCommand("resume DIR", "Continue an interrupted gmm, logistic, mixture, regress or sample run from its checkpoints", cobra.ExactArgs(1),
		func(cmd *cobra.Command, args []string) error { return runResume(cmd, args[0], chain) })
	cmd.Flags().IntVar(&chain, "chain", 0, "resume only chain c's checkpoint (one task of an array job)")
}

func runResume(cmd *cobra.Command, dir string, chain int) error {
	spec, err := analysis.ReadCheckpoints(dir, chain, buildVersion())
	if err != nil {
		return err
	}
	// Before anything else: a resume on changed inputs would pool draws
	// from two posteriors, and is refused before any plan or file change.
	if err := spec.CheckInputs(); err != nil {
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
	if f := sub.Flags().Lookup("chain"); chain > 0 && (f == nil || !f.Changed) {
		// A run of its chains together continues whole: the command's
		// own chains would otherwise run again from their first step,
		// and their checkpoints go.
		return fmt.Errorf("--chain %d: %s holds a run of fresgld %s whose chains ran together, not one task of an array job (--chain): continue it whole with `fresgld resume %s`", chain, dir, spec.Command, dir)
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
