package modelproc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHz is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Go supports.
const userHz = 100

// CPUTime is the CPU time (user and system) the model's processes have
// used so far: each process fresgld started (sh -c) and every process
// under it, read from /proc; ok is false when none can be read (the
// processes are gone). It tells how much of a run's time the model takes.
func (m *Model) CPUTime() (d time.Duration, ok bool) {
	var ticks int64
	for _, p := range m.procs {
		if p.cmd == nil || p.cmd.Process == nil {
			continue
		}
		if t, got := treeTicks(p.cmd.Process.Pid, 0); got {
			ticks, ok = ticks+t, true
		}
	}
	return time.Duration(ticks) * time.Second / userHz, ok
}

// ProcessCPUTime is process pid's own CPU time so far (user and system,
// from /proc/PID/stat); ok is false where it cannot be read (the process
// is gone).
func ProcessCPUTime(pid int) (d time.Duration, ok bool) {
	n, ok := procTicks(pid)
	return time.Duration(n) * time.Second / userHz, ok
}

// procTicks is process pid's utime + stime in clock ticks.
func procTicks(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which may hold spaces, in
	// parentheses: state is the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + s, true
}

// treeTicks is the CPU ticks of process pid and its descendants (down to
// a depth no model's shell wrappers reach).
func treeTicks(pid, depth int) (int64, bool) {
	n, ok := procTicks(pid)
	if !ok {
		return 0, false
	}
	if depth >= 8 {
		return n, true
	}
	kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, k := range strings.Fields(string(kids)) {
		if c, err := strconv.Atoi(k); err == nil {
			if t, ok := treeTicks(c, depth+1); ok {
				n += t
			}
		}
	}
	return n, true
}
