package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the plan's mode search looked at (summary.json's plan.search.searched)
// is shown beside the verdict, which holds only within it; a run whose plan
// searched for nothing shows no such line.
func TestReportSaysWhatWasSearched(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir)
	path := filepath.Join(dir, "summary.json")
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Searched != "" {
		t.Errorf("no search, yet the report says %q", r.Searched)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	const searched = "5 search(es) by L-BFGS, U and its slope read along 2 rays from the first mode out to 4096 Laplace sds"
	sum["plan"] = map[string]any{"modes": 1, "search": map[string]any{"searches": 5, "searched": searched}}
	if b, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := Write(&page, r); err != nil {
		t.Fatal(err)
	}
	if r.Searched != searched || !strings.Contains(page.String(), `id="searched"`) || !strings.Contains(page.String(), "out to 4096 Laplace sds") {
		t.Errorf("searched %q; the page shows it: %v", r.Searched, strings.Contains(page.String(), "4096"))
	}
}

// A chain that never started is said so in the verdict's reasons, not
// "never started after 0 draws".
func TestVerdictNamesChainsNeverStarted(t *testing.T) {
	var s summary
	s.PerChain = append(s.PerChain, struct {
		Chain  int    `json:"chain"`
		Draws  int    `json:"draws"`
		Status string `json:"status"`
		Pooled bool   `json:"pooled"`
	}{Chain: 5, Status: "never started"})
	j := judged(s, &Report{})
	if len(j.Stopped) != 1 || j.Stopped[0] != "chain 5 never started" {
		t.Errorf("%q", j.Stopped)
	}
}
