package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fresgld resume of a directory that does not exist, or of a file, says
// so, not that the run completed or was never checkpointed.
func TestResumeMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	err := run(t, "resume", missing)
	if err == nil || !strings.Contains(err.Error(), "no such directory") || strings.Contains(err.Error(), "completed") {
		t.Errorf("resume %s: %v; want it to say there is no such directory", missing, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := run(t, "resume", file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("resume %s: %v; want it to say it is a file", file, err)
	}
}
