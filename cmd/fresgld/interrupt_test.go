package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fresgld-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "fresgld")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("building the command: %v", binErr)
	}
	return binPath
}

// startLong starts a run far longer than the test, and waits until its
// chain-1.csv holds at least lines lines. done receives the run's exit.
func startLong(t *testing.T, out string, lines int, args ...string) (cmd *exec.Cmd, stderr *bytes.Buffer, done chan error) {
	t.Helper()
	cmd = exec.Command(binary(t), append(args, "--out", out)...)
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(out, "chain-1.csv"))
		if bytes.Count(b, []byte("\n")) >= lines {
			return cmd, stderr, done
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended early (%v); stderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatalf("no %d lines in chain-1.csv after 60 s; stderr:\n%s", lines, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parseChain parses a chain's CSV strictly: CmdStan's comment lines, then
// every line with the header's field count. It returns the header and the
// draws.
func parseChain(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return recs[0], recs[1:]
}

// chainSummary is what the tests read of summary.json.
type chainSummary struct {
	Draws   int `json:"draws_per_chain"`
	Stopped []struct {
		Chain int    `json:"chain"`
		Error string `json:"error"`
	} `json:"stopped_chains"`
	Warnings []string `json:"warnings"`
}

func readSummary(t *testing.T, dir string) chainSummary {
	t.Helper()
	var s chainSummary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return s
}

// SIGINT and SIGTERM stop sampling: the command finishes its files, writes
// a summary that marks every chain interrupted and pools what they drew,
// and exits non-zero saying so.
func TestInterruptKeepsSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(t.TempDir(), "out")
		cmd, stderr, done := startLong(t, out, 2000, "gmm", "--chains", "2", "--keep", "1000000000", "--thin", "1", "--burn", "0")
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 30 s after the signal", sig)
		}
		if err == nil || cmd.ProcessState.ExitCode() == 0 {
			t.Errorf("%v: exit status %v, want non-zero", sig, err)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: stderr lacks the interrupt message:\n%s", sig, stderr.String())
		}
		sum := readSummary(t, out)
		if len(sum.Stopped) != 2 {
			t.Errorf("%v: %d chains marked stopped, want 2", sig, len(sum.Stopped))
		}
		for _, c := range sum.Stopped {
			if !strings.HasSuffix(c.Error, "interrupted") {
				t.Errorf("%v: chain %d stopped with %q", sig, c.Chain, c.Error)
			}
		}
		for id := 1; id <= 2; id++ {
			_, rows := parseChain(t, filepath.Join(out, fmt.Sprintf("chain-%d.csv", id)))
			if len(rows) < sum.Draws || sum.Draws < 1000 {
				t.Errorf("%v: chain %d has %d draws, the summary pools %d", sig, id, len(rows), sum.Draws)
			}
		}
		for _, f := range []string{"summary.txt", "trace.png", "trace.svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%v: %s missing or empty after the interrupt", sig, f)
			}
		}
	}
}

// kill -9 cannot be caught: every chain's CSV still parses, every line
// whole, with every draw flushed before the kill.
func TestKillLeavesParsableSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	out := filepath.Join(t.TempDir(), "out")
	data, err := filepath.Abs("../../data/wdbc.csv")
	if err != nil {
		t.Fatal(err)
	}
	// 31 coefficients per line, as in the truncated line this guards against.
	cmd, _, done := startLong(t, out, 3000, "logistic", "--data", data, "--label", "benign", "--chains", "2", "--keep", "1000000", "--burn", "0", "--thin", "1")
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	for id := 1; id <= 2; id++ {
		header, rows := parseChain(t, filepath.Join(out, fmt.Sprintf("chain-%d.csv", id)))
		if !slices.Contains(header, "mean_radius") || len(rows) == 0 {
			t.Errorf("chain %d: header %q, %d draws", id, header, len(rows))
		}
		if id == 1 && len(rows) < 3000-100 {
			t.Errorf("chain 1: %d draws survived the kill; more were on disk before it", len(rows))
		}
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err == nil {
		t.Errorf("summary.json exists after kill -9 (the earlier run's was not removed?)")
	}
}

// An --out that cannot be a directory fails at once, before sampling: the
// run asked for would take hours.
func TestUnwritableOutFailsFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		start := time.Now()
		err := run(t, "gmm", "--keep", "1000000000", "--thin", "1", "--out", out)
		if err == nil || !strings.Contains(err.Error(), "--out") {
			t.Errorf("--out %s: error %v, want one naming --out", out, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("--out %s: failed after %v, so it sampled first", out, d)
		}
	}
}

// A run never leaves an earlier run's outputs beside its own: a run of two
// chains after one of four leaves two chain files, and a run that fails
// before drawing leaves no figure of the earlier run.
func TestEarlierOutputsRemoved(t *testing.T) {
	out := t.TempDir()
	if err := run(t, "gmm", "--chains", "4", "--keep", "100", "--burn", "0", "--out", out); err != nil {
		t.Fatal(err)
	}
	if err := run(t, "gmm", "--chains", "2", "--keep", "100", "--burn", "0", "--out", out); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(out, "chain-*.csv"))
	if len(m) != 2 {
		t.Errorf("%d chain files after a run of 2 chains: %v", len(m), m)
	}
	// Diverges at once: no draw, so no figure may be there.
	if err := run(t, "gmm", "--chains", "2", "--keep", "100", "--burn", "1000", "--eta", "1e6", "--out", out); err == nil {
		t.Fatal("a diverging run reported no error")
	}
	if sum := readSummary(t, out); len(sum.Stopped) != 2 {
		t.Errorf("summary of the failed run: %d chains stopped", len(sum.Stopped))
	}
	for _, f := range []string{"trace.png", "trace.svg", "marginals.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s of the earlier run is still there", f)
		}
	}
}
