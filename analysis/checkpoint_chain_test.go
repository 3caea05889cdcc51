package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resume --chain c on a run that has checkpoints, none of chain c, names
// the chains it has: "the run completed, ran with --checkpoint-every 0,
// or was killed before its first checkpoint" is none of the three.
func TestReadCheckpointsNamesOtherChains(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []int{1, 2} {
		if err := os.WriteFile(filepath.Join(dir, CheckpointName(id)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ReadCheckpoints(dir, 9, "test")
	if err == nil || !strings.Contains(err.Error(), "no checkpoint of chain 9") || !strings.Contains(err.Error(), "it holds chain-1.ckpt, chain-2.ckpt") || strings.Contains(err.Error(), "the run completed") {
		t.Errorf("--chain 9 of a run of chains 1 and 2: %v", err)
	}
	_, err = ReadCheckpoints(t.TempDir(), 9, "test")
	if err == nil || !strings.Contains(err.Error(), "killed before its first checkpoint") {
		t.Errorf("--chain 9 of an empty directory: %v", err)
	}
}
