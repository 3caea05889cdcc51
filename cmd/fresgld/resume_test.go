package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"
)

// TestResumeBitForBit interrupts runs by SIGINT, SIGTERM and kill -9 (at a
// random moment after the first checkpoint), resumes them with fresgld
// resume, and compares every output file with an uninterrupted run of the
// same command: byte for byte, but for the lines that hold elapsed times
// (the chain CSVs' "Elapsed Time" block, summary.json's wall_seconds and
// the plan's cost, timed in wall seconds, and report.html's wall time).
// It checks that the resume started from a step strictly inside the run,
// so that a run which finished before the signal proves nothing. A resume
// that restored any part of the state wrongly (a stream, a variance model,
// an anchor, the CSV's length) changes the draws and fails the comparison.
func TestResumeBitForBit(t *testing.T) {
	// Its runs are processes of their own, touching no state of this
	// one: it runs beside the other such tests.
	t.Parallel()
	skipShort(t, "builds the command and runs each case three times")
	data := dataFile(t, "wdbc.csv")
	gmm := []string{"gmm", "--chains", "2", "--burn", "1000", "--keep", "60000", "--thin", "10"}
	// Long enough (about a second a chain on a quiet machine) for a
	// checkpoint every 0.2 s to fall inside the sampling, however fast the
	// machine: a run that ends first would test nothing.
	logistic := []string{"logistic", "--data", data, "--label", "benign", "--chains", "2", "--burn", "300", "--keep", "12000", "--thin", "8"}
	diabetes := dataFile(t, "diabetes.csv")
	regress := []string{"regress", "--data", diabetes, "--label", "progression", "--chains", "2", "--burn", "200", "--keep", "30000", "--thin", "4"}
	// A model in another process: its state is the sampler's, which the
	// checkpoints hold; the process starts afresh on resume.
	sample := []string{"sample", "--model-cmd", testModelCmd(0), "--chains", "2", "--burn", "200", "--keep", "20000", "--thin", "2"}
	galaxies := dataFile(t, "galaxies.csv")
	mixture := []string{"mixture", "--data", galaxies, "--column", "velocity", "--components", "3", "--method", "sgld", "--eta", "1e-4", "--chains", "2", "--burn", "200", "--keep", "20000", "--thin", "2"}
	// Each case runs a command three times, some ten CPU-seconds: the
	// default suite runs one (a kill -9 of the auto ladder), FRESGLD_LONG=1
	// every one.
	cases := []struct {
		name  string
		sig   syscall.Signal
		lines int // draws in chain-1.csv before the signal
		args  []string
		long  bool
	}{
		{"gmm/fresgld/SIGINT", syscall.SIGINT, 3000, append(gmm, "--method", "fresgld", "--levels", "3"), true},
		{"gmm/fresgld/auto/SIGTERM", syscall.SIGTERM, 3000, append(gmm, "--method", "fresgld", "--levels", "auto"), true},
		{"gmm/fresgld/auto/kill", syscall.SIGKILL, 3000, append(gmm, "--method", "fresgld", "--levels", "auto"), false},
		{"gmm/fresgld/running/kill", syscall.SIGKILL, 3000, append(gmm, "--method", "fresgld", "--variance", "running", "--period", "5", "--repeats", "4"), true},
		{"logistic/auto/kill", syscall.SIGKILL, 300, append(logistic, "--method", "auto"), true},
		{"logistic/sgld/SIGINT", syscall.SIGINT, 300, append(logistic, "--method", "sgld"), true},
		{"logistic/fresgld/SIGTERM", syscall.SIGTERM, 300, append(logistic, "--method", "fresgld"), true},
		{"logistic/fresgld/auto/SIGINT", syscall.SIGINT, 300, append(logistic, "--method", "fresgld", "--levels", "auto"), true},
		{"logistic/resgld/pair-taylor/kill", syscall.SIGKILL, 300, append(logistic, "--method", "resgld", "--swap-energies", "pair-taylor"), true},
		{"regress/spike-slab/SIGINT", syscall.SIGINT, 2000, regress, true},
		{"sample/SIGTERM", syscall.SIGTERM, 2000, sample, true},
		{"mixture/sgld/SIGINT", syscall.SIGINT, 2000, mixture, true},
		// The default: the mixture's own kernel, whose allocations are
		// drawn afresh from θ each sweep, so θ and the stream resume it.
		{"mixture/auto/SIGINT", syscall.SIGINT, 2000, []string{"mixture", "--data", galaxies, "--column", "velocity", "--components", "3", "--chains", "2", "--burn", "200", "--keep", "20000", "--thin", "2"}, true},
	}
	for _, c := range cases {
		if c.long && !longChecks() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			ref := filepath.Join(t.TempDir(), "ref")
			if out, err := exec.Command(binary(t), append(c.args, "--out", ref)...).CombinedOutput(); err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			out := filepath.Join(t.TempDir(), "out")
			from := interruptAndResume(t, out, c.sig, c.lines, c.args)
			t.Logf("resumed from %v", from)
			sameOutputs(t, ref, out)
			if ck, _ := filepath.Glob(filepath.Join(out, "*.ckpt")); len(ck) > 0 {
				t.Errorf("checkpoints left after the resumed run completed: %v", ck)
			}
		})
	}
}

// interruptAndResume runs args into out with a checkpoint every 0.2 s,
// stops it with sig once chain-1.csv holds lines lines (for SIGKILL, once
// a checkpoint exists too, and then after a random number of further draws,
// fewer than lines: a random delay in time could outlast the run on a fast
// machine), runs fresgld resume out, and returns the steps the chains were
// resumed from.
func interruptAndResume(t *testing.T, out string, sig syscall.Signal, lines int, args []string) []int {
	t.Helper()
	cmd := exec.Command(binary(t), append(args, "--out", out, "--checkpoint-every", "0.2")...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := started(t, cmd)
	waitLines(t, results.ChainFile(out, 1), lines, done)
	if sig == syscall.SIGKILL {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(out, analysis.CheckpointName(1))); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("no checkpoint after 30 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		b, _ := os.ReadFile(results.ChainFile(out, 1))
		waitLines(t, results.ChainFile(out, 1), bytes.Count(b, []byte("\n"))+rand.N(lines), done)
	}
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 30 s after the signal")
	}
	if cmd.ProcessState.Success() {
		t.Fatalf("the run completed before the signal: it tests nothing\n%s", stderr.String())
	}
	res := exec.Command(binary(t), "resume", out)
	var rerr bytes.Buffer
	res.Stderr = &rerr
	if err := res.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, rerr.String())
	}
	m := regexp.MustCompile(`chain (\d+) from step (\d+)`).FindAllStringSubmatch(rerr.String(), -1)
	if len(m) == 0 {
		t.Fatalf("resume did not say where it resumed from:\n%s", rerr.String())
	}
	var from []int
	for _, x := range m {
		n, _ := strconv.Atoi(x[2])
		from = append(from, n)
	}
	total := planSteps(args)
	if from[0] == 0 || slices.Min(from) >= total {
		t.Errorf("chains resumed from steps %v of %d: the interrupt came before sampling or after it, the test sees nothing", from, total)
	}
	return from
}

// planSteps is burn + keep·thin of a command line that gives all three.
func planSteps(args []string) int {
	v := map[string]int{}
	for i, a := range args[:len(args)-1] {
		if n, err := strconv.Atoi(args[i+1]); err == nil && strings.HasPrefix(a, "--") {
			v[a] = n
		}
	}
	return v["--burn"] + v["--keep"]*v["--thin"]
}

// timeLine matches the lines that hold elapsed times, and the count of
// requests to a model process, which a resumed run makes again for its
// set-up (the plan's mode search and pilots) before it continues.
var timeLine = regexp.MustCompile(`seconds \((Warm-up|Sampling|Total)\)|"wall_seconds"|wall time: |"model_requests"|requests to \d+ model process|"plan_seconds"|"run_seconds_estimated"|"plan_share"|plan cost: `)

// sameOutputs compares every file of dirs a and b, time lines aside.
func sameOutputs(t *testing.T, a, b string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(a, "*"))
	if len(names) < 10 {
		t.Fatalf("%s holds %d files", a, len(names))
	}
	for _, f := range names {
		n := filepath.Base(f)
		x, err1 := os.ReadFile(f)
		y, err2 := os.ReadFile(filepath.Join(b, n))
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v %v", n, err1, err2)
			continue
		}
		if strings.HasSuffix(n, ".csv") || strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".html") {
			x, y = dropTimes(x), dropTimes(y)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs from the uninterrupted run's%s", n, firstDiff(x, y))
		}
	}
	if more, _ := filepath.Glob(filepath.Join(b, "*")); len(more) != len(names) {
		t.Errorf("%s holds %d files, the uninterrupted run's %d: %q", b, len(more), len(names), more)
	}
}

func dropTimes(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !timeLine.Match(l) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func firstDiff(x, y []byte) string {
	lx, ly := bytes.Split(x, []byte("\n")), bytes.Split(y, []byte("\n"))
	for i := range min(len(lx), len(ly)) {
		if !bytes.Equal(lx[i], ly[i]) {
			return fmt.Sprintf(": line %d\n  %.200s\n  %.200s", i+1, lx[i], ly[i])
		}
	}
	return fmt.Sprintf(": %d lines against %d", len(lx), len(ly))
}

// A checkpoint is refused, with a message naming what differs, when it
// was written by another version, with other settings, or when its chain
// file no longer holds the draws it counts on; nothing is changed then.
func TestResumeRefuses(t *testing.T) {
	// Its runs are processes of their own, touching no state of this
	// one: it runs beside the other such tests.
	t.Parallel()
	skipShort(t, "builds the command")
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig")
	args := []string{"gmm", "--chains", "1", "--burn", "100", "--keep", "100000000", "--thin", "1", "--levels", "2"}
	cmd := exec.Command(binary(t), append(args, "--out", orig, "--checkpoint-every", "0.1")...)
	done := started(t, cmd)
	waitLines(t, results.ChainFile(orig, 1), 2000, done)
	cmd.Process.Signal(syscall.SIGINT)
	<-done
	ckb := readFile(t, filepath.Join(orig, analysis.CheckpointName(1)))
	edit := func(name string, change func(dir string)) string {
		d := filepath.Join(dir, name)
		if err := os.CopyFS(d, os.DirFS(orig)); err != nil {
			t.Fatal(err)
		}
		change(d)
		return d
	}
	recode := func(d string, f func(c *analysis.Checkpoint)) {
		c, err := analysis.DecodeCheckpoint(ckb)
		if err != nil {
			t.Fatal(err)
		}
		f(c)
		b, err := analysis.EncodeCheckpoint(c)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, analysis.CheckpointName(1)), b, 0o644)
	}
	cases := []struct {
		name, want string
		dir        string
	}{
		{"version", "written by fresgld v0.0.1-other", edit("version", func(d string) {
			recode(d, func(c *analysis.Checkpoint) { c.Version = "v0.0.1-other" })
		})},
		{"settings", `"#   tau2 = 12"`, edit("settings", func(d string) {
			recode(d, func(c *analysis.Checkpoint) {
				for i, l := range c.Header {
					c.Header[i] = strings.Replace(l, "tau2 = 10", "tau2 = 12", 1)
				}
			})
		})},
		{"csv header", "chain-1.csv: written with the setting", edit("csv", func(d string) {
			p := results.ChainFile(d, 1)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("tau2 = 10"), []byte("tau2 = 11"), 1), 0o644)
		})},
		{"cut csv", "fewer than the", edit("cut", func(d string) {
			c, _ := analysis.DecodeCheckpoint(ckb)
			os.Truncate(results.ChainFile(d, 1), c.Offset-10) // inside the draws
		})},
		{"damaged", "not a fresgld checkpoint", edit("damaged", func(d string) {
			os.WriteFile(filepath.Join(d, analysis.CheckpointName(1)), ckb[:len(ckb)/3], 0o644)
		})},
		// --chain on a run of its chains together: its other chains ran
		// again from their first step, and their checkpoints went.
		{"--chain", "whose chains ran together", edit("chain", func(string) {})},
	}
	for _, c := range cases {
		before := dirFiles(t, c.dir)
		args := []string{"resume", c.dir}
		if c.name == "--chain" {
			args = []string{"resume", "--chain", "1", c.dir}
		}
		// A resume that is not refused runs its 10⁸ steps: bounded.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, binary(t), args...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v, output %s; want a refusal containing %q", c.name, err, out, c.want)
		}
		// Every file, the summary, report and figures too: a refused
		// resume deletes nothing.
		if c.name != "cut csv" {
			sameFiles(t, c.name, before, dirFiles(t, c.dir))
		}
	}
}
