package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// The helpers the command's tests share: the fixtures they write and the
// shipped data they read, and what they read back from a run.

// writeFile writes body to a file name in a fresh directory and returns
// its path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// repoFile is the absolute path of the repository's file rel: runs that
// change directory, or another process, still find it.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readFile is the contents of the file at path; failing to read it fails
// the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dataFile is the absolute path of the shipped data set data/name.
func dataFile(t *testing.T, name string) string {
	t.Helper()
	return repoFile(t, filepath.Join("data", name))
}

// breastCancerRef is the committed MALA reference of the minibatch
// study's breast-cancer problem.
func breastCancerRef(t *testing.T) string {
	t.Helper()
	return repoFile(t, "docs/results/minibatch/breast-cancer-reference.json")
}

// galaxies is the shipped galaxies data, column "velocity".
func galaxies(t *testing.T) string {
	t.Helper()
	return dataFile(t, "galaxies.csv")
}

// diabetes is the shipped diabetes data, label "progression".
func diabetes(t *testing.T) string {
	t.Helper()
	return dataFile(t, "diabetes.csv")
}

// csvRows is CSV text: header (with its newline), then n rows, row i
// given by f without its newline.
func csvRows(header string, n int, f func(i int) string) string {
	var b strings.Builder
	b.WriteString(header)
	for i := range n {
		b.WriteString(f(i) + "\n")
	}
	return b.String()
}

// noiseCSV writes n examples of p standard normal features x0, x1, … (three
// decimals, drawn from seed), with the label y = i mod classes last.
func noiseCSV(t *testing.T, n, p int, seed uint64, classes int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	noise := func(int, int) string { return fmt.Sprintf("%.3f", rng.NormFloat64()) }
	return featuresCSV(t, n, p, noise, func(i int) int { return i % classes })
}

// featuresCSV writes n examples of p features x0, x1, …, feature j of
// example i given by x, with the label y = label(i) last.
func featuresCSV(t *testing.T, n, p int, x func(i, j int) string, label func(i int) int) string {
	t.Helper()
	var b strings.Builder
	for j := range p {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := range n {
		for j := range p {
			b.WriteString(x(i, j) + ",")
		}
		fmt.Fprintf(&b, "%d\n", label(i))
	}
	return writeFile(t, "wide.csv", b.String())
}

// readSummary reads dir's summary.json.
func readSummary(t *testing.T, dir string) results.Summary {
	t.Helper()
	var s results.Summary
	readSummaryInto(t, dir, &s)
	return s
}

// readSummaryInto reads dir's summary.json into v.
func readSummaryInto(t *testing.T, dir string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), v); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
}

// stdoutOf runs the command line in process and returns its stdout and
// error.
func stdoutOf(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var err error
	out := captureStdout(t, func() error { err = run(t, args...); return nil })
	return out, err
}

// captureStdout runs f with os.Stdout sent to a pipe and returns what it
// printed; f's error fails the test.
func captureStdout(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	ferr := f()
	os.Stdout = old
	w.Close()
	b := <-done
	if ferr != nil {
		t.Fatal(ferr)
	}
	return string(b)
}

// started starts cmd and returns the channel its exit error is sent on.
func started(t *testing.T, cmd *exec.Cmd) <-chan error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}
