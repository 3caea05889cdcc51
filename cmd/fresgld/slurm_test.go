package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"
)

// slurmTools finds the Slurm and munge programs, in PATH or /usr/sbin
// (where Debian puts the daemons); missing names the first one absent.
func slurmTools() (path, missing string) {
	path = os.Getenv("PATH") + string(os.PathListSeparator) + "/usr/sbin"
	for _, p := range []string{"sbatch", "scontrol", "squeue", "slurmctld", "slurmd", "munged"} {
		found := false
		for _, d := range filepath.SplitList(path) {
			if st, err := os.Stat(filepath.Join(d, p)); err == nil && !st.IsDir() {
				found = true
				break
			}
		}
		if !found {
			return path, p
		}
	}
	return path, ""
}

// TestSlurmArray runs deploy/slurm/submit.sh on a single-node Slurm brought
// up by deploy/slurm/single-node.sh: four logistic chains as an array job
// whose tasks are resumable, and a merge job after them. Once chain 1 has
// written a checkpoint, its task is requeued (scontrol requeue: Slurm sends
// SIGTERM, the task checkpoints and ends, and runs again); the requeued
// task must resume from its checkpoint, strictly inside the run. The
// merged table must equal a single process's four-chain table byte for
// byte, and every chain's draws that process's. Skipped, saying so,
// without Slurm and munge (apt-get install slurm-wlm munge) or root; a
// long check, run when FRESGLD_LONG=1 (.ci/run sets it).
func TestSlurmArray(t *testing.T) {
	if testing.Short() || !longChecks() {
		t.Skip("brings up a Slurm cluster: a long check, run with FRESGLD_LONG=1")
	}
	path, missing := slurmTools()
	if missing != "" {
		t.Skipf("%s not found: install Debian's slurm-wlm and munge (apt-get install --no-install-recommends slurm-wlm munge) to run the Slurm test", missing)
	}
	if os.Geteuid() != 0 {
		t.Skip("slurmd runs jobs only as root here: run the Slurm test as root")
	}
	bin := binary(t)
	repo, _ := filepath.Abs("../..")
	data := filepath.Join(repo, "data", "wdbc.csv")
	work, err := os.MkdirTemp("", "fresgld-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	// The daemons' ports, free now: two runs of the test on one host, or
	// a cluster already listening on the script's default, do not collide.
	port := freePortPair(t)
	env := append(os.Environ(), "PATH="+path, "SLURM_CONF="+filepath.Join(work, "cluster", "slurm.conf"), "SLURM_PORT="+strconv.Itoa(port))
	sh := func(name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	node := filepath.Join(repo, "deploy", "slurm", "single-node.sh")
	sh(node, "start", filepath.Join(work, "cluster"))
	defer func() {
		c := exec.Command(node, "stop", filepath.Join(work, "cluster"))
		c.Env = env
		c.Run()
	}()

	// The ladder, whose chains run for seconds, not the default plan's
	// second or so: the requeue must land inside chain 1's run.
	args := []string{"logistic", "--data", data, "--label", "benign", "--method", "fresgld", "--seed", "19", "--burn", "300", "--keep", "5000", "--thin", "8"}
	ref := filepath.Join(work, "ref")
	if out, err := exec.Command(bin, append(args, "--chains", "4", "--out", ref)...).CombinedOutput(); err != nil {
		t.Fatalf("the single-process run: %v\n%s", err, out)
	}
	out := filepath.Join(work, "out")
	submitted := sh(filepath.Join(repo, "deploy", "slurm", "submit.sh"), append([]string{"--out", out, "--chains", "4", "--resumable", "--fresgld", bin, "--"},
		append(args, "--checkpoint-every", "0.3")...)...)
	m := regexp.MustCompile(`array job (\d+) .*merge job (\d+)`).FindStringSubmatch(submitted)
	if m == nil {
		t.Fatalf("submit.sh said %q", submitted)
	}
	array, merge := m[1], m[2]
	task1 := array + "_1"

	wait := func(what string, limit time.Duration, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after %v\nsqueue:\n%s%s", what, limit, sh("squeue"), taskLogs(out))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	state := func(job string) string {
		c := exec.Command("scontrol", "show", "job", job)
		c.Env = env
		b, _ := c.Output()
		if s := regexp.MustCompile(`JobState=(\S+)`).FindSubmatch(b); s != nil {
			return string(s[1])
		}
		return ""
	}
	wait("chain 1's first checkpoint", 3*time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(out, analysis.CheckpointName(1)))
		return err == nil
	})
	sh("scontrol", "requeue", task1)
	// A requeued job waits (BeginTime) before it may start again: let it
	// start now.
	wait("the requeued task pending", 30*time.Second, func() bool { return state(task1) == "PENDING" })
	sh("scontrol", "update", "jobid="+task1, "StartTime=now")
	wait("the merge job", 5*time.Minute, func() bool {
		s := state(merge)
		if s == "FAILED" || s == "CANCELLED" || s == "TIMEOUT" {
			b, _ := os.ReadFile(filepath.Join(out, "slurm-merge-"+merge+".out"))
			t.Fatalf("merge job %s: %s\n%s", merge, s, b)
		}
		return s == "COMPLETED"
	})
	log, _ := os.ReadFile(filepath.Join(out, "slurm-"+task1+".out"))
	r := regexp.MustCompile(`resuming fresgld logistic in .*: chain 1 from step (\d+)`).FindSubmatch(log)
	if r == nil {
		t.Fatalf("the requeued task did not resume from its checkpoint; its log:\n%s", log)
	}
	if n, _ := strconv.Atoi(string(r[1])); n == 0 || n >= planSteps(args) {
		t.Errorf("the requeued task resumed from step %d of %d: the requeue came before or after sampling, the test sees nothing", n, planSteps(args))
	}
	want, _ := os.ReadFile(filepath.Join(ref, "summary.txt"))
	got, err := os.ReadFile(filepath.Join(out, "merged", "summary.txt"))
	if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("merged table (%v)\n%s\nthe single process's\n%s", err, got, want)
	}
	for c := 1; c <= 4; c++ {
		if !bytes.Equal(dataRows(t, results.ChainFile(ref, c)), dataRows(t, results.ChainFile(out, c))) {
			t.Errorf("chain %d's draws differ from the single process's", c)
		}
	}
}

// freePortPair finds a port p such that p and p+1 are both free on this
// host (single-node.sh gives slurmctld p and slurmd p+1).
func freePortPair(t *testing.T) int {
	t.Helper()
	for range 100 {
		a, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		p := a.Addr().(*net.TCPAddr).Port
		b, err := net.Listen("tcp", ":"+strconv.Itoa(p+1))
		a.Close()
		if err == nil {
			b.Close()
			return p
		}
	}
	t.Fatal("no two consecutive free ports in 100 tries")
	return 0
}

// taskLogs are the jobs' output files in dir, each with its name, for a
// failure message: what a task said before it failed.
func taskLogs(dir string) string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(dir, "slurm-*.out"))
	for _, f := range files {
		text, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "\n%s:\n%s", filepath.Base(f), text)
	}
	return b.String()
}
