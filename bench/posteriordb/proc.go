package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fresgld/fresgld/internal/procgroup"
)

// proc is what a finished command cost and said.
type proc struct {
	// CPU is the user and system seconds of the command and of every
	// descendant it waited for (its rusage as wait4 reports it: a
	// fresgld's model processes, rstan's sampler inside R).
	CPU, Wall float64
	Stdout    string
	TimedOut  bool
	Err       error
}

// run runs name args in a process group of its own, its stdout and
// stderr both into the file log (stdout also kept), and kills the group
// after timeout. The error says how it ended, with the log's last lines.
func run(ctx context.Context, timeout time.Duration, log string, name string, args ...string) proc {
	f, err := os.Create(log)
	if err != nil {
		return proc{Err: err}
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s %s\n", name, strings.Join(args, " "))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	procgroup.Own(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(f, &out)
	cmd.Stderr = f
	start := time.Now()
	err = cmd.Run()
	p := proc{Wall: time.Since(start).Seconds(), Stdout: out.String()}
	if cmd.ProcessState != nil {
		p.CPU = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			p.TimedOut = true
			p.Err = fmt.Errorf("timed out after %s (killed)", timeout)
		} else {
			t := tail(log, 30)
			p.Err = fmt.Errorf("%s: %s (%v; the log %s ends:\n%s)", filepath.Base(name), errorLine(t), err, log, t)
		}
	}
	return p
}

// tail is the last n lines of the file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	l := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// firstLine is the first line of an error's text that says something
// (not a bare "Error" heading), trimmed to 160 characters.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "$ ") {
			continue
		}
		if len(l) > 160 {
			l = l[:160] + "…"
		}
		return l
	}
	return ""
}

// errorLine is the line of a log's tail that looks like the error: the
// first that says error (R's "Error in …", fresgld's "… error …"), else
// the last line.
func errorLine(t string) string {
	lines := strings.Split(t, "\n")
	for _, l := range lines {
		if strings.Contains(strings.ToLower(l), "error") {
			return firstLine(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return firstLine(l)
		}
	}
	return "no output"
}
