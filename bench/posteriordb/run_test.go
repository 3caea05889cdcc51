package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/stan"
)

// testdata holds one made-up posterior in posteriordb's layout,
// toy-normal2: theta[k] ~ N(m[k], s[k]) with m = (1, −3), s = (2, 0.5),
// its model in Stan ≥ 2.26's array syntax, and reference draws that are
// the normals' exact quantiles at (i − ½)/1000 in two chains.
const toy = "toy-normal2"

var exactMean, exactSD = []float64{1, -3}, []float64{2, 0.5}

// The reference is read with Stan's names mapped to CmdStan's, in the
// file's order, and its pooled mean and sd are the exact ones.
func TestReferenceIsExact(t *testing.T) {
	d := db{root: "testdata"}
	ps, err := d.Posteriors("")
	if err != nil || len(ps) != 1 || ps[0].Name != toy {
		t.Fatalf("posteriors in testdata: %v, %v", ps, err)
	}
	ref, err := d.Reference(ps[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ref.Names, ",") != "theta.1,theta.2" || ref.Draws != 1000 {
		t.Fatalf("reference names %v, %d draws; want theta.1,theta.2 and 1000", ref.Names, ref.Draws)
	}
	for k := range 2 {
		if math.Abs(ref.Mean[k]-exactMean[k]) > 1e-9 || math.Abs(ref.SD[k]/exactSD[k]-1) > 0.005 {
			t.Errorf("%s: reference mean %g sd %g; exact %g, %g", ref.Names[k], ref.Mean[k], ref.SD[k], exactMean[k], exactSD[k])
		}
	}
}

func TestCmdStanName(t *testing.T) {
	for in, want := range map[string]string{"mu": "mu", "theta[1]": "theta.1", "Sigma[1,2]": "Sigma.1.2", "z[3, 10, 2]": "z.3.10.2", "lp__": "lp__"} {
		if got := CmdStanName(in); got != want {
			t.Errorf("CmdStanName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Compare's numbers on draws whose summaries are known: a mean off by
// 0.2 sd, an sd 1.5 times the reference's.
func TestCompare(t *testing.T) {
	ref := &Reference{Names: []string{"a", "b.1"}, Mean: []float64{0, 10}, SD: []float64{1, 2}}
	// ±1 alternating has mean 0 and sd ≈ 1 (n − 1 denominator).
	pm := func(mean, scale float64) [][]float64 {
		var ch [][]float64
		for range 4 {
			c := make([]float64, 1000)
			for i := range c {
				c[i] = mean + scale*float64(1-2*(i%2))
			}
			ch = append(ch, c)
		}
		return ch
	}
	draws := map[string][][]float64{"a": pm(0.2, 1), "b.1": pm(10, 3), "other": pm(5, 1)}
	e, err := Compare(ref, draws)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(e.MaxMeanErr)-0.2) > 1e-9 || e.MaxMeanErrVar != "a" {
		t.Errorf("largest mean error %g at %s, want 0.2 at a", float64(e.MaxMeanErr), e.MaxMeanErrVar)
	}
	if math.Abs(float64(e.SDRatioMin)-1) > 1e-3 || math.Abs(float64(e.SDRatioMax)-1.5) > 1e-3 {
		t.Errorf("sd ratios %g–%g, want 1–1.5", float64(e.SDRatioMin), float64(e.SDRatioMax))
	}
	if e.Right {
		t.Error("judged right with a mean 0.2 sd off")
	}
	delete(draws, "b.1")
	if _, err := Compare(ref, draws); err == nil {
		t.Error("no error for a reference parameter absent from the draws")
	}
}

func TestBackport(t *testing.T) {
	for in, want := range map[string]string{
		"array[N] real y;":                                                "real y[N];",
		"array[N, K] real<lower=0, upper=1> p; // x":                      "real<lower=0, upper=1> p[N, K]; // x",
		"array[K] simplex[K] theta;":                                      "simplex[K] theta[K];",
		"array[J] vector<lower=0>[1] v = f(x[1]);":                        "vector<lower=0>[1] v[J] = f(x[1]);",
		"array[] real f(real t, array[] real z, data array[,] int x_i) {": "real[] f(real t, real[] z, data int[,] x_i) {",
		"// an array[N] real in a comment\nreal y;":                       "// an array[N] real in a comment\nreal y;",
		"vector[N] my_array; my_array[1] = 0;":                            "vector[N] my_array; my_array[1] = 0;",
		"/* array[N] real */ array[N] real y;":                            "/* array[N] real */ real y[N];",
		"print(\"array[N] real\"); array[N] real y;":                      "print(\"array[N] real\"); real y[N];",
		"real y; /* array[N] real":                                        "real y; /* array[N] real",
		"print(\"array[N] real":                                           "print(\"array[N] real",
	} {
		got, _, err := Backport(in)
		if err != nil || got != want {
			t.Errorf("Backport(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// The pipeline end to end on toy-normal2: both methods must be right
// against the exact reference, with every number of the table there. It
// fails if the mean error or the name mapping breaks (theta.1 and
// theta.2 swapped are 2 sd off). The models compile once (about a minute
// each, at once), then are cached: later runs take about ten seconds.
// Without R, rstan and g++ it skips, saying so, and with -short.
func TestPipeline(t *testing.T) {
	if _, err := stan.FindToolchain(); err != nil {
		t.Skipf("the Stan toolchain is absent: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the models' first compilation takes minutes")
	}
	bin := filepath.Join(t.TempDir(), "fresgld")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/fresgld/fresgld/cmd/fresgld").CombinedOutput(); err != nil {
		t.Fatalf("building fresgld: %v\n%s", err, b)
	}
	out := t.TempDir()
	c := Config{PDB: "testdata", Filter: toy, Out: out, Fresgld: bin, Commit: "test", Seeds: 1, Timeout: 5 * time.Minute, Backport: true, Log: io.Discard}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Results) != 1 || s.Results[0].Status != "ok" {
		t.Fatalf("results: %+v", s.Results)
	}
	r := s.Results[0]
	if r.Backported != 3 || r.Dim != 2 || r.Params != 2 {
		t.Errorf("%d declarations backported, dimension %d, %d reference parameters; want 3, 2, 2", r.Backported, r.Dim, r.Params)
	}
	if len(r.Runs) != 2 {
		t.Fatalf("%d runs, want fresgld's and NUTS's", len(r.Runs))
	}
	for _, x := range r.Runs {
		if x.Status != "ok" {
			t.Errorf("%s: %s: %s", x.Method, x.Status, x.Error)
			continue
		}
		if !x.Right || !(x.MaxMeanErr < 0.1) || !strings.HasPrefix(x.MaxMeanErrVar, "theta.") {
			t.Errorf("%s: largest mean error %.3f sd (%s), sd ratios %.3f–%.3f: not right against the exact posterior",
				x.Method, float64(x.MaxMeanErr), x.MaxMeanErrVar, float64(x.SDRatioMin), float64(x.SDRatioMax))
		}
		if !(x.CPUSeconds > 0) || !(x.Gradients > 0) || !(x.MinESSBulk > 100) || !(x.MaxRhat < 1.05) {
			t.Errorf("%s: CPU %g s, %g gradients, smallest bulk ESS %g, largest R̂ %g", x.Method, float64(x.CPUSeconds), float64(x.Gradients), float64(x.MinESSBulk), float64(x.MaxRhat))
		}
		if x.Method == "fresgld" && x.Verdict == "" {
			t.Error("fresgld: no verdict read")
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Study
	if err := json.Unmarshal(b, &back); err != nil || len(back.Results) != 1 || len(back.Results[0].Runs) != 2 {
		t.Fatalf("results.json does not read back: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil || !strings.Contains(string(md), "| "+toy+"†") {
		t.Errorf("results.md has no row for %s: %v\n%s", toy, err, md)
	}
}
