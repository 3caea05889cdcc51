package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// progressLine is a progress line of gmm's run on a pipe.
var progressLine = regexp.MustCompile(`^gmm fresgld: \d+%, draws \d+/\d+`)

// A run's progress reaches a pipe as whole lines (no bar redrawn with
// carriage returns), the first within the meter's first second, and
// --quiet silences it.
func TestProgressOnPipe(t *testing.T) {
	skipShort(t, "builds the command")
	// A run far longer than the test, stopped by SIGINT once it has shown
	// what the test reads.
	args := []string{"gmm", "--chains", "1", "--keep", "2000000", "--thin", "1000", "--burn", "0"}
	cmd := exec.Command(binary(t), append(args, "--out", filepath.Join(t.TempDir(), "out"))...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var first string
	var after time.Duration
	timeout := time.After(60 * time.Second)
	for first == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stderr closed before any progress line")
			}
			if progressLine.MatchString(l) {
				first, after = l, time.Since(start)
			}
		case <-timeout:
			t.Fatal("no progress line on stderr in 60 s")
		}
	}
	if strings.Contains(first, "\r") {
		t.Errorf("progress line %q holds a carriage return: a pipe gets lines", first)
	}
	// The meter's first line is due 1 s after sampling starts; the process
	// starts and writes its first line well within 2 s more on an idle
	// machine, 30 on a loaded one.
	if after > 30*time.Second {
		t.Errorf("first progress line after %v", after)
	}
	cmd.Process.Signal(syscall.SIGINT)
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	cmd.Wait()
	ended := false
	for _, l := range rest {
		ended = ended || progressLine.MatchString(l) && strings.Contains(l, "ended after")
	}
	if !ended {
		t.Errorf("no last progress line saying when the run ended:\n%s", strings.Join(rest, "\n"))
	}

	// --quiet: the same run, 3 s in, has written no progress.
	q := exec.Command(binary(t), append(args, "--quiet", "--out", filepath.Join(t.TempDir(), "quiet"))...)
	var stderr bytes.Buffer
	q.Stderr = &stderr
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	q.Process.Signal(syscall.SIGINT)
	q.Wait()
	for _, l := range strings.Split(stderr.String(), "\n") {
		if progressLine.MatchString(l) {
			t.Errorf("--quiet wrote progress: %q", l)
		}
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("--quiet run's stderr lacks the interrupt message, so it may not have run:\n%s", stderr.String())
	}
}
