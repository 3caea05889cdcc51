package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

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

type Checkpoint struct {
	Format  int
	Version string   // the fresgld that wrote it
	Command string   // gmm, logistic, regress or sample
	Args    []string // the flags the user gave, as --name=value
	Cwd     string   // the working directory the flags' paths are relative to
	// Inputs are the files the run read (its data, a model's source), as
	// they were when it began: a resume refuses to continue on others.
	Inputs  []Input
	Header  []string // the chain's CSV settings lines
	Chain   int
	Steps   int   // the plan's steps taken
	Offset  int64 // the chain CSV's length after those steps' draws
	Swaps   int   // the sink's running counters
	Clamped int64
	Warmup  time.Duration
	Elapsed time.Duration
	Sampler []byte
	// Extend is the draws a chain the run's extension aims at, and
	// ExtendNote its note, once it extends (0 and "": not): a resume goes
	// on to that length, with that note, as the run it continues would.
	Extend     int
	ExtendNote string
}

// CheckpointName is chain id's checkpoint file.
func CheckpointName(id int) string { return "chain-" + strconv.Itoa(id) + ".ckpt" }

// Resume is the checkpoints a resumed run continues from: the command
// line that wrote them, to be run again in Dir, and each chain's state.
type Resume struct {
	Command string   // the command that wrote them
	Args    []string // its flags, as --name=value
	Cwd     string   // the directory its paths are relative to
	Dir     string   // the run's output directory, absolute
	Path    string   // the first checkpoint file, for errors
	Inputs  []Input  // the files the run read, as they were then
	ckpts   map[int]*Checkpoint
}

// Input is a file a run reads, fingerprinted: the flag that names it (a
// word of --model-cmd's command counts as the flag's), its path as given
// (relative to the run's working directory), its size and the SHA-256 of
// its content. A run's inputs are part of its identity: a checkpoint
// resumes only on the same ones, or a resumed run would pool draws from
// two posteriors.
type Input struct {
	Flag   string
	Path   string
	Size   int64
	SHA256 string
}

// Fingerprint reads the file path (relative to the working directory)
// that flag names.
func Fingerprint(flag, path string) (Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Input{}, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return Input{Flag: flag, Path: path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// changed says how in now (the same file as fingerprinted again, or a
// zero Input where it cannot be read) differs from in, "" if not.
func (in Input) changed(now Input, readErr error) string {
	switch {
	case readErr != nil:
		return fmt.Sprintf("%s %s can no longer be read (%v)", in.Flag, in.Path, readErr)
	case now.Size != in.Size:
		return fmt.Sprintf("%s %s changed since the run began: %d bytes then, %d now", in.Flag, in.Path, in.Size, now.Size)
	case now.SHA256 != in.SHA256:
		return fmt.Sprintf("%s %s changed since the run began: its content differs (SHA-256 %.12s… then, %.12s… now)", in.Flag, in.Path, in.SHA256, now.SHA256)
	}
	return ""
}

// CheckInputs reads again the files the interrupted run read, relative to
// its working directory, and refuses the resume where one changed, saying
// which; it changes nothing. Run before anything else, it spares the
// resumed run's plan.
func (spec *Resume) CheckInputs() error {
	for _, in := range spec.Inputs {
		path := in.Path
		if !filepath.IsAbs(path) && spec.Cwd != "" {
			path = filepath.Join(spec.Cwd, path)
		}
		now, err := Fingerprint(in.Flag, path)
		if why := in.changed(now, err); why != "" {
			return refuseChanged(spec.Dir, why)
		}
	}
	return nil
}

// sameInputs refuses a resume whose run, as the command set it up again,
// read other inputs than the checkpoints record (nil now: not told).
func (spec *Resume) sameInputs(now []Input) error {
	if now == nil {
		return nil
	}
	for _, in := range spec.Inputs {
		i := slices.IndexFunc(now, func(x Input) bool { return x.Flag == in.Flag && x.Path == in.Path })
		if i < 0 {
			return refuseChanged(spec.Dir, fmt.Sprintf("%s %s, which the run read, is not among this run's inputs", in.Flag, in.Path))
		}
		if why := in.changed(now[i], nil); why != "" {
			return refuseChanged(spec.Dir, why)
		}
	}
	return nil
}

func refuseChanged(dir, why string) error {
	return fmt.Errorf("%s: %s: a resume continues only the run it began, on its inputs (its draws would pool two posteriors); nothing in %s was changed. Restore the file to resume, or start a new run on it (another --out, or --overwrite to replace this one)", dir, why, dir)
}

func readCheckpoint(path, version string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a fresgld checkpoint, or a damaged one: %w", path, err)
	}
	if c.Format != checkpointFormat {
		return nil, fmt.Errorf("%s: checkpoint layout %d, this fresgld reads layout %d", path, c.Format, checkpointFormat)
	}
	if v := version; c.Version != v {
		return nil, fmt.Errorf("%s: written by fresgld %s, this is %s: a checkpoint resumes only with the version that wrote it (its sampler state and draws could differ)", path, c.Version, v)
	}
	return c, nil
}

func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	var c Checkpoint
	if err := energy.DecodeState(b, &c, "checkpoint"); err != nil {
		return nil, err
	}
	return &c, nil
}

func EncodeCheckpoint(c *Checkpoint) ([]byte, error) { return energy.EncodeState(c) }

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
	if k.extNote != "" {
		ck.Extend, ck.ExtendNote = k.plan.Keep, k.extNote
	}
	ck.Elapsed = time.Since(k.start)
	if step == 0 {
		ck.Elapsed = k.prior
	}
	var err error
	if ck.Sampler, err = k.smp.MarshalBinary(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if ck.Offset, err = k.w.Sync(); err != nil {
		return fmt.Errorf("checkpoint: %s: %w", k.w.Name(), err)
	}
	b, err := EncodeCheckpoint(&ck)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := output.WriteBytes(k.ckPath, b); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// ReadCheckpoints reads the checkpoints in dir (only chain's, if chain >
// 0) that fresgld resume continues from, refusing those of another layout
// or version and a mix of separate runs' checkpoints.
func ReadCheckpoints(dir string, chain int, version string) (*Resume, error) {
	if chain < 0 {
		return nil, fmt.Errorf("--chain = %d: chains are numbered from 1", chain)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such directory: give the --out directory of the run to resume", dir)
		}
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a directory: give the --out directory of the run to resume", dir)
	}
	paths, _ := filepath.Glob(filepath.Join(abs, "chain-*.ckpt"))
	all := slices.Clone(paths)
	if chain > 0 {
		paths = slices.DeleteFunc(paths, func(p string) bool { return filepath.Base(p) != CheckpointName(chain) })
	}
	if len(paths) == 0 {
		what := "no checkpoint (chain-<c>.ckpt)"
		if chain > 0 {
			what = "no checkpoint of chain " + strconv.Itoa(chain) + " (" + CheckpointName(chain) + ")"
			// Other chains' checkpoints are there: the run is not
			// finished, and --chain names a chain it has none of.
			if len(all) > 0 {
				var names []string
				for _, p := range all {
					names = append(names, filepath.Base(p))
				}
				return nil, fmt.Errorf("%s: %s; it holds %s: give --chain one of those chains, or no --chain to resume them all", dir, what, strings.Join(names, ", "))
			}
		}
		return nil, fmt.Errorf("%s: %s: the run completed (its checkpoints are removed then), ran with --checkpoint-every 0, or was killed before its first checkpoint", dir, what)
	}
	spec := &Resume{Dir: abs, Path: paths[0], ckpts: map[int]*Checkpoint{}}
	var first *Checkpoint
	for _, p := range paths {
		c, err := readCheckpoint(p, version)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = c
		} else if c.Command != first.Command || !slices.Equal(c.Args, first.Args) || c.Cwd != first.Cwd || !slices.Equal(c.Inputs, first.Inputs) {
			return nil, fmt.Errorf("%s: the checkpoints are of separate runs (%s and %s differ in their command line, as array tasks' do): resume each with --chain c", dir, filepath.Base(paths[0]), filepath.Base(p))
		}
		spec.ckpts[c.Chain] = c
	}
	spec.Command, spec.Args, spec.Cwd, spec.Inputs = first.Command, first.Args, first.Cwd, first.Inputs
	return spec, nil
}

// Note says which chains resume from which step.
func (spec *Resume) Note() string {
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
		if err := os.Remove(dir.File(CheckpointName(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
