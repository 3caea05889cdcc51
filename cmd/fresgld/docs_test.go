package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsTree is a snapshot of a docs/ directory: every file's contents.
type docsTree map[string][]byte

// docsSnapshot moves the test into a fresh directory holding a docs/ like
// the repository's (results, results/minibatch and figures, each with a
// file in it), as a user at the repository root would have, and returns a
// snapshot of it.
func docsSnapshot(t *testing.T) docsTree {
	t.Helper()
	t.Chdir(t.TempDir())
	for _, f := range []string{"docs/results/gmm.md", "docs/results/minibatch/summary.json", "docs/figures/gmm-paper.svg"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "published " + f
		if filepath.Ext(f) == ".json" {
			body = "[]" // read by minibatch-sd
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return readDocs(t)
}

func readDocs(t *testing.T) docsTree {
	t.Helper()
	tree := docsTree{}
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		tree[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// untouched fails the test if docs/ differs from the snapshot.
func (s docsTree) untouched(t *testing.T) {
	t.Helper()
	now := readDocs(t)
	for p, b := range now {
		if old, ok := s[p]; !ok {
			t.Errorf("a smoke run wrote %s", p)
		} else if !bytes.Equal(old, b) {
			t.Errorf("a smoke run changed %s", p)
		}
	}
	for p := range s {
		if _, ok := now[p]; !ok {
			t.Errorf("a smoke run removed %s", p)
		}
	}
}

// --docs refuses smoke and reduced sizes, and --out beside it; nothing is
// written or removed.
func TestDocsOnlyAtFullSize(t *testing.T) {
	docs := docsSnapshot(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "gmm", "--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"reproduce", "gmm-statevar", "--docs", "--seeds", "2"}, "--docs with --seeds 2"},
		{[]string{"reproduce", "convex", "--docs", "--time", "50"}, "--docs with --time 50"},
		{[]string{"reproduce", "heat", "--docs", "--keep", "200", "--early", "100"}, "--docs with --"},
		{[]string{"reproduce", "minibatch", "--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"reproduce", "minibatch", "--docs", "--problems", "welling-teh"}, "--docs with --problems welling-teh"},
		{[]string{"reproduce", "ladder", "--docs", "--problems", "four-modes"}, "--docs with --problems four-modes"},
		{[]string{"reproduce", "minibatch-sd", "--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"reproduce", "ladder", "--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"reproduce", "ladder", "--docs", "--budget", "1e5"}, "--docs with --budget"},
		{[]string{"reproduce", "ladder-heat", "--docs", "--keep", "200"}, "--docs with --keep 200"},
		{[]string{"reproduce", "gmm", "--docs", "--out", "x"}, "--docs and --out"},
	} {
		if err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
	docs.untouched(t)
	// Outside the repository root there is no docs/ to refresh.
	t.Chdir(t.TempDir())
	if err := run(t, "reproduce", "convex", "--docs"); err == nil || !strings.Contains(err.Error(), "repository root") {
		t.Errorf("--docs without docs/: error %v", err)
	}
}
