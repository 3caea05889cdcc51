//go:build !unix

// Package procgroup runs a command in a process group of its own, so that
// killing it also ends the children it started; where there are no
// process groups, it kills the command alone.
package procgroup

import "os/exec"

// Own does nothing here.
func Own(*exec.Cmd) {}

// Kill kills c.
func Kill(c *exec.Cmd) error { return c.Process.Kill() }
