package report

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/figure"
)

// hostile are column names as a CSV header may hold them: markup, quotes,
// an ampersand and a URL the page must not fetch.
var hostile = []string{
	`<script>alert("x")</script>`,
	`a&b "quoted" 'single'`,
	`<img src=http://example.com/x.png>`,
}

// fakeRun writes into dir what a two-chain run of a regression on columns
// hostile writes: summary.json (the fields the commands write, with rows
// summarised from random walks so that the diagnostics are real) and the
// trace figure drawn by package figure, as the commands draw it. It returns
// the variables' names, lp__ first.
func fakeRun(t *testing.T, dir string) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 400
	names := append([]string{"lp__"}, hostile...)
	var rows []Variable
	var vars []figure.Variable
	for i, n := range names {
		chains := make([][]float64, 2)
		for c := range chains {
			x := float64(c) * float64(i) // the chains start apart: R̂ > 1.01
			for range draws {
				x = 0.9*x + rng.NormFloat64()
				chains[c] = append(chains[c], x)
			}
		}
		rows = append(rows, Variable{Name: n, Summary: diag.Summarize(chains)})
		vars = append(vars, figure.Variable{Name: n, Chains: chains})
	}
	rate := 0.25
	sum := map[string]any{
		"settings":          map[string]any{"data": "data/<b>bold</b>.csv", "label": hostile[1], "seed": 1, "eta": 0.002, "ladder": map[string]any{"levels": 2}},
		"step_rule":         "η = 0.2/λ_max, λ_max = 85.45 at the posterior mode",
		"examples":          100,
		"wall_seconds":      0.5,
		"command":           "regress",
		"chains":            []int{1, 2},
		"chains_run":        2,
		"draws_per_chain":   draws,
		"diagnostic_chains": []int{1, 2},
		"pooled_draws":      2 * draws,
		"per_chain":         []map[string]any{{"chain": 1, "draws": draws, "steps": 1000, "status": "finished", "pooled": true}, {"chain": 2, "draws": draws, "steps": 1000, "status": "finished", "pooled": true}},
		"parameters":        rows,
		"swap_acceptance":   []map[string]any{{"levels": []int{1, 2}, "attempts": 40, "accepts": 10, "rate": rate, "chains_without_swaps": 0}},
		"swap_noise":        []float64{0.3},
		"swap_confirmed":    []int{7},
		"swap_declined":     []int{3},
		"clamped":           []map[string]any{{"level": 1, "steps": 2000, "clamped_steps": 0, "share": 0, "accepted": 1100, "jumps": 200, "jumps_accepted": 50}, {"level": 2, "steps": 2000, "clamped_steps": 30, "share": 0.015}},
		"total_cost":        123456,
		"chains_counted":    2,
		"cost_unit":         "per-example evaluations",
		"warnings":          []string{"R̂ > 1.01 for 3 of 4 variables: the chains disagree: run longer (raise --keep and --burn)", "level 2: 1.5% of steps clamped: lower --eta <now>"},
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := figure.Traces(vars, 200, 2)
	if err != nil {
		t.Fatal(err)
	}
	k, err := figure.Key([]string{"chain 1", "chain 2"}, "trace: 2 chains × 400 draws")
	if err != nil {
		t.Fatal(err)
	}
	g, w, h := figure.Grid(append(ps, k), 3, 6*vg.Centimeter, 4.5*vg.Centimeter)
	if err := figure.SaveGrid(g, w, h, filepath.Join(dir, "trace")); err != nil {
		t.Fatal(err)
	}
	return names
}

// fakeReport is fakeRun's run in a fresh directory, its report written
// (WriteDir): the directory, the variables' names and the page.
func fakeReport(t *testing.T) (dir string, names []string, page []byte) {
	t.Helper()
	dir = t.TempDir()
	names = fakeRun(t, dir)
	if err := WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, names, page
}
