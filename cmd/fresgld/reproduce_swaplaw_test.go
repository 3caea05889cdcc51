package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The swap-law study runs end to end at a smoke size and writes its table,
// one row per problem (3), τ2 (3), method (2) and mode (4); bad sizes are refused first.
func TestReproduceSwapLawSmoke(t *testing.T) {
	long(t)
	out := t.TempDir()
	mustRun(t, "reproduce", "swap-law", "--smoke", "--seeds", "1", "--out", out)
	b := readFile(t, filepath.Join(out, "swaplaw.md"))
	if rows := strings.Count(string(b), "\n| breast-cancer |") + strings.Count(string(b), "\n| welling-teh |") + strings.Count(string(b), "\n| synthetic-"); rows != 3*3*2*4 {
		t.Errorf("%d rows, want 72:\n%s", rows, b)
	}
	if strings.Contains(string(b), "**no**") {
		t.Errorf("a row exceeds the exact rule's bound:\n%s", b)
	}
	for _, bad := range [][]string{{"--seeds", "0"}, {"--max", "2"}} {
		if err := run(t, append([]string{"reproduce", "swap-law", "--out", out}, bad...)...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: error %v, want one naming %s", bad, err, bad[0])
		}
	}
}
