package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/results"
)

// An interrupt keeps every draw: with three chains on two workers, chain 3
// waits for a core and never starts; the table pools every draw of chains 1
// and 2, however unequal their lengths, and says what each contributed.
// Cutting the chains to the shortest (as before) or discarding the run for
// the chain that never started fails the pooled-mean and draw checks.
func TestInterruptPoolsEveryDraw(t *testing.T) {
	skipShort(t, "builds the command")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(binary(t), "gmm", "--chains", "3", "--keep", "1000000000", "--burn", "100", "--thin", "1", "--out", out)
	// Two workers, whatever the machine: chain 3 waits for one of them.
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := started(t, cmd)
	waitLines(t, results.ChainFile(out, 1), 3000, done)
	waitLines(t, results.ChainFile(out, 2), 3000, done)
	cmd.Process.Signal(syscall.SIGINT)
	sent := time.Now()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 20 s after SIGINT")
	}
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit status %d, want 1", cmd.ProcessState.ExitCode())
	}
	t.Logf("exited %v after SIGINT (figures included)", time.Since(sent).Round(time.Millisecond))
	for _, want := range []string{"chain 3 of 3 never started", "chain 1 of 3 interrupted after"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	sum := readSummary(t, out)
	if !sum.Interrupted || len(sum.PerChain) != 3 {
		t.Fatalf("summary: interrupted %v, %d chains listed", sum.Interrupted, len(sum.PerChain))
	}
	var all []float64
	line := "2 chains, "
	for _, c := range sum.PerChain {
		rows := parseSamples(t, results.ChainFile(out, c.Chain), 6)
		if c.Draws != len(rows) {
			t.Errorf("chain %d: summary says %d draws, its CSV has %d", c.Chain, c.Draws, len(rows))
		}
		switch c.Chain {
		case 3:
			if c.Status != results.StatusNeverStarted || c.Steps != 0 || c.Pooled {
				t.Errorf("chain 3: %+v, want never started, 0 steps, not pooled", c)
			}
		default:
			// --burn 100 --thin 1: a draw for every step after burn-in.
			if c.Status != results.StatusInterrupted || !c.Pooled || c.Steps != 100+len(rows) || len(rows) < 2900 {
				t.Errorf("chain %d: %+v with %d rows in its CSV", c.Chain, c, len(rows))
			}
			for _, r := range rows {
				x, _ := strconv.ParseFloat(r[5], 64)
				all = append(all, x)
			}
		}
	}
	if sum.PooledDraws != len(all) {
		t.Errorf("the table pools %d draws; the CSVs hold %d", sum.PooledDraws, len(all))
	}
	mean := 0.0
	for _, x := range all {
		mean += x / float64(len(all))
	}
	for _, p := range sum.Parameters {
		if p.Name == "theta1" && !(math.Abs(p.Mean-mean) <= 1e-9*(1+math.Abs(mean))) {
			t.Errorf("theta1's mean %v; the mean of every draw in the CSVs is %v", p.Mean, mean)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
	first, _, _ := strings.Cut(string(b), "\n")
	line += strconv.Itoa(len(all)) + " draws (chain 1: "
	// Two chains stopped at once may hold the same number of draws (the
	// interrupt is seen at the same step of each); the line then says so
	// as an unbroken run's does.
	if d := sum.PerChain; len(d) == 3 && d[0].Draws == d[1].Draws {
		line = "2 chains × " + strconv.Itoa(d[0].Draws) + " draws (chain 1: "
	}
	if !strings.HasPrefix(first, line) || !strings.HasSuffix(first, "chain 3: never started)") {
		t.Errorf("table's first line %q, want %q…chain 3: never started)", first, line)
	}
	// merge reads the interrupted run's files back to the same table.
	merged, err := stdoutOf(t, "merge", out)
	if err == nil || merged != string(b) {
		t.Errorf("merge of the interrupted run (error %v) printed\n%s\nthe run's table is\n%s", err, merged, b)
	}
}

// answers starts the command, sends sig after wait, and returns how long
// the process took to exit, its exit error and its stderr. A run that
// outlives the signal by 20 s is killed and fails the test.
func answers(t *testing.T, sig syscall.Signal, wait time.Duration, args ...string) (time.Duration, error, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := started(t, cmd)
	select {
	case err := <-done:
		t.Fatalf("%v ended before the signal: %v\n%s", args, err, stderr.String())
	case <-time.After(wait):
	}
	before, ok := modelproc.ProcessCPUTime(cmd.Process.Pid)
	cmd.Process.Signal(sig)
	sent := time.Now()
	select {
	case err := <-done:
		return afterSignal(cmd, before, ok, sent), err, stderr.String()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running 20 s after %v", args, sig)
	}
	return 0, nil, ""
}

// answerLimit is how soon a phase must end after SIGINT or SIGTERM: a
// second, and a margin. It is counted in the process's CPU time after the
// signal, not in wall time: on a loaded machine (load 15 on two cores) a
// process that stops at once still waits seconds for a core, and a wall
// clock limit failed runs that answered correctly.
const answerLimit = 2 * time.Second

// afterSignal is the time process cmd, which has exited, took after a
// signal sent at sent: the CPU time it used after it (before: its CPU time
// then), or the wall time where CPU time cannot be read.
func afterSignal(cmd *exec.Cmd, before time.Duration, ok bool, sent time.Time) time.Duration {
	if !ok || cmd.ProcessState == nil {
		return time.Since(sent)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - before
}

// Every phase before sampling answers SIGINT and SIGTERM at once: ladder
// tuning (which once ran for minutes with the signal pending), the swap-energy
// pilot, and a reproduce study. Without the stop in the tuning loop and the
// pilot, these runs outlast the 20 s limit by far.
func TestPhasesAnswerSignals(t *testing.T) {
	// Its runs are processes of their own, touching no state of this
	// one: it runs beside the other such tests.
	t.Parallel()
	skipShort(t, "builds the command")
	data := dataFile(t, "wdbc.csv")
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		args []string
		want string // in stderr; "" for a study, which the signal ends by default
	}{
		// 20 rounds from 1000 steps: 10⁹ steps of a 4-level ladder.
		{"tuning", syscall.SIGTERM, []string{"gmm", "--levels", "auto", "--auto-rounds", "20", "--auto-first", "1000", "--out", t.TempDir()},
			"interrupted while preparing chain 1 (tuning its ladder), before any draw: nothing to keep"},
		{"pilot", syscall.SIGINT, []string{"logistic", "--data", data, "--label", "benign", "--method", "fresgld", "--swap-energies", "auto", "--swap-pilot", "1000000000", "--out", t.TempDir()},
			"swap-energy pilot: interrupted before sampling: nothing to keep"},
		{"reproduce", syscall.SIGTERM, []string{"reproduce", "gmm", "--out", t.TempDir()}, ""},
	} {
		took, err, stderr := answers(t, c.sig, 1500*time.Millisecond, c.args...)
		if took > answerLimit {
			t.Errorf("%s: took %v of CPU time after %v", c.name, took, c.sig)
		}
		if err == nil {
			t.Errorf("%s: exit status 0 after %v", c.name, c.sig)
		}
		if c.want != "" && !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr lacks %q:\n%s", c.name, c.want, stderr)
		}
	}
}

// Count flags are bounded, with an error naming the flag, before any work.
func TestCountBounds(t *testing.T) {
	data := smallCSV(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gmm", "--levels", "auto", "--auto-rounds", "60"}, "--auto-rounds = 60, --auto-first = 500: the tuning would take more than 2147483647 steps (round n runs --auto-first·2^n steps; at most --auto-rounds = 22 with this --auto-first)"},
		{[]string{"gmm", "--levels", "auto", "--auto-first", "3000000000"}, "--auto-first = 3000000000: more than"},
		{[]string{"gmm", "--levels", "auto", "--max-levels", "1000"}, "--max-levels = 1000: at most 256"},
		{[]string{"gmm", "--levels", "300"}, "--levels = 300: at most 256"},
		{[]string{"gmm", "--chains", "100000"}, "--chains = 100000: at most 256"},
		{[]string{"gmm", "--variance", "running", "--repeats", "100000000"}, "--repeats = 100000000: at most"},
		{[]string{"gmm", "--swaps", "deo", "--window", "3000000000"}, "--window = 3000000000: at most"},
		{[]string{"logistic", "--data", data, "--label", "y", "--swap-pilot", "3000000000"}, "--swap-pilot = 3000000000: at most"},
		{[]string{"logistic", "--data", data, "--label", "y", "--levels", "1000"}, "--levels = 1000: at most 256"},
		{[]string{"reproduce", "ladder-heat", "--rounds", "40"}, "--rounds = 40, --first = 200: the tuning would take more than 2147483647 steps"},
	} {
		start := time.Now()
		err := run(t, append(c.args, "--out", t.TempDir())...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: failed after %v, so it worked first", c.args, d)
		}
	}
}

// Once sampling is over the chain files are complete, and a signal while
// the figures are drawn (seconds for a long run) ends the process at once
// instead of going unanswered until they are done.
func TestFiguresAnswerSignals(t *testing.T) {
	long(t)
	skipShort(t, "builds the command")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(binary(t), "gmm", "--chains", "2", "--keep", "300000", "--thin", "1", "--burn", "0", "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.HasPrefix(sc.Text(), "writing the figures") {
				close(seen)
				once = true
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("no 'writing the figures' line in 60 s")
	}
	before, ok := modelproc.ProcessCPUTime(cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGINT)
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("still drawing 20 s after SIGINT")
	}
	if took := afterSignal(cmd, before, ok, sent); took > answerLimit {
		t.Errorf("took %v of CPU time after SIGINT", took)
	}
	for c := 1; c <= 2; c++ {
		b, _ := os.ReadFile(results.ChainFile(out, c))
		if !bytes.Contains(b, []byte(results.StatsHeading)) {
			t.Errorf("chain %d's file is not complete", c)
		}
	}
}
