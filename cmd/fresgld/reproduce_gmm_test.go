package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runCLI runs the command line with args and returns its standard output.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&errb)
	rootCmd.SetArgs(args)
	if err := rootCmd.Execute(); err != nil {
		t.Fatalf("fresgld %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// readCSV returns the rows of a CSV file with its header.
func readCSV(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) < 2 {
		t.Fatalf("%s: %v (%d lines)", path, err, len(all))
	}
	return all[0], all[1:]
}

func exists(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", p, err)
		}
	}
}

// The mixture studies run end to end at smoke size: every method at every
// size gives finite metrics, and the tables and figures are written.
func TestReproduceGMMSmoke(t *testing.T) {
	for _, name := range []string{"gmm", "gmm-statevar"} {
		// The default --out, from a directory with a docs/ in it, as a
		// user at the repository root would run it.
		docs := docsSnapshot(t)
		md := runCLI(t, "reproduce", name, "--smoke", "--seeds", "20")
		docs.untouched(t)
		res := filepath.Join("out", name)
		exists(t, filepath.Join(res, name+".json"), filepath.Join(res, name+".md"))
		for _, size := range []string{"paper", "long"} {
			base := filepath.Join(res, name+"-"+size)
			exists(t, base+".png", base+".svg")
		}
		header, rows := readCSV(t, filepath.Join(res, name+".csv"))
		// 6 methods and the noiseless reference × 3 sizes × 2 seeds, and
		// exact draws at the two fixed sizes.
		if len(rows) != 46 {
			t.Errorf("%s: %d CSV rows, want 46", name, len(rows))
		}
		col := map[string]int{}
		for i, h := range header {
			col[h] = i
		}
		for _, r := range rows {
			for _, c := range []string{"tv", "w1", "w2", "right_weight", "grad_evals", "energy_evals"} {
				v, err := strconv.ParseFloat(r[col[c]], 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Errorf("%s %s %s seed %s: %s = %q", name, r[col["size"]], r[col["method"]], r[col["seed"]], c, r[col[c]])
				}
			}
			if n, _ := strconv.Atoi(r[col["samples"]]); n < 100 {
				t.Errorf("%s %s %s: only %d samples", name, r[col["size"]], r[col["method"]], n)
			}
		}
		for _, m := range []string{"SGLD", "reSGLD", "m-reSGLD", "f-reSGLD", "f-reSGLD_cons", "f-reSGLD_nonp", "reLD (exact U, ∇U)"} {
			if got := strings.Count(md, "| "+m+" |"); got != 3 {
				t.Errorf("%s: method %s in %d tables, want 3", name, m, got)
			}
		}
		if strings.Contains(md, "NaN") {
			t.Errorf("%s: NaN in the table:\n%s", name, md)
		}
	}
}

func TestReproduceConvexSmoke(t *testing.T) {
	docs := docsSnapshot(t)
	md := runCLI(t, "reproduce", "convex", "--smoke", "--seeds", "20", "--time", "10000")
	docs.untouched(t)
	res := filepath.Join("out", "convex")
	exists(t, filepath.Join(res, "convex.json"), filepath.Join(res, "convex.md"),
		filepath.Join(res, "convex-w2.png"), filepath.Join(res, "convex-w2.svg"))
	_, rows := readCSV(t, filepath.Join(res, "convex.csv"))
	if len(rows) != 5*2*2 { // 5 methods × 2 step sizes × 2 seeds
		t.Errorf("%d CSV rows, want 20", len(rows))
	}
	for _, r := range rows {
		for _, c := range []int{4, 5} { // mean θ², W2
			if v, err := strconv.ParseFloat(r[c], 64); err != nil || !(v >= 0) || math.IsInf(v, 0) {
				t.Errorf("row %v: column %d = %q", r, c, r[c])
			}
		}
	}
	if !strings.Contains(md, "fitted slope") {
		t.Errorf("no exact table:\n%s", md)
	}
}

func TestReproduceBadFlags(t *testing.T) {
	rootCmd.SetOut(&bytes.Buffer{})
	rootCmd.SetErr(&bytes.Buffer{})
	for _, args := range [][]string{
		{"reproduce", "gmm", "--smoke=false", "--seeds", "0", "--out", t.TempDir()},
		{"reproduce", "gmm-statevar", "--smoke", "--seeds", "0", "--out", t.TempDir()},
		{"reproduce", "convex", "--smoke=false", "--time", "-1", "--out", t.TempDir()},
		{"reproduce", "convex", "--smoke", "--seeds", "0", "--out", t.TempDir()},
	} {
		rootCmd.SetArgs(args)
		err := rootCmd.Execute()
		if err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
