package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a task of an array job: with OUTPUT_TEST_TASK
// set it writes into the directory OUTPUT_TEST_DIR as a task of a Slurm
// array does, and exits 1, saying why, if a write fails.
//
//	write:   WriteFile of trace.png (a file every task writes) and of its
//	         own chain-ID.ckpt, OUTPUT_TEST_ROUNDS times each
//	requeue: a task starting again: Prepare with the shared names and its
//	         own, and RemoveTemps of them, over and over while the others
//	         write, then the writes of a task
//	sleep:   waits to be killed
func TestMain(m *testing.M) {
	switch os.Getenv("OUTPUT_TEST_TASK") {
	case "":
		os.Exit(m.Run())
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir, id := os.Getenv("OUTPUT_TEST_DIR"), os.Getenv("OUTPUT_TEST_ID")
	rounds, _ := strconv.Atoi(os.Getenv("OUTPUT_TEST_ROUNDS"))
	own := "chain-" + id + ".ckpt"
	if os.Getenv("OUTPUT_TEST_TASK") == "requeue" {
		for range rounds {
			d, err := Prepare(dir, "trace.png", own)
			if err != nil {
				fmt.Fprintln(os.Stderr, "requeued task:", err)
				os.Exit(1)
			}
			d.RemoveTemps("trace.png", own)
		}
	}
	payload := bytes.Repeat([]byte("x"), 1<<16)
	for range rounds {
		for _, name := range []string{"trace.png", own} {
			if err := WriteBytes(filepath.Join(dir, name), payload); err != nil {
				fmt.Fprintf(os.Stderr, "task %s: %v\n", id, err)
				os.Exit(1)
			}
		}
	}
	os.Exit(0)
}

// task starts the test binary as a task (see TestMain).
func task(t *testing.T, mode, dir string, id, rounds int) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "OUTPUT_TEST_TASK="+mode, "OUTPUT_TEST_DIR="+dir,
		"OUTPUT_TEST_ID="+strconv.Itoa(id), "OUTPUT_TEST_ROUNDS="+strconv.Itoa(rounds))
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Four tasks write into one directory while a fifth, requeued, prepares
// it again and again, twenty times over: no task's write fails, and no
// temporary is left. Before temporaries carried their owner, the requeued
// task's RemoveTemps removed the others' trace.png temporaries between
// their write and their rename (a Slurm array job's tasks failed with
// "rename .trace.png.tmp-…: no such file or directory").
func TestOwnedTempsAcrossTasks(t *testing.T) {
	const runs, tasks, rounds = 20, 4, 10
	for run := range runs {
		dir := t.TempDir()
		var cmds []*exec.Cmd
		for id := 1; id <= tasks; id++ {
			cmds = append(cmds, task(t, "write", dir, id, rounds))
		}
		// The requeue lands in the middle: once the tasks have begun.
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(dir, "trace.png")); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cmds = append(cmds, task(t, "requeue", dir, 1, rounds))
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("run %d, task %d: %v: %s", run+1, i+1, err, c.Stderr)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(m) > 0 {
			t.Fatalf("run %d left temporaries %v", run+1, m)
		}
	}
}

// Prepare and RemoveTemps remove the temporaries of the names given that
// are this process's own or whose writer on this host has ended; those of
// a running process, of another host, or naming no owner stay.
func TestRemoveTempsOwnedOnly(t *testing.T) {
	dir := t.TempDir()
	host, _, _ := bytes.Cut([]byte(owner), []byte("."))
	ended := task(t, "exit", dir, 0, 0) // no such mode: exits at once
	ended.Wait()
	running := task(t, "sleep", dir, 0, 0)
	defer func() { running.Process.Kill(); running.Wait() }()
	name := func(base, tok string) string { return filepath.Join(dir, "."+base+".tmp-"+tok+"-123") }
	mine := name("summary.txt", owner)
	dead := name("trace.png", ownerToken(string(host), ended.Process.Pid))
	live := name("trace.png", ownerToken(string(host), running.Process.Pid))
	remote := name("trace.png", "other_host."+strconv.Itoa(ended.Process.Pid))
	legacy := filepath.Join(dir, ".trace.png.tmp-456")
	unnamed := name("chain-2.ckpt", owner) // not among the names given
	for _, f := range []string{mine, dead, live, remote, legacy, unnamed} {
		if err := os.WriteFile(f, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Prepare(dir, "summary.txt", "trace.png"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{mine, dead} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", filepath.Base(f), err)
		}
	}
	for _, f := range []string{live, remote, legacy, unnamed} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
}

// A WriteFile killed mid-write leaves a temporary that names this process.
func TestTempNamesOwner(t *testing.T) {
	dir := t.TempDir()
	var seen []string
	var once sync.Once
	err := WriteFile(filepath.Join(dir, "a.txt"), func(w io.Writer) error {
		once.Do(func() { seen, _ = filepath.Glob(filepath.Join(dir, ".a.txt.tmp-"+owner+"-*")) })
		return nil
	})
	if err != nil || len(seen) != 1 {
		t.Errorf("temporaries named for this process: %v (%v)", seen, err)
	}
}
