package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceMinibatchSmoke runs the whole study at a tiny size: both
// problems, every method, two seeds, a short MALA reference computed and
// cached on the way.
func TestReproduceMinibatchSmoke(t *testing.T) {
	long(t)
	docs := docsSnapshot(t)
	res, fig := filepath.Join("out", "minibatch"), filepath.Join("out", "minibatch")
	// No reference at --reference: one is computed and written beside the tables.
	ref := filepath.Join(res, "breast-cancer-reference.json")
	mustRun(t, "reproduce", "minibatch", "--smoke", "--seeds", "2", "--reference", "none.json", "--reference-steps", "1000")
	docs.untouched(t)
	for _, f := range []string{
		filepath.Join(res, "welling-teh.md"), filepath.Join(res, "breast-cancer.md"), filepath.Join(res, "summary.json"), ref,
		filepath.Join(fig, "minibatch-welling-teh-TV.png"), filepath.Join(fig, "minibatch-welling-teh-TV.svg"),
		filepath.Join(fig, "minibatch-breast-cancer-mean-error.png"), filepath.Join(fig, "minibatch-breast-cancer-sd-error.svg"),
	} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	var sums []struct {
		Problem string
		Methods []struct {
			Method   string
			Mean     [][]*float64
			HotShare float64
		}
	}
	b, _ := os.ReadFile(filepath.Join(res, "summary.json"))
	if err := json.Unmarshal(b, &sums); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if len(sums) != 2 {
		t.Fatalf("%d problems in the summary, want 2", len(sums))
	}
	for _, s := range sums {
		if len(s.Methods) != 5 {
			t.Errorf("%s: %d methods", s.Problem, len(s.Methods))
		}
		for _, m := range s.Methods {
			last := m.Mean[len(m.Mean)-1]
			for _, v := range last {
				if v == nil || !(*v >= 0) {
					t.Errorf("%s, %s: no score at the largest budget", s.Problem, m.Method)
				}
			}
			// SGLD has no hot chain; the others spend part of the cost there.
			if (m.Method == "sgld" || m.Method == "corrected-sgld") != (m.HotShare == 0) {
				t.Errorf("%s, %s: hot share %v", s.Problem, m.Method, m.HotShare)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(res, "breast-cancer.md"))
	for _, want := range []string{"| fresgld |", "to mean error ≤ 0.1", "reSGLD's final", "hot share of cost"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("breast-cancer.md lacks %q", want)
		}
	}
	// The cached reference is used on the next run (no recomputation).
	if err := run(t, "reproduce", "minibatch", "--reference-only", "--reference", ref, "--reference-steps", "1"); err != nil {
		t.Errorf("loading the cached reference: %v", err)
	}
}

func TestReproduceMinibatchBadFlags(t *testing.T) {
	if err := run(t, "reproduce", "minibatch", "--problems", "iris", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), `unknown problem "iris"`) {
		t.Errorf("unknown problem: %v", err)
	}
	if err := run(t, "reproduce", "minibatch", "--seeds", "1"); err == nil || !strings.Contains(err.Error(), "--seeds = 1") {
		t.Errorf("one seed: %v", err)
	}
}
