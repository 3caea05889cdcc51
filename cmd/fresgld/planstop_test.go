package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/results"
)

// With FRESGLD_TEST_SLOW_MODEL set to a duration, the test binary serves
// testModel's logistic regression over the protocol, each request taking
// that long: a model whose plan takes tens of seconds. (An init, not
// TestMain's branch: it runs first.)
func init() {
	d := os.Getenv("FRESGLD_TEST_SLOW_MODEL")
	if d == "" {
		return
	}
	delay, err := time.ParseDuration(d)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := modelproc.Serve(&slowTerms{energy.NewPerTerm(testModel()), delay}, []string{"a", "b", "c"}, true, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

type slowTerms struct {
	energy.BatchTerms
	delay time.Duration
}

func (s *slowTerms) Batch(m *energy.Moments, x, y []float64, idx []int32) {
	time.Sleep(s.delay)
	s.BatchTerms.Batch(m, x, y, idx)
}

// Every stop is honoured while the plan runs: SIGINT or SIGTERM during the
// mode search of a slow model (20 ms a request) and of a mixture on 10⁵
// values ends the process within answerLimit of CPU time (and a few
// seconds of wall time), saying that it was planning, which search it was
// at, and that nothing was kept; no chain file is written. Without the
// plan's stop, the search runs on to its end (tens of seconds, minutes for
// the mixture) with the signal pending.
func TestPlanAnswersSignals(t *testing.T) {
	t.Parallel()
	skipShort(t, "builds the command")
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		mu := 0.0
		if i%3 == 0 {
			mu = 8
		}
		fmt.Fprintf(&b, "%.6g\n", mu+rng.NormFloat64())
	}
	data := writeFile(t, "values.csv", b.String())
	slow := fmt.Sprintf("FRESGLD_TEST_SLOW_MODEL=50ms exec '%s'", os.Args[0])
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		args []string
		// at is the progress line's text after which the signal goes;
		// want what the error then says.
		at   string
		want []string
	}{
		{"slow model", syscall.SIGINT, []string{"sample", "--model-cmd", slow}, "searching the posterior's modes: search ",
			[]string{"interrupted while planning the run (searching the posterior's modes: ", "before any draw: nothing to keep"}},
		// NUTS's warmups stopped only between chains: at 50 ms a request,
		// minutes.
		{"slow model, NUTS", syscall.SIGINT, []string{"sample", "--model-cmd", slow, "--method", "nuts", "--chains", "2"}, "warming up 2 NUTS chains",
			[]string{"interrupted while planning the run (warming up 2 NUTS chains", "before any draw: nothing to keep"}},
		{"mixture of 10⁵", syscall.SIGTERM, []string{"mixture", "--data", data, "--column", "x", "--components", "3"}, "planning the run: ",
			[]string{"interrupted while planning the run (", "before any draw: nothing to keep"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		cmd := exec.Command(binary(t), append(c.args, "--out", out)...)
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The signal goes once the progress line says c.at.
		var stderr strings.Builder
		searching, lines := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(lines)
			sc, once := bufio.NewScanner(pipe), sync.Once{}
			for sc.Scan() {
				stderr.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), c.at) {
					once.Do(func() { close(searching) })
				}
			}
		}()
		done := make(chan error, 1)
		go func() { <-lines; done <- cmd.Wait() }()
		select {
		case <-searching:
		case err := <-done:
			t.Fatalf("%s: ended before its search: %v\n%s", c.name, err, stderr.String())
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: no search after 60 s", c.name)
		}
		before, ok := modelproc.ProcessCPUTime(cmd.Process.Pid)
		cmd.Process.Signal(c.sig)
		sent := time.Now()
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%s: still running 30 s after %v\n%s", c.name, c.sig, stderr.String())
		}
		wall := time.Since(sent)
		took := afterSignal(cmd, before, ok, sent)
		t.Logf("%s: exited %v after %v, %v of CPU time; stderr:\n%s", c.name, wall.Round(time.Millisecond), c.sig, took.Round(time.Millisecond), stderr.String())
		if took > answerLimit || wall > 2*time.Second+3*time.Second {
			t.Errorf("%s: took %v of CPU time, %v of wall time after %v", c.name, took, wall, c.sig)
		}
		if err == nil {
			t.Errorf("%s: exit status 0 after %v", c.name, c.sig)
		}
		for _, want := range c.want {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr lacks %q", c.name, want)
			}
		}
		if _, err := os.Stat(results.ChainFile(out, 1)); err == nil {
			t.Errorf("%s: a chain file was written", c.name)
		}
	}
}
