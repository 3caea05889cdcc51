package diag

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The reference values in testdata/posterior.csv come from R's posterior
// package run by testdata/posterior.R on testdata/draws.csv. Regenerate both
// (needs R with posterior) by
//
//	go test ./diag -run TestPosteriorReference -update
var update = flag.Bool("update", false, "rewrite testdata/draws.csv and rerun testdata/posterior.R into testdata/posterior.csv")

const (
	drawsFile = "testdata/draws.csv"
	refFile   = "testdata/posterior.csv"
	rScript   = "testdata/posterior.R"
)

// relTol is the agreement asked of every statistic. Both sides compute the
// same formulas in double precision; they differ in summation order, in the
// FFT (R's against gonum's) and in R's long-double sums, all at the level of
// 1e-15 relative, so 1e-8 leaves room for the conditioning of R̂ and ESS and
// still catches any change of definition.
const relTol = 1e-8

// diagCase is one parameter's draws: chains[c][i].
type diagCase struct {
	name   string
	chains [][]float64
}

// referenceCases are the draws the reference values are computed on: mixing
// well and badly, with heavy tails, ties, constant or nearly constant values,
// an infinite draw, a NaN draw, and too few draws for some statistics.
func referenceCases() []diagCase {
	rng := rand.New(rand.NewPCG(2021, 9))
	gen := func(m, n int, f func(c, i int, prev float64) float64) [][]float64 {
		ch := make([][]float64, m)
		for c := range ch {
			ch[c] = make([]float64, n)
			prev := 0.0
			for i := range ch[c] {
				ch[c][i] = f(c, i, prev)
				prev = ch[c][i]
			}
		}
		return ch
	}
	normal := func(mu, sd float64) func(int, int, float64) float64 {
		return func(int, int, float64) float64 { return mu + sd*rng.NormFloat64() }
	}
	ar := func(rho float64) func(int, int, float64) float64 {
		return func(_, i int, prev float64) float64 {
			if i == 0 {
				return rng.NormFloat64() / math.Sqrt(1-rho*rho)
			}
			return rho*prev + rng.NormFloat64()
		}
	}
	return []diagCase{
		{"normal", gen(4, 500, normal(3, 2))},
		{"ar0.9", gen(4, 500, ar(0.9))},
		{"ar0.99", gen(4, 1000, ar(0.99))},
		{"antithetic", gen(4, 500, ar(-0.6))},
		{"stuck", gen(4, 500, func(c, i int, _ float64) float64 {
			if c == 3 {
				return 0.7 // one chain never moves
			}
			return rng.NormFloat64()
		})},
		{"shifted", gen(4, 500, func(c, i int, _ float64) float64 {
			if c == 3 {
				return 3 + rng.NormFloat64() // one chain in another mode
			}
			return rng.NormFloat64()
		})},
		{"cauchy", gen(4, 500, func(int, int, float64) float64 {
			return math.Tan(math.Pi * (rng.Float64() - 0.5))
		})},
		{"ties", gen(4, 500, func(int, int, float64) float64 {
			return math.Floor(2 * rng.ExpFloat64()) // many equal draws
		})},
		{"odd", gen(4, 501, normal(0, 1))},
		{"single", gen(1, 1000, ar(0.5))},
		{"h23", gen(4, 46, ar(0.3))}, // split chains of 23 draws: FFT padding to 2·24
		{"constant", gen(4, 100, func(int, int, float64) float64 { return 1.5 })},
		{"tiny", gen(4, 500, normal(0, 1e-18))},
		{"inf", gen(4, 100, func(c, i int, _ float64) float64 {
			if c == 2 && i == 50 {
				return math.Inf(1)
			}
			return rng.NormFloat64()
		})},
		{"nan", gen(4, 100, func(c, i int, _ float64) float64 {
			if c == 1 && i == 7 {
				return math.NaN()
			}
			return rng.NormFloat64()
		})},
		{"few1", gen(4, 1, normal(0, 1))},
		{"few3", gen(4, 3, normal(0, 1))},
		{"few4", gen(4, 4, normal(0, 1))},
		{"few5", gen(4, 5, normal(0, 1))},
		{"few6", gen(4, 6, normal(0, 1))},
		{"few8x2", gen(2, 8, normal(0, 1))},
		// Heavy tails for Pareto k̂: Student's t with 2 degrees of freedom
		// (k = 1/2, the variance just infinite) and a lognormal (every
		// moment finite, k = 0 asymptotically, but a k̂ well above a
		// normal's at this size).
		{"student2", gen(4, 1000, func(int, int, float64) float64 {
			return rng.NormFloat64() / math.Sqrt(rng.ExpFloat64())
		})},
		{"lognormal", gen(4, 1000, func(int, int, float64) float64 { return math.Exp(rng.NormFloat64()) })},
	}
}

// statFuncs are the Go side of every statistic posterior.R writes.
var statFuncs = map[string]func([][]float64) float64{
	"mean":       func(x [][]float64) float64 { return Summarize(x).Mean },
	"sd":         func(x [][]float64) float64 { return Summarize(x).SD },
	"q5":         func(x [][]float64) float64 { return Quantile(x, 0.05) },
	"q50":        func(x [][]float64) float64 { return Quantile(x, 0.5) },
	"q95":        func(x [][]float64) float64 { return Quantile(x, 0.95) },
	"q0":         func(x [][]float64) float64 { return Quantile(x, 0) },
	"q1":         func(x [][]float64) float64 { return Quantile(x, 1) },
	"rhat":       Rhat,
	"rhat_basic": RhatBasic,
	"ess_bulk":   ESSBulk,
	"ess_tail":   ESSTail,
	"ess_mean":   ESSMean,
	"ess_sd":     ESSSd,
	"ess_q5":     func(x [][]float64) float64 { return ESSQuantile(x, 0.05) },
	"ess_q95":    func(x [][]float64) float64 { return ESSQuantile(x, 0.95) },
	"ess_q1":     func(x [][]float64) float64 { return ESSQuantile(x, 1) },
	"mcse_mean":  MCSEMean,
	"mcse_sd":    MCSESd,
	"mcse_q5":    func(x [][]float64) float64 { return MCSEQuantile(x, 0.05) },
	"mcse_q50":   func(x [][]float64) float64 { return MCSEQuantile(x, 0.5) },
	"mcse_q95":   func(x [][]float64) float64 { return MCSEQuantile(x, 0.95) },
	"khat":       KHat,
}

// summaryFields maps the statistics Summarize reports to its fields, so the
// table a user reads is checked too, not only the functions it calls.
var summaryFields = map[string]func(Summary) float64{
	"mean": func(s Summary) float64 { return s.Mean }, "sd": func(s Summary) float64 { return s.SD },
	"q5": func(s Summary) float64 { return s.Q5 }, "q50": func(s Summary) float64 { return s.Q50 },
	"q95": func(s Summary) float64 { return s.Q95 }, "rhat": func(s Summary) float64 { return s.Rhat },
	"ess_bulk": func(s Summary) float64 { return s.ESSBulk }, "ess_tail": func(s Summary) float64 { return s.ESSTail },
	"mcse_mean": func(s Summary) float64 { return s.MCSEMean }, "mcse_sd": func(s Summary) float64 { return s.MCSESd },
	"mcse_q5": func(s Summary) float64 { return s.MCSEQ5 }, "mcse_q95": func(s Summary) float64 { return s.MCSEQ95 },
	"khat": func(s Summary) float64 { return s.KHat },
}

func writeDraws(path string, cases []diagCase) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "case,chain,draw,value")
	for _, c := range cases {
		for ci, ch := range c.chains {
			for i, x := range ch {
				v := strconv.FormatFloat(x, 'x', -1, 64)
				if math.IsInf(x, 0) {
					v = map[bool]string{true: "Inf", false: "-Inf"}[x > 0]
				}
				fmt.Fprintf(w, "%s,%d,%d,%s\n", c.name, ci+1, i+1, v)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func readDraws(t *testing.T, path string) []diagCase {
	t.Helper()
	recs := readCSV(t, path)
	var cases []diagCase
	index := map[string]int{}
	for _, r := range recs[1:] {
		c, err1 := strconv.Atoi(r[1])
		i, err2 := strconv.Atoi(r[2])
		x, err3 := strconv.ParseFloat(r[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s: bad row %q", path, r)
		}
		k, ok := index[r[0]]
		if !ok {
			k = len(cases)
			index[r[0]] = k
			cases = append(cases, diagCase{name: r[0]})
		}
		for len(cases[k].chains) < c {
			cases[k].chains = append(cases[k].chains, nil)
		}
		if len(cases[k].chains[c-1]) != i-1 {
			t.Fatalf("%s: case %s chain %d: draw %d out of order", path, r[0], c, i)
		}
		cases[k].chains[c-1] = append(cases[k].chains[c-1], x)
	}
	return cases
}

// reference maps case → stat → value (NaN for R's NA).
func readReference(t *testing.T, path string) (map[string]map[string]float64, string) {
	t.Helper()
	recs := readCSV(t, path)
	ref := map[string]map[string]float64{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[2], 64)
		if r[2] == "NA" {
			v, err = math.NaN(), nil
		}
		if err != nil {
			t.Fatalf("%s: bad value %q", path, r)
		}
		if ref[r[0]] == nil {
			ref[r[0]] = map[string]float64{}
		}
		ref[r[0]][r[1]] = v
	}
	return ref, firstLine(t, path)
}

// firstLine is the comment naming the posterior and R versions.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSpace(line)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v (%d rows)", path, err, len(recs))
	}
	return recs
}

// agree is true when got and want are both NaN, or equal infinities, or
// within relTol of each other relative to the larger magnitude.
func agree(got, want float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= relTol*math.Max(math.Abs(got), math.Abs(want))
}

// compare checks every statistic of every case against ref, and fails when
// a case or statistic is missing on either side.
func compare(t *testing.T, cases []diagCase, ref map[string]map[string]float64, source string) {
	t.Helper()
	if len(ref) != len(cases) {
		t.Errorf("%s has %d cases, the draws %d", source, len(ref), len(cases))
	}
	for _, c := range cases {
		want, ok := ref[c.name]
		if !ok {
			t.Errorf("%s: no case %s", source, c.name)
			continue
		}
		if len(want) != len(statFuncs) {
			t.Errorf("%s: case %s has %d statistics, Go checks %d", source, c.name, len(want), len(statFuncs))
		}
		sum := Summarize(c.chains)
		worst := 0.0
		names := make([]string, 0, len(statFuncs))
		for s := range statFuncs {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			w, ok := want[s]
			if !ok {
				t.Errorf("%s: case %s lacks %s", source, c.name, s)
				continue
			}
			got := statFuncs[s](c.chains)
			if !agree(got, w) {
				t.Errorf("%s %s: Go %.17g, posterior %.17g (rel. diff %.2g)", c.name, s, got, w, math.Abs(got/w-1))
			} else if w != 0 && !math.IsNaN(w) && !math.IsInf(w, 0) {
				worst = math.Max(worst, math.Abs(got/w-1))
			}
			if field, ok := summaryFields[s]; ok {
				if got := field(sum); !agree(got, w) {
					t.Errorf("%s Summarize.%s: Go %.17g, posterior %.17g", c.name, s, got, w)
				}
			}
		}
		t.Logf("%-10s largest relative difference %.1e", c.name, worst)
	}
}

func TestPosteriorReference(t *testing.T) {
	if *update {
		if err := writeDraws(drawsFile, referenceCases()); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("Rscript", rScript, drawsFile, refFile).CombinedOutput(); err != nil {
			t.Fatalf("Rscript %s: %v\n%s", rScript, err, out)
		}
	}
	ref, header := readReference(t, refFile)
	t.Logf("reference %s", header)
	compare(t, readDraws(t, drawsFile), ref, refFile)
}

// TestPosteriorLive reruns testdata/posterior.R with the installed R and
// posterior package, so the agreement is checked against today's R, not
// only against the file in the repository.
func TestPosteriorLive(t *testing.T) {
	if _, err := exec.LookPath("Rscript"); err != nil {
		t.Skip("Rscript is not on PATH: skipping the live comparison with R's posterior package (install r-base-core and r-cran-posterior)")
	}
	if out, err := exec.Command("Rscript", "-e", "library(posterior)").CombinedOutput(); err != nil {
		t.Skipf("R's posterior package does not load, skipping the live comparison (install r-cran-posterior): %v\n%s", err, strings.TrimSpace(string(out)))
	}
	out := filepath.Join(t.TempDir(), "posterior.csv")
	if msg, err := exec.Command("Rscript", rScript, drawsFile, out).CombinedOutput(); err != nil {
		t.Fatalf("Rscript %s: %v\n%s", rScript, err, msg)
	}
	ref, header := readReference(t, out)
	t.Logf("live reference %s", header)
	compare(t, readDraws(t, drawsFile), ref, "live "+header)
}
