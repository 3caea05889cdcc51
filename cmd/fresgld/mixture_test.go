package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad flags are refused before the data are read, naming the flag; bad
// files name the file, the line and the value.
func TestMixtureErrors(t *testing.T) {
	g := galaxies(t)
	missing := filepath.Join(t.TempDir(), "none.csv")
	text := writeFile(t, "text.csv", "id,v\na,1\nb,x2\n")
	empty := writeFile(t, "empty.csv", "a,v\n1,2\n\n2,3\n4, \n")
	nan := writeFile(t, "nan.csv", "v\n1\nNaN\n")
	inf := writeFile(t, "inf.csv", "v\n1\n2\n-Inf\n")
	one := writeFile(t, "one.csv", "v\n3.5\n")
	equal := writeFile(t, "equal.csv", "v\n2\n2\n2\n")
	ragged := writeFile(t, "ragged.csv", "a,v\n1,2\n3\n")
	header := writeFile(t, "header.csv", "v\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--column", "velocity"}, "--data: no CSV file"},
		{[]string{"--data", g}, "--column: no column"},
		{[]string{"--data", missing, "--column", "v", "--components", "1"}, "--components = 1: must lie in 2..8"},
		{[]string{"--data", missing, "--column", "v", "--components", "9"}, "--components = 9"},
		{[]string{"--data", missing, "--column", "v", "--dirichlet", "0"}, "--dirichlet = 0: must be positive"},
		{[]string{"--data", missing, "--column", "v", "--dirichlet", "-1"}, "--dirichlet = -1"},
		{[]string{"--data", missing, "--column", "v", "--method", "nuts"}, "--method"},
		{[]string{"--data", missing, "--column", "v", "--eta", "0.1"}, "--method auto (the default) chooses"},
		{[]string{"--data", missing, "--column", "v", "--levels", "3"}, "--levels 3"},
		{[]string{"--data", missing, "--column", "v", "--method", "sgld", "--tau2", "2"}, "--tau2 2: --method sgld runs one chain"},
		{[]string{"--data", missing, "--column", "v", "--keep", "0"}, "--keep"},
		{[]string{"--data", missing, "--column", "v", "--method", "fresgld", "--hot-batch", "0"}, "--hot-batch = 0: must be ≥ 1"},
		{[]string{"--data", missing, "--column", "v", "--method", "resgld", "--hot-batch", "10"}, "--hot-batch 10: --method resgld runs every level on the cold minibatch"},
		{[]string{"--data", missing, "--column", "v", "--hot-batch", "10"}, "--method auto (the default) chooses"},
		{[]string{"--data", g, "--column", "velocity", "--method", "fresgld", "--hot-batch", "83"}, "--hot-batch = 83: the data have 82 examples"},
		{[]string{"--data", missing, "--column", "v", "--chain", "0"}, "--chain = 0"},
		{[]string{"--data", missing, "--column", "v"}, "--data: open " + missing},
		{[]string{"--data", g, "--column", "speed"}, `column "speed": no column has that name (columns: velocity)`},
		{[]string{"--data", g, "--column", "2"}, "column 2: the file has columns 1..1"},
		{[]string{"--data", g, "--column", "v", "--no-header"}, "without a header, give it as a column number"},
		{[]string{"--data", text, "--column", "v"}, text + `:3: column 2 ("v"): "x2" is not a finite number`},
		{[]string{"--data", empty, "--column", "v"}, empty + `:5: column 2 ("v"): missing value`},
		{[]string{"--data", nan, "--column", "1"}, nan + `:3: column 1 ("v"): "NaN" is not a finite number`},
		{[]string{"--data", inf, "--column", "v"}, inf + `:4: column 1 ("v"): "-Inf" is not a finite number`},
		{[]string{"--data", ragged, "--column", "v"}, ragged + ":3: 1 fields, but the first line has 2"},
		{[]string{"--data", header, "--column", "v"}, header + ": no data rows"},
		{[]string{"--data", one, "--column", "v"}, "1 values: need at least 2"},
		{[]string{"--data", equal, "--column", "v"}, "all 3 values are 2: nothing to mix"},
		{[]string{"--data", g, "--column", "1", "--no-header"}, `galaxies.csv:1: column 1 ("col1"): "velocity" is not a finite number`},
	} {
		args := append([]string{"mixture", "--out", filepath.Join(t.TempDir(), "out")}, c.args...)
		if err := run(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// mixtureSum is what the tests read of summary.json.
type mixtureSum struct {
	N        int `json:"values"`
	K        int `json:"components_k"`
	Clusters []struct {
		Clusters int      `json:"clusters"`
		Prob     float64  `json:"probability"`
		Ref      *float64 `json:"reference"`
		RefMCSE  *float64 `json:"reference_mcse"`
	} `json:"number_of_clusters"`
	Comps []struct {
		Mean, Weight float64
	} `json:"component_table"`
	Ref *struct {
		Converged bool    `json:"converged"`
		MaxRhat   float64 `json:"max_rhat"`
		MinESS    float64 `json:"min_bulk_ess"`
		Problem   string  `json:"problem"`
		Chains    int     `json:"chains"`
		Sweeps    int     `json:"sweeps_per_chain"`
	} `json:"reference"`
	Settings struct {
		Components int     `json:"components"`
		Dirichlet  float64 `json:"dirichlet"`
		Column     string  `json:"column"`
		HotBatch   int     `json:"hot_batch"`
		HotAuto    bool    `json:"hot_batch_automatic"`
	} `json:"settings"`
	Params []struct{} `json:"parameters"`
}

func readMixtureSum(t *testing.T, out string) mixtureSum {
	t.Helper()
	var s mixtureSum
	readSummaryInto(t, out, &s)
	return s
}

// A small run under the plan on galaxies writes the chain CSVs and
// summary.json with the number of clusters' table (probabilities summing
// to 1) and the components' in km/s.
func TestMixtureGalaxies(t *testing.T) {
	out := t.TempDir()
	stdout, err := stdoutOf(t, "mixture", "--data", galaxies(t), "--column", "velocity", "--components", "3", "--dirichlet", "0.5",
		"--chains", "2", "--keep", "40", "--burn", "50", "--thin", "1", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"chain-1.csv", "chain-2.csv", "summary.json"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	for _, want := range []string{"(82 values, K = 3 components, 8 coordinates), 2 chain(s)", "number of clusters K+", "components in the data's units"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	s := readMixtureSum(t, out)
	if s.N != 82 || s.K != 3 || len(s.Clusters) != 3 || len(s.Comps) != 3 || s.Ref != nil || s.Settings.Dirichlet != 0.5 || s.Settings.Column != "velocity" {
		t.Fatalf("summary %+v", s)
	}
	var sum float64
	for k, c := range s.Clusters {
		if c.Clusters != k+1 || c.Prob < 0 || c.Ref != nil {
			t.Errorf("cluster row %d: %+v", k, c)
		}
		sum += c.Prob
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("cluster probabilities sum to %v", sum)
	}
	for j, c := range s.Comps {
		// The velocities run from 9172 to 34279 km/s.
		if !(c.Mean > 0 && c.Mean < 1e5 && c.Weight > 0 && c.Weight < 1) || j > 0 && c.Mean < s.Comps[j-1].Mean {
			t.Errorf("component %d: %+v", j+1, c)
		}
	}
}

// --hot-batch reaches the run: the chain CSV's header, written from the
// options the run used (where a flag that did not reach them shows 0, the
// automatic size), gives it, as summary.json's settings do.
func TestMixtureHotBatch(t *testing.T) {
	out := t.TempDir()
	if _, err := stdoutOf(t, "mixture", "--data", galaxies(t), "--column", "velocity", "--method", "fresgld", "--hot-batch", "41",
		"--eta", "1e-5", "--chains", "1", "--keep", "20", "--burn", "50", "--thin", "1", "--out", out); err != nil {
		t.Fatal(err)
	}
	csv := readFile(t, filepath.Join(out, "chain-1.csv"))
	if !strings.Contains(string(csv), "#   hot_batch = 41\n") {
		t.Errorf("chain-1.csv's header does not give hot_batch = 41")
	}
	if s := readMixtureSum(t, out); s.Settings.HotBatch != 41 || s.Settings.HotAuto {
		t.Errorf("summary settings: hot batch %d (automatic %v), want 41", s.Settings.HotBatch, s.Settings.HotAuto)
	}
}

// twoGroupsReference runs mixture --reference, its reference chains 4 ×
// sweeps, on 20 values in two groups 4 sds apart, and returns its stdout
// and output folder.
func twoGroupsReference(t *testing.T, sweeps int) (stdout, out string) {
	t.Helper()
	defer func(c, s int) { mixtureRefChains, mixtureRefSweeps = c, s }(mixtureRefChains, mixtureRefSweeps)
	mixtureRefChains, mixtureRefSweeps = 4, sweeps
	out = t.TempDir()
	data := writeFile(t, "two.csv", "x,v\n"+strings.Repeat("a,1\nb,1.2\nc,0.9\nd,5\ne,5.3\n", 4))
	stdout, err := stdoutOf(t, "mixture", "--data", data, "--column", "2", "--components", "2", "--reference", "--method", "sgld",
		"--chains", "1", "--keep", "30", "--burn", "30", "--thin", "1", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	return stdout, out
}

// --reference prints the exact Gibbs reference beside the run and records
// it (a short reference here: the default's 8 × 100,000 sweeps take
// seconds).
func TestMixtureReference(t *testing.T) {
	stdout, out := twoGroupsReference(t, 3000)
	if !strings.Contains(stdout, "reference") || !strings.Contains(stdout, "diff in mcse") {
		t.Errorf("no reference table:\n%s", stdout)
	}
	s := readMixtureSum(t, out)
	if s.Ref == nil || s.Ref.Chains != 4 || s.Ref.Sweeps != 3000 || len(s.Clusters) != 2 || !s.Ref.Converged || s.Ref.MaxRhat > 1.01 || s.Ref.MinESS < 400 {
		t.Fatalf("summary %+v", s)
	}
	var sum float64
	for _, c := range s.Clusters {
		if c.Ref == nil || c.RefMCSE == nil {
			t.Fatalf("row without reference %+v", c)
		}
		sum += *c.Ref
	}
	// Two groups 4 sds apart: two clusters, all but surely.
	if math.Abs(sum-1) > 1e-9 || *s.Clusters[1].Ref < 0.99 {
		t.Errorf("reference %+v", s.Clusters)
	}
}

// A reference whose chains are too short to converge (4 × 60 sweeps:
// bulk ESS below 400) is not called exact: the table says its column is
// unreliable, with the numbers, summary.json
// records converged false, and the run carries the warning.
func TestMixtureReferenceNotConverged(t *testing.T) {
	stdout, out := twoGroupsReference(t, 60)
	if !strings.Contains(stdout, "the reference did NOT converge") || !strings.Contains(stdout, "bulk ESS") {
		t.Errorf("no unreliable-reference line:\n%s", stdout)
	}
	s := readMixtureSum(t, out)
	if s.Ref == nil || s.Ref.Converged || !strings.Contains(s.Ref.Problem, "< 400") || s.Ref.MinESS >= 400 {
		t.Fatalf("summary reference %+v", s.Ref)
	}
	sum := readFile(t, filepath.Join(out, "summary.json"))
	if !strings.Contains(string(sum), "reference_not_converged") {
		t.Errorf("summary.json has no reference_not_converged warning")
	}
}
