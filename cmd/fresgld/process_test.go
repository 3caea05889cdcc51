package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The helpers of the tests that run the command as a process of its own:
// the binary, built once, a long run started and waited on, and its chain
// files read back.

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

// waitLines waits until path holds at least lines lines; done receives the
// process's exit, which fails the test.
func waitLines(t *testing.T, path string, lines int, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte("\n")) >= lines {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d lines in %s after 60 s", lines, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startLong starts a run far longer than the test, and waits until its
// chain-1.csv holds at least lines lines. done receives the run's exit.
func startLong(t *testing.T, out string, lines int, args ...string) (cmd *exec.Cmd, stderr *bytes.Buffer, done <-chan error) {
	t.Helper()
	cmd = exec.Command(binary(t), append(args, "--out", out)...)
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	done = started(t, cmd)
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

// parseSamples parses a chain's CSV strictly (every line but the comments
// with the header's field count) and returns its data rows.
func parseSamples(t *testing.T, path string, fields int) [][]string {
	t.Helper()
	_, rows := parseChain(t, path, fields)
	return rows
}

// parseChain is parseSamples that also returns the header; fields < 0
// takes the header's field count.
func parseChain(t *testing.T, path string, fields int) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	if fields >= 0 {
		r.FieldsPerRecord = fields
	}
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return recs[0], recs[1:]
}
