//go:build !linux

package modelproc

import "time"

// CPUTime is the CPU time of the model's process where the system tells it;
// here it does not (ok false).
func (m *Model) CPUTime() (d time.Duration, ok bool) { return 0, false }

// ProcessCPUTime is a process's CPU time where the system tells it; here
// it does not (ok false).
func ProcessCPUTime(pid int) (d time.Duration, ok bool) { return 0, false }
