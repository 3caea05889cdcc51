//go:build unix

// Package procgroup runs a command in a process group of its own, so that
// killing it also ends the children it started (sh -c's, or the compiler
// rstan runs), which would otherwise hold its output open.
package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes c start a process group of its own.
func Own(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// Kill kills c's process group.
func Kill(c *exec.Cmd) error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
