package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceMinibatchSDSmoke runs the sd follow-up end to end at a tiny
// size against the committed MALA reference.
func TestReproduceMinibatchSDSmoke(t *testing.T) {
	long(t)
	ref := breastCancerRef(t)
	docs := docsSnapshot(t)
	mustRun(t, "reproduce", "minibatch-sd", "--smoke", "--seeds", "2", "--reference", ref)
	docs.untouched(t)
	dir := filepath.Join("out", "minibatch-sd")
	b := readFile(t, filepath.Join(dir, "breast-cancer-sd.md"))
	for _, want := range []string{"Linear prediction", "fresgld, full Ĉ (both)", "| resgld |", "Per coordinate"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if err := run(t, "reproduce", "minibatch-sd", "--smoke", "--variants", "sgld,nuts"); err == nil || !strings.Contains(err.Error(), `--variants: unknown variant "nuts"`) {
		t.Errorf("--variants sgld,nuts: error %v, want one naming --variants and the variant", err)
	}
	if err := run(t, "reproduce", "minibatch-sd", "--seeds", "1"); err == nil || !strings.Contains(err.Error(), "--seeds") {
		t.Errorf("--seeds 1: error %v, want one naming --seeds", err)
	}
	if err := run(t, "reproduce", "minibatch-sd", "--smoke", "--reference", filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "--reference") {
		t.Errorf("missing reference: error %v, want one naming --reference", err)
	}
}
