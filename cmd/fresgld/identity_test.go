package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"
)

// dirFiles reads every file of dir, by name.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, n := range names {
		b := readFile(t, n)
		files[filepath.Base(n)] = b
	}
	return files
}

// sameFiles fails t unless dir holds exactly the files before did, each
// with the same bytes.
func sameFiles(t *testing.T, what string, before, after map[string][]byte) {
	t.Helper()
	if a, b := slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)); !slices.Equal(a, b) {
		t.Errorf("%s: the directory held %q, now %q", what, a, b)
	}
	for n, b := range before {
		if a, ok := after[n]; ok && !bytes.Equal(a, b) {
			t.Errorf("%s: %s changed", what, n)
		}
	}
}

// A run's data are part of its identity: interrupt a logistic run whose
// settings are all given (so that nothing automatic changes with the
// data), flip the labels of its data file, and resume. The resume is
// refused, naming the file, and every file of the run (its chains,
// checkpoints, summary, report and figures) is as the interrupt left it.
// Without the fingerprint the resume continues and pools draws from two
// posteriors.
func TestResumeRefusesChangedData(t *testing.T) {
	t.Parallel()
	skipShort(t, "builds the command")
	dir := t.TempDir()
	orig := readFile(t, "../../data/wdbc.csv")
	data := filepath.Join(dir, "wdbc.csv")
	if err := os.WriteFile(data, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd, stderr, done := startLong(t, out, 400, "logistic", "--data", data, "--label", "benign", "--method", "sgld", "--eta", "1e-4",
		"--chains", "2", "--burn", "0", "--keep", "10000000", "--thin", "1", "--checkpoint-every", "0.2")
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 30 s after SIGINT")
	}
	before := dirFiles(t, out)
	for _, n := range []string{analysis.CheckpointName(1), "summary.json", "report.html"} {
		if before[n] == nil {
			t.Fatalf("the interrupted run left no %s: %q\n%s", n, slices.Sorted(maps.Keys(before)), stderr)
		}
	}
	// The labels flipped: the same size, another posterior.
	lines := strings.Split(string(orig), "\n")
	for i := 1; i < len(lines); i++ {
		switch {
		case strings.HasSuffix(lines[i], ",1"):
			lines[i] = strings.TrimSuffix(lines[i], "1") + "0"
		case strings.HasSuffix(lines[i], ",0"):
			lines[i] = strings.TrimSuffix(lines[i], "0") + "1"
		}
	}
	flipped := strings.Join(lines, "\n")
	if flipped == string(orig) || len(flipped) != len(orig) {
		t.Fatal("no label flipped")
	}
	os.WriteFile(data, []byte(flipped), 0o644)
	// Bounded: a resume that went on would run for minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	said, err := exec.CommandContext(ctx, binary(t), "resume", out).CombinedOutput()
	t.Logf("%s", said)
	if err == nil || !strings.Contains(string(said), "--data "+data+" changed since the run began") || !strings.Contains(string(said), "nothing in") {
		t.Errorf("resume on flipped labels: %v\n%s\nwant a refusal naming --data %s", err, said, data)
	}
	sameFiles(t, "the refused resume", before, dirFiles(t, out))
}

// runInputs fingerprints --data and the files a --model-cmd's command
// names, not the interpreter that runs it.
func TestRunInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("model.py", []byte("print(1)\n"), 0o644)
	os.WriteFile("data.csv", []byte("x\n1\n"), 0o644)
	c := &cobra.Command{Use: "sample"}
	c.Flags().String("model-cmd", "", "")
	c.Flags().String("data", "", "")
	c.Flags().Set("model-cmd", "python3 model.py --rows=data.csv /bin/sh")
	var got []string
	for _, in := range runInputs(c) {
		got = append(got, in.Flag+" "+in.Path)
	}
	if want := []string{"--model-cmd model.py", "--model-cmd data.csv"}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
}

// Nothing of fresgld's own is lost: --out onto an earlier run of
// fresgld's, finished or interrupted, of any command, is refused unless
// --overwrite is given, naming the run found there (and, for an
// interrupted one, the resume command), and leaves its files as they
// were. A --chain c task looks at chain c's files alone.
func TestOutKeepsEarlierRun(t *testing.T) {
	// A finished six-chain run, then a four-chain one: without the guard,
	// chains 5 and 6 went with every other file.
	out := t.TempDir()
	mustRun(t, "gmm", "--keep", "20", "--burn", "0", "--chains", "6", "--out", out)
	before := dirFiles(t, out)
	err := run(t, "gmm", "--keep", "20", "--burn", "0", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "holds a finished run of fresgld gmm (the draws of chains 1, 2, 3, 4, 5, 6)") || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("a run onto a finished run: %v", err)
	}
	sameFiles(t, "the refused run", before, dirFiles(t, out))
	if err := run(t, "gmm", "--keep", "20", "--burn", "0", "--out", out, "--overwrite"); err != nil {
		t.Fatalf("--overwrite: %v", err)
	}
	if _, err := os.Stat(results.ChainFile(out, 6)); err == nil {
		t.Error("--overwrite left the earlier run's chain-6.csv")
	}

	// An interrupted run of another command: its checkpoints and draws.
	out = t.TempDir()
	ck, err := analysis.EncodeCheckpoint(&analysis.Checkpoint{Format: 1, Command: "logistic", Chain: 2})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, analysis.CheckpointName(2)), ck, 0o644)
	os.WriteFile(results.ChainFile(out, 2), []byte("# model = fresgld logistic\n# method = sample (Default)\n"), 0o644)
	before = dirFiles(t, out)
	err = run(t, "gmm", "--keep", "20", "--burn", "0", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "holds an interrupted run of fresgld logistic (the checkpoints of chain 2): continue it with `fresgld resume "+out+"`") {
		t.Errorf("a run onto an interrupted run: %v", err)
	}
	sameFiles(t, "the refused run", before, dirFiles(t, out))
	// Another task of an array job (--chain 1) leaves chain 2's files be;
	// the task of chain 2 is told how to resume its own.
	if err := run(t, "gmm", "--keep", "20", "--burn", "0", "--chain", "1", "--out", out); err != nil {
		t.Errorf("--chain 1 beside chain 2's checkpoint: %v", err)
	}
	err = run(t, "gmm", "--keep", "20", "--burn", "0", "--chain", "2", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "`fresgld resume --chain 2 "+out+"`") {
		t.Errorf("--chain 2 onto its interrupted chain: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, analysis.CheckpointName(2))); !bytes.Equal(b, ck) {
		t.Error("chain 2's checkpoint changed")
	}
}
