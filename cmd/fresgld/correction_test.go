package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogisticCorrection runs fresgld with the full correction end to end
// and checks that --correction is validated before any work, by name.
func TestLogisticCorrection(t *testing.T) {
	data := smallCSV(t)
	out := t.TempDir()
	mustRun(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--correction", "full", "--burn", "200", "--keep", "300", "--thin", "1", "--out", out)
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(b), `"correction": "full"`) || !strings.Contains(string(b), `"draws_per_chain": 300`) {
		t.Errorf("summary: %s", b[:min(len(b), 600)])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--correction", "dense"}, `--correction: unknown correction "dense"`},
		{[]string{"--correction", ""}, `--correction: unknown correction ""`},
		{[]string{"--method", "sgld", "--correction", "full"}, "--correction full: method sgld"},
		{[]string{"--method", "resgld", "--correction", "full"}, "--correction full: method resgld"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		args := append([]string{"logistic", "--data", data, "--label", "y", "--out", dir}, c.args...)
		err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%v: the output directory was created before the error", c.args)
		}
	}
}

// TestReproduceMinibatchCorrection runs the breast-cancer study at the
// smoke size with the full correction: its outputs carry the suffix and
// leave the study's own names alone, and a bad --correction is an error
// naming the flag.
func TestReproduceMinibatchCorrection(t *testing.T) {
	long(t)
	ref := breastCancerRef(t)
	docs := docsSnapshot(t)
	mustRun(t, "reproduce", "minibatch", "--smoke", "--seeds", "2", "--problems", "breast-cancer", "--correction", "full", "--reference", ref)
	docs.untouched(t)
	res := filepath.Join("out", "minibatch")
	md, err := os.ReadFile(filepath.Join(res, "breast-cancer-full.md"))
	if err != nil || !strings.Contains(string(md), "--correction full") {
		t.Errorf("breast-cancer-full.md: %v\n%s", err, md)
	}
	for _, f := range []string{"summary-full.json", "minibatch-breast-cancer-full-sd-error.png"} {
		if _, err := os.Stat(filepath.Join(res, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(res, "breast-cancer.md")); err == nil {
		t.Error("a full-correction run wrote the study's own breast-cancer.md")
	}
	if err := run(t, "reproduce", "minibatch", "--smoke", "--correction", "cholesky", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), `--correction: unknown correction "cholesky"`) {
		t.Errorf("bad --correction: error %v", err)
	}
}
