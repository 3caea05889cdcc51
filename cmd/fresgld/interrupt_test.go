package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fresgld/fresgld/results"
)

// SIGINT stops sampling: the command finishes its files, writes a summary
// marked interrupted that counts, for each chain, exactly the draws in its
// CSV, and exits non-zero saying so.
func TestInterruptKeepsSamples(t *testing.T) {
	// Its runs are processes of their own, touching no state of this
	// one: it runs beside the other such tests.
	t.Parallel()
	skipShort(t, "builds the command")
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
		if !strings.Contains(stderr.String(), "interrupted after") {
			t.Errorf("%v: stderr lacks the interrupt message:\n%s", sig, stderr.String())
		}
		if want := "continue the run with `fresgld resume " + out + "`"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%v: stderr does not say %q:\n%s", sig, want, stderr.String())
		}
		var sum results.Summary
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatalf("%v: %v", sig, err)
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatalf("%v: summary.json: %v", sig, err)
		}
		if !sum.Interrupted || len(sum.Stopped) != 2 {
			t.Errorf("%v: summary says interrupted=%v, %d chains stopped", sig, sum.Interrupted, len(sum.Stopped))
		}
		for _, c := range sum.Stopped {
			// --burn 0 --thin 1: a draw for every step taken.
			rows := parseSamples(t, results.ChainFile(out, c.Chain), 6)
			if c.Steps != len(rows) || (c.Chain == 1 && len(rows) < 2000-40) {
				t.Errorf("%v: summary says chain %d took %d steps; its CSV has %d draws", sig, c.Chain, c.Steps, len(rows))
			}
		}
		for _, f := range []string{"summary.txt", "density.png", "density.svg", "trace.svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%v: %s missing or empty after the interrupt", sig, f)
			}
		}
	}
}

// kill -9 cannot be caught: chain-1.csv still parses, every line whole,
// with every draw flushed before the kill.
func TestKillLeavesParsableSamples(t *testing.T) {
	// Its runs are processes of their own, touching no state of this
	// one: it runs beside the other such tests.
	t.Parallel()
	skipShort(t, "builds the command")
	out := filepath.Join(t.TempDir(), "out")
	data := dataFile(t, "wdbc.csv")
	// 36 columns per line (lp__, 4 sampler columns, 31 coefficients), as
	// in the truncated line this guards against.
	const lines = 3000
	cmd, _, done := startLong(t, out, lines, "logistic", "--data", data, "--label", "benign", "--method", "fresgld", "--chains", "2", "--keep", "1000000", "--burn", "0", "--thin", "1")
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	rows := parseSamples(t, filepath.Join(out, "chain-1.csv"), 36)
	// The lines on disk before the kill: the draws, the header and the
	// comment lines of the settings (under 60: 42 with the features'
	// standardisation and the swap energies used).
	if len(rows) < lines-60 {
		t.Errorf("%d draws survived the kill; at least %d were on disk before it", len(rows), lines-60)
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

// A failed run never leaves an earlier run's outputs beside its own.
func TestEarlierOutputsRemoved(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "gmm", "--keep", "100", "--burn", "0", "--out", out)
	// The next run fails while sampling (the step size makes the chain
	// diverge); its density figure must not be the earlier run's. The
	// step-size check would refuse --eta 1e6 before any work, leaving the
	// earlier outputs in place as it should: off for this test.
	checkStepStability = false
	t.Cleanup(func() { checkStepStability = true })
	err := run(t, "gmm", "--keep", "100000", "--burn", "0", "--eta", "1e6", "--out", out, "--overwrite")
	if err == nil {
		t.Fatal("a diverging run reported no error")
	}
	var sum results.Summary
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Stopped) == 0 {
		t.Errorf("summary of the failed run: %s (%v)", b, err)
	}
	draws := 0
	for _, c := range sum.Stopped {
		// --burn 0 and the default --thin 5: a draw every 5 steps.
		rows := parseSamples(t, results.ChainFile(out, c.Chain), 6)
		if len(rows) != c.Steps/5 {
			t.Errorf("chain %d: its CSV has %d rows, the summary %d steps", c.Chain, len(rows), c.Steps)
		}
		draws += len(rows)
	}
	if draws == 0 {
		for _, f := range []string{"density.png", "density.svg"} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("%s of the earlier run is still there", f)
			}
		}
	}
}
