package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// A run whose --out holds files of its outputs' names that fresgld did
// not write (a user's own chain-9.csv, a stray chain-3.ckpt) refuses,
// naming them, and leaves every file as it was; an earlier run's chain
// files of fresgld's own are replaced as before.
func TestForeignFilesRefused(t *testing.T) {
	out := t.TempDir()
	mine := map[string]string{
		"chain-9.csv":  "id,value\n1,2\n",
		"chain-3.ckpt": "not a checkpoint",
		"notes.txt":    "my notes",
	}
	for name, text := range mine {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := run(t, "gmm", "--keep", "100", "--burn", "0", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "chain-9.csv, chain-3.ckpt") || !strings.Contains(err.Error(), "did not write") {
		t.Fatalf("want a refusal naming chain-9.csv and chain-3.ckpt, got %v", err)
	}
	for name, text := range mine {
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != text {
			t.Errorf("%s now holds %q", name, b)
		}
	}
	if _, err := os.Stat(results.ChainFile(out, 1)); err == nil {
		t.Error("the refused run wrote chain-1.csv")
	}

	// fresgld's own chain-9.csv, of an earlier nine-chain run, goes under
	// --overwrite.
	out = t.TempDir()
	mustRun(t, "gmm", "--keep", "20", "--burn", "0", "--chains", "9", "--out", out)
	if err := run(t, "gmm", "--keep", "20", "--burn", "0", "--out", out, "--overwrite"); err != nil {
		t.Fatalf("a run over an earlier run's files: %v", err)
	}
	if _, err := os.Stat(results.ChainFile(out, 9)); err == nil {
		t.Error("the earlier run's chain-9.csv is still there")
	}
}
