//go:build unix

package modelproc

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the model in a process group of its own, so that killing
// it also ends what sh -c started.
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(c *exec.Cmd) { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
