package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/experiments/swaps"
)

// TestReproduceSwapsSmoke runs the swap-energy study end to end at a tiny
// size on the paper's Welling–Teh problem and a larger draw of its model.
func TestReproduceSwapsSmoke(t *testing.T) {
	long(t)
	res := t.TempDir()
	mustRun(t, "reproduce", "swaps", "--smoke", "--seeds", "2", "--tune-seeds", "1", "--out", res, "--problems", "welling-teh,welling-teh-400")
	for _, name := range []string{"welling-teh", "welling-teh-400"} {
		b := readFile(t, filepath.Join(res, name+".json"))
		var s struct {
			Best       map[string]string
			Tuning     []struct{ Arm string }
			Comparison []struct {
				Arm      string
				SwapRate *float64
			}
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		if len(s.Best) != 3 || len(s.Tuning) != 3*len(swaps.Modes) || len(s.Comparison) != 5 {
			t.Errorf("%s: %d chosen modes, %d tuning arms, %d compared arms", name, len(s.Best), len(s.Tuning), len(s.Comparison))
		}
		for m, mode := range s.Best {
			if mode == "draw" {
				t.Errorf("%s: %s chose the same-draw energies", name, m)
			}
		}
	}
	// A longer anchor period is a follow-up setting: its own file, its m.
	mustRun(t, "reproduce", "swaps", "--smoke", "--seeds", "2", "--tune-seeds", "1", "--out", res, "--problems", "welling-teh", "--anchor-scale", "3")
	if b, err := os.ReadFile(filepath.Join(res, "welling-teh-anchors3.md")); err != nil || !strings.Contains(string(b), "anchor passes every m = 240 steps") || !strings.Contains(string(b), "every W = 80 steps") {
		t.Errorf("--anchor-scale 3: %v\n%.400s", err, b)
	}
	if err := run(t, "reproduce", "swaps", "--smoke", "--anchor-scale", "0", "--out", res); err == nil {
		t.Error("--anchor-scale 0 was accepted")
	}
	if err := run(t, "reproduce", "swaps", "--problems", "welling-teh-x", "--out", res); err == nil {
		t.Error("a bad problem name was accepted")
	}
	if err := run(t, "reproduce", "swaps", "--smoke", "--docs"); err == nil {
		t.Error("--docs accepted a smoke run")
	}
}
