//go:build unix

package tempering

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fresgld/fresgld/results"
)

// An interrupt stops NUTS's Rscript and what it started at once. The
// stand-in Rscript first on PATH passes HaveR's check, then starts a child
// that sleeps a minute holding the output open (as rstan's compiler does)
// and waits for it. nuts, its context done after 200 ms, must return an
// error wrapping results.ErrInterrupted within 10 s, not after the
// minute, and the child must be gone: killing Rscript alone would leave it
// running, and CombinedOutput waiting for its output.
func TestNUTSStopsOnInterrupt(t *testing.T) {
	bin, work := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(work, "child.pid")
	script := "#!/bin/sh\ncase \"$1\" in -e) exit 0 ;; esac\nsleep 60 &\necho $! > " + pidFile + "\nwait\n"
	if err := os.WriteFile(filepath.Join(bin, "Rscript"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	w := small(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := nuts(ctx, w, 1, 10, work)
	if !errors.Is(err, results.ErrInterrupted) {
		t.Errorf("error %v, want one wrapping results.ErrInterrupted", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("nuts returned %.3g s after its start, its context done after 0.2 s", d.Seconds())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stand-in Rscript's child never started: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the stand-in Rscript's child (pid %d) still runs 5 s after nuts returned", pid)
		}
	}
}

// alive says whether process pid still runs. Killed, the orphaned child
// stays a zombie until whoever adopted it reaps it (in a container, maybe
// never), so a zombie counts as gone where /proc tells.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil { // gone since, if there is a /proc to tell
		_, noProc := os.Stat("/proc/self")
		return noProc != nil
	}
	// The state follows the command's name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}
