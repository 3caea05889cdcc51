package output

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A temporary file carries its owner in its name, .name.tmp-HOST.PID-RAND,
// so that processes writing into one directory (the tasks of a Slurm array
// job sharing one --out, on one node or several over a shared file system)
// never remove one another's temporaries: a process removes a temporary
// only when it is its own or its owner, on this host, is gone.

// owner is this process's part of its temporaries' names.
var owner = ownerToken(hostname(), os.Getpid())

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "host"
	}
	return h
}

// ownerToken is HOST.PID, with the characters of host that cannot stand in
// a file name, and the dots that separate the two, replaced by '_'.
func ownerToken(host string, pid int) string {
	host = strings.Map(func(r rune) rune {
		if r == '/' || r == '.' || r == 0 || r == '-' {
			return '_'
		}
		return r
	}, host)
	return host + "." + strconv.Itoa(pid)
}

// tempPattern is the os.CreateTemp pattern of a temporary of base.
func tempPattern(base string) string { return "." + base + ".tmp-" + owner + "-*" }

// orphaned says whether the temporary file named temp, of base, may be
// removed: it is this process's own, or its owner process on this host is
// gone. A temporary of another host, or in a form that names no owner, is
// left alone: nothing here can tell that its writer has ended.
func orphaned(temp, base string) bool {
	rest, ok := strings.CutPrefix(temp, "."+base+".tmp-")
	if !ok {
		return false
	}
	tok, _, ok := strings.Cut(rest, "-")
	if !ok {
		return false
	}
	if tok == owner {
		return true
	}
	host, pid, ok := strings.Cut(tok, ".")
	if !ok || host != strings.SplitN(owner, ".", 2)[0] {
		return false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return false
	}
	return !alive(n)
}

// alive says whether process pid exists on this host (signal 0 checks
// without sending; EPERM is a process of another user, alive).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// removeOrphanTemps removes the orphaned temporaries of base in dir.
func removeOrphanTemps(dir, base string) {
	m, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	for _, f := range m {
		if orphaned(filepath.Base(f), base) {
			os.Remove(f)
		}
	}
}
