package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/output"
)

// A checkpoint is one chain's state between two steps, in chain-<c>.ckpt
// beside its CSV: the sampler's whole state (exchange.Sampler.MarshalBinary),
// the length of the CSV at that step, and what the chain's sink counts. It
// is written whole or not at all (temporary file, fsync, rename), at most
// every --checkpoint-every seconds, at a chain's last step, and at an
// interrupt. fresgld resume rebuilds the run from the command line the
// checkpoint records, restores each chain, cuts its CSV back to the
// recorded length and continues: the outputs are those of an uninterrupted
// run, byte for byte (the elapsed times aside).

// checkpointFormat is the layout of a checkpoint file.
const checkpointFormat = 1

type checkpoint struct {
	Format  int
	Version string   // the fresgld that wrote it
	Command string   // gmm or logistic
	Args    []string // the flags the user gave, as --name=value
	Cwd     string   // the working directory the flags' paths are relative to
	Header  []string // the chain's CSV settings lines
	Chain   int
	Steps   int   // the plan's steps taken
	Offset  int64 // the chain CSV's length after those steps' draws
	Swaps   int   // the sink's running counters
	Clamped int64
	Warmup  time.Duration
	Elapsed time.Duration
	Sampler []byte
}

// ckptName is chain id's checkpoint file.
func ckptName(id int) string { return "chain-" + strconv.Itoa(id) + ".ckpt" }

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
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name != "out" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// resumeSpec is the checkpoints a resumed command continues from; nil in
// an ordinary run.
type resumeSpec struct {
	ckpts map[int]*checkpoint
}

// resuming is set by fresgld resume while it runs the command it resumes.
var resuming *resumeSpec

func readCheckpoint(path string) (*checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := readCheckpointBytes(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a fresgld checkpoint, or a damaged one: %w", path, err)
	}
	if c.Format != checkpointFormat {
		return nil, fmt.Errorf("%s: checkpoint layout %d, this fresgld reads layout %d", path, c.Format, checkpointFormat)
	}
	if v := buildVersion(); c.Version != v {
		return nil, fmt.Errorf("%s: written by fresgld %s, this is %s: a checkpoint resumes only with the version that wrote it (its sampler state and draws could differ)", path, c.Version, v)
	}
	return c, nil
}

func readCheckpointBytes(b []byte) (*checkpoint, error) {
	var c checkpoint
	if err := energy.DecodeState(b, &c, "checkpoint"); err != nil {
		return nil, err
	}
	return &c, nil
}

func encodeCheckpoint(c *checkpoint) ([]byte, error) { return energy.EncodeState(c) }

// sameHeader refuses a checkpoint whose chain settings differ from the
// run's, naming the first line that differs.
func sameHeader(path string, saved, now []string) error {
	for i := range max(len(saved), len(now)) {
		var a, b string
		if i < len(saved) {
			a = saved[i]
		}
		if i < len(now) {
			b = now[i]
		}
		if a != b {
			return fmt.Errorf("%s: written with the setting %q, this run has %q: a checkpoint resumes only the run that wrote it", path, a, b)
		}
	}
	return nil
}

// checkpointer tells a run's chains when a checkpoint is due: a ticker
// raises each chain's flag, and the chain checks it between steps (one
// atomic load a step; reading the clock every step would cost more than a
// small step).
type checkpointer struct {
	due  []atomic.Bool
	stop chan struct{}
}

func newCheckpointer(chains int, every float64) *checkpointer {
	c := &checkpointer{due: make([]atomic.Bool, chains), stop: make(chan struct{})}
	if every <= 0 {
		return c
	}
	go func() {
		t := time.NewTicker(time.Duration(every * float64(time.Second)))
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				for i := range c.due {
					c.due[i].Store(true)
				}
			}
		}
	}()
	return c
}

func (c *checkpointer) close() { close(c.stop) }

// writeCheckpoint saves chain k's state after its plan step `step`.
func (k *chainSink) writeCheckpoint(step int) error {
	ck := *k.ck
	ck.Steps, ck.Swaps, ck.Clamped, ck.Warmup = step, k.swaps, k.clamped, k.warm
	ck.Elapsed = time.Since(k.start)
	if step == 0 {
		ck.Elapsed = k.prior
	}
	var err error
	if ck.Sampler, err = k.smp.MarshalBinary(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if ck.Offset, err = k.w.s.Sync(); err != nil {
		return fmt.Errorf("checkpoint: %s: %w", k.w.name, err)
	}
	b, err := encodeCheckpoint(&ck)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := output.WriteBytes(k.ckPath, b); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func init() {
	var chain int
	cmd := &cobra.Command{
		Use:   "resume DIR",
		Short: "Continue an interrupted gmm or logistic run from its checkpoints",
		Long: `resume continues the run whose output directory is DIR from the checkpoints
its chains left there (chain-<c>.ckpt, written every --checkpoint-every
seconds and at an interrupt): it runs the same command with the same flags,
restores each unfinished chain's sampler, cuts its CSV back to the draws the
checkpoint counts and continues it. The chain CSVs, summary.txt,
summary.json and the figures are then those of an uninterrupted run, byte
for byte, but for the elapsed times. A chain without a checkpoint is run
from its start. With --chain c only chain c's checkpoint is resumed, as one
task of an array job does. A checkpoint written by another fresgld version
or with other settings is refused. The input data must be unchanged.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runResume(cmd, args[0], chain) },
	}
	cmd.Flags().IntVar(&chain, "chain", 0, "resume only chain c's checkpoint (one task of an array job)")
	rootCmd.AddCommand(cmd)
}

func runResume(cmd *cobra.Command, dir string, chain int) error {
	if chain < 0 {
		return fmt.Errorf("--chain = %d: chains are numbered from 1", chain)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	paths, _ := filepath.Glob(filepath.Join(abs, "chain-*.ckpt"))
	if chain > 0 {
		paths = slices.DeleteFunc(paths, func(p string) bool { return filepath.Base(p) != ckptName(chain) })
	}
	if len(paths) == 0 {
		what := "no checkpoint (chain-<c>.ckpt)"
		if chain > 0 {
			what = "no checkpoint of chain " + strconv.Itoa(chain) + " (" + ckptName(chain) + ")"
		}
		return fmt.Errorf("%s: %s: the run completed (its checkpoints are removed then), ran with --checkpoint-every 0, or was killed before its first checkpoint", dir, what)
	}
	spec := &resumeSpec{ckpts: map[int]*checkpoint{}}
	var first *checkpoint
	for _, p := range paths {
		c, err := readCheckpoint(p)
		if err != nil {
			return err
		}
		if first == nil {
			first = c
		} else if c.Command != first.Command || !slices.Equal(c.Args, first.Args) || c.Cwd != first.Cwd {
			return fmt.Errorf("%s: the checkpoints are of separate runs (%s and %s differ in their command line, as array tasks' do): resume each with --chain c", dir, filepath.Base(paths[0]), filepath.Base(p))
		}
		spec.ckpts[c.Chain] = c
	}
	sub, _, err := rootCmd.Find([]string{first.Command})
	if err != nil || sub.Name() != first.Command || sub.RunE == nil {
		return fmt.Errorf("%s: the checkpoint names command %q, which this fresgld does not have", paths[0], first.Command)
	}
	// The command's flags start from their defaults, as in a fresh
	// process, and take the checkpoint's values; --out is DIR.
	sub.Flags().VisitAll(func(f *pflag.Flag) {
		f.Value.Set(f.DefValue)
		f.Changed = false
	})
	if err := sub.ParseFlags(append(slices.Clone(first.Args), "--out="+abs)); err != nil {
		return fmt.Errorf("%s: the checkpoint's command line: %w", paths[0], err)
	}
	if wd, err := os.Getwd(); err == nil && first.Cwd != "" && first.Cwd != wd {
		// The flags' paths (--data) are relative to where the run started.
		if err := os.Chdir(first.Cwd); err != nil {
			return fmt.Errorf("%s: the run's working directory %s: %w (its paths, such as --data, are relative to it)", paths[0], first.Cwd, err)
		}
		defer os.Chdir(wd)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "resuming fresgld %s in %s: %s\n", first.Command, dir, resumeNote(spec))
	resuming = spec
	defer func() { resuming = nil }()
	sub.SetContext(cmd.Context())
	return sub.RunE(sub, nil)
}

func resumeNote(spec *resumeSpec) string {
	var ids []int
	for id := range spec.ckpts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("chain %d from step %d", id, spec.ckpts[id].Steps)
	}
	return s
}

// removeCheckpoints deletes the chains' checkpoints of a run that
// completed: nothing is left to resume.
func removeCheckpoints(dir *output.Dir, ids []int) error {
	var errs []error
	for _, id := range ids {
		if err := os.Remove(dir.File(ckptName(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// workingDir is the directory relative paths are taken from ("" if it
// cannot be told).
func workingDir() string {
	wd, _ := os.Getwd()
	return wd
}
