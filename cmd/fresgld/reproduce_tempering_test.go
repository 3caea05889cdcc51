package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bad settings are refused, naming the flag: --seeds before any work, an
// unknown workload or method before any run, and --docs with a part of the
// study (the smoke size, some methods, no NUTS), which would overwrite the
// full tables (the study itself is tested at a small size in
// experiments/tempering).
func TestReproduceTemperingFlags(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, "--seeds", "1"}, "--seeds"},
		{[]string{"--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"--out", out, "--workloads", "nope"}, `--workloads: no workload "nope"`},
		{[]string{"--out", out, "--methods", "one level"}, `--methods: no method "one level"`},
		{[]string{"--docs", "--methods", "nuts"}, "--docs with --methods nuts"},
		{[]string{"--docs", "--nuts=false"}, "--docs with --nuts false"},
	} {
		err := run(t, append([]string{"reproduce", "tempering"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %s", c.args, err, c.want)
		}
	}
}

// An interrupt stops the study at the run under way: the command exits
// non-zero saying so, soon, and leaves none of its scratch directories
// (each run's output, NUTS's files) behind in TMPDIR.
func TestReproduceTemperingInterrupt(t *testing.T) {
	skipShort(t, "builds the command and starts a study")
	tmp, out := t.TempDir(), t.TempDir()
	cmd := exec.Command(binary(t), "reproduce", "tempering", "--smoke", "--workloads", "uscrime-s0-0.001", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	// Read only once the command has ended: no write races the read.
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	done := started(t, cmd)
	// A run's scratch directory: the study is in its first run.
	running := func() bool {
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "fresgld-tempering-") {
				return true
			}
		}
		return false
	}
	deadline := time.After(time.Minute)
	for !running() {
		select {
		case err := <-done:
			t.Fatalf("the study ended before its interrupt (%v); stderr:\n%s", err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("no run under way after a minute; stderr:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("an interrupted study exited 0; stderr:\n%s", stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the study did not stop within 30 s of SIGINT; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the study was interrupted:\n%s", stderr.String())
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// A result file's first line names the part of the study it holds.
func TestTemperingCommandLine(t *testing.T) {
	for _, c := range []struct {
		f    temperingFlags
		want string
	}{
		{temperingFlags{NUTS: true}, "fresgld reproduce tempering --seeds 5 --workloads w"},
		{temperingFlags{NUTS: false}, "fresgld reproduce tempering --seeds 5 --nuts=false --workloads w"},
		{temperingFlags{NUTS: true, Methods: "one-level,nuts"}, "fresgld reproduce tempering --seeds 5 --methods one-level,nuts --workloads w"},
	} {
		if got := c.f.command(5, "w"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}
