//go:build !unix

package modelproc

import "os/exec"

func ownGroup(*exec.Cmd) {}

func killGroup(c *exec.Cmd) { c.Process.Kill() }
