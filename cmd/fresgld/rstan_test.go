package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// TestRstanReadsChains writes the chains of a four-chain run, reads them
// back with rstan::read_stan_csv as a Stan user would, and checks that R's
// posterior package finds the same R̂, bulk and tail ESS, mean and sd as our
// summary, to 1e-8 relative. It skips, saying so, without R, rstan and
// posterior (.ci/run installs them).
func TestRstanReadsChains(t *testing.T) {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		t.Skip("Rscript not found: the rstan check of the chain CSVs is skipped (install r-base-core, r-cran-rstan, r-cran-posterior)")
	}
	// Whether the packages are installed, without loading them: loading
	// rstan takes seconds, and the script below loads it anyway.
	if out, err := exec.Command(rscript, "-e", `q(status = if (nzchar(system.file(package = "rstan")) && nzchar(system.file(package = "posterior"))) 0 else 1)`).CombinedOutput(); err != nil {
		t.Skipf("R lacks rstan or posterior, the rstan check of the chain CSVs is skipped (install r-cran-rstan, r-cran-posterior): %v %s", err, out)
	}
	out := t.TempDir()
	mustRun(t, "logistic", "--data", smallCSV(t), "--label", "y", "--chains", "4", "--keep", "400", "--burn", "100", "--thin", "2", "--out", out)
	var files []string
	for c := 1; c <= 4; c++ {
		files = append(files, results.ChainFile(out, c))
	}
	r := rstanRead(t, rscript, files)
	var sum results.Summary
	readSummaryInto(t, out, &sum)
	if len(sum.Parameters) != 4 {
		t.Fatalf("summary has %d variables, want lp__ and 3 coefficients", len(sum.Parameters))
	}
	for _, p := range sum.Parameters {
		got, ok := r[p.Name]
		if !ok {
			t.Errorf("R does not see variable %s", p.Name)
			continue
		}
		for i, want := range []float64{p.Mean, p.SD, p.Rhat, p.ESSBulk, p.ESSTail} {
			name := []string{"mean", "sd", "rhat", "ess_bulk", "ess_tail"}[i]
			// NaN is a failure here: every variable of this run has finite,
			// varying draws, so every diagnostic is defined.
			if !(math.Abs(got[i]-want) <= 1e-8*math.Abs(want)) {
				t.Errorf("%s %s: R %.17g, ours %.17g", p.Name, name, got[i], want)
			}
		}
	}
}

// rstanRead reads the chain files back with testdata/stan_read.R
// (rstan::read_stan_csv, then posterior's summary) and returns each
// variable's mean, sd, R̂, bulk and tail ESS as R printed them, NA as NaN.
func rstanRead(t *testing.T, rscript string, files []string) map[string][]float64 {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("testdata", "stan_read.R"))
	cmd := exec.Command(rscript, append([]string{script}, files...)...)
	cmd.Stderr = os.Stderr
	csv, err := cmd.Output()
	if err != nil {
		t.Fatalf("Rscript: %v", err)
	}
	r := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) != 6 {
			t.Fatalf("R output line %q", line)
		}
		var v []float64
		for _, s := range f[1:] {
			x := math.NaN()
			if s != "NA" {
				if x, err = strconv.ParseFloat(s, 64); err != nil {
					t.Fatalf("R output line %q: %v", line, err)
				}
			}
			v = append(v, x)
		}
		r[f[0]] = v
	}
	return r
}

// rError is R's error line from its output.
func rError(b []byte) string {
	l := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, s := range l {
		if strings.Contains(s, "Error") {
			return s
		}
	}
	return l[len(l)-1]
}
