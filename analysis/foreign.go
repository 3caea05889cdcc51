package analysis

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// notWritten lists the files among names in dir that a run would remove
// but fresgld did not write: a chain CSV whose first line is not the
// "# model = fresgld" comment that every chain file begins with, a
// checkpoint that does not decode. An empty chain file (a run killed
// before its first line) holds nothing to lose and is not listed.
func notWritten(dir string, names []string) []string {
	var foreign []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "chain-") && strings.HasSuffix(name, ".csv"):
			if !chainFileOurs(path) {
				foreign = append(foreign, name)
			}
		case strings.HasPrefix(name, "chain-") && strings.HasSuffix(name, ".ckpt"):
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if _, derr := DecodeCheckpoint(b); err != nil || derr != nil {
				foreign = append(foreign, name)
			}
		}
	}
	return foreign
}

// chainFileOurs says whether path is absent, empty, or begins as a chain
// file of fresgld's does.
func chainFileOurs(path string) bool {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if line == "" && err != nil {
		return err == io.EOF
	}
	return strings.HasPrefix(line, "# model = fresgld ")
}

// refuseForeign is the error of a run whose --out holds files of the names
// it would replace that fresgld did not write.
func refuseForeign(dir string, foreign []string) error {
	them := "them"
	if len(foreign) == 1 {
		them = "it"
	}
	return fmt.Errorf("--out %s holds %s, which fresgld did not write and this run would replace: move %s elsewhere, or give another --out",
		dir, strings.Join(foreign, ", "), them)
}

// FoundRun is a run of fresgld's found in an output directory: the
// command that wrote it, its chain files (those holding a line at least)
// and the chains whose checkpoints it left (an interrupted run).
type FoundRun struct {
	Dir         string
	Command     string
	Chains      []int
	Checkpoints []int
	Summary     bool // summary.json is there
	Interrupted bool // and says a chain was interrupted
}

// FindRun looks in dir for a run of fresgld's that a new run there would
// replace: chain c's files only when chain > 0 (one task of an array job,
// whose siblings share the directory), else every chain's. It returns nil
// when there is none (files fresgld did not write are notWritten's).
func FindRun(dir string, chain int) *FoundRun {
	f := &FoundRun{Dir: dir}
	pat := "chain-*"
	if chain > 0 {
		pat = "chain-" + strconv.Itoa(chain) + ".*"
	}
	paths, _ := filepath.Glob(filepath.Join(dir, pat))
	for _, p := range paths {
		name := filepath.Base(p)
		var id int
		switch {
		case strings.HasSuffix(name, ".csv"):
			if _, err := fmt.Sscanf(name, "chain-%d.csv", &id); err != nil {
				continue
			}
			line, ok := firstLine(p)
			cmd, ours := strings.CutPrefix(line, "# model = fresgld ")
			if !ok || !ours {
				continue // empty, or not fresgld's
			}
			f.Chains = append(f.Chains, id)
			f.Command = cmp.Or(f.Command, cmd)
		case strings.HasSuffix(name, ".ckpt"):
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			c, err := DecodeCheckpoint(b)
			if err != nil {
				continue
			}
			f.Checkpoints = append(f.Checkpoints, c.Chain)
			f.Command = cmp.Or(c.Command, f.Command)
		}
	}
	if len(f.Chains) == 0 && len(f.Checkpoints) == 0 {
		return nil
	}
	slices.Sort(f.Chains)
	slices.Sort(f.Checkpoints)
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		var s struct {
			Interrupted bool `json:"interrupted"`
		}
		f.Summary, f.Interrupted = true, json.Unmarshal(b, &s) == nil && s.Interrupted
	}
	return f
}

// firstLine is the first line of the file at path; ok is false for an
// empty or unreadable file.
func firstLine(path string) (string, bool) {
	file, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer file.Close()
	line, err := bufio.NewReader(file).ReadString('\n')
	if line == "" {
		return "", false
	}
	return strings.TrimRight(line, "\r\n"), err == nil || err == io.EOF
}

// Refusal is the error of a run whose --out holds f, given without
// --overwrite: it names the run found and, for an interrupted one, the
// command that continues it (chain > 0: the run's --chain).
func (f *FoundRun) Refusal(chain int) error {
	cmd := cmp.Or(f.Command, "(a command this fresgld does not name)")
	if len(f.Checkpoints) > 0 {
		resume := "fresgld resume " + f.Dir
		if chain > 0 {
			resume = fmt.Sprintf("fresgld resume --chain %d %s", chain, f.Dir)
		}
		return fmt.Errorf("--out %s holds an interrupted run of fresgld %s (the checkpoints of %s): continue it with `%s`; or give --overwrite to discard it and start afresh, or another --out", f.Dir, cmd, chainList(f.Checkpoints), resume)
	}
	state := "a finished run"
	switch {
	case f.Interrupted:
		state = "an interrupted run, without checkpoints to resume from,"
	case !f.Summary:
		state = "a run that stopped before its end, without checkpoints to resume from or a summary,"
	}
	return fmt.Errorf("--out %s holds %s of fresgld %s (the draws of %s): give --overwrite to replace it, or another --out", f.Dir, state, cmd, chainList(f.Chains))
}

// chainList is "chain 3" or "chains 1, 2, 5".
func chainList(ids []int) string {
	if len(ids) == 1 {
		return "chain " + strconv.Itoa(ids[0])
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return "chains " + strings.Join(s, ", ")
}
