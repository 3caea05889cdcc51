package main

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/stan"
)

// The default run on a Stan model whose posterior is known exactly
// (testdata/exact.stan): μ | y ~ N(Σy/(N+1), 1/(N+1)) = N(0.88, 0.2), s
// its Gamma(3, 2) prior (mean 1.5, sd √3/2) on the scale bounded below by
// 0, half_s = s/2 a transformed parameter and mu2 = μ² a generated
// quantity (mean 0.88² + 0.2). Stan's draws must carry the constraint's
// Jacobian and transform: each mean within 4 MCSE of the exact one, each
// sd within 4 standard errors, sd/√(2·ESS) for the normal and sd/√ESS for
// the gamma and μ², whose excess kurtosis (2 for Gamma(3); about 2 for
// μ²'s noncentral χ²) doubles the variance of a sample variance. Four
// standard errors leave a correct sampler about 6e-5 a check. Both the
// plan's choice and --method nuts (whose chain files must say hmc_nuts).
func TestSampleStanExact(t *testing.T) {
	skipShort(t, "compiles a Stan model")
	if _, err := stan.FindToolchain(); err != nil {
		t.Skipf("no Stan toolchain, sample --stan is not tested: %v", err)
	}
	for _, method := range []string{"auto", "nuts"} {
		t.Run(method, func(t *testing.T) { checkStanExact(t, method) })
	}
}

func checkStanExact(t *testing.T, method string) {
	out := t.TempDir()
	mustRun(t, "sample", "--stan", "testdata/exact.stan", "--data", "testdata/exact.json", "--method", method, "--out", out)
	sum := readSummary(t, out)
	exact := map[string]struct{ mean, sd, seFactor float64 }{
		"mu":     {0.88, math.Sqrt(0.2), 2},
		"s":      {1.5, math.Sqrt(3) / 2, 1},
		"half_s": {0.75, math.Sqrt(3) / 4, 1},
		"mu2":    {0.88*0.88 + 0.2, math.Sqrt(2*0.2*0.2 + 4*0.88*0.88*0.2), 1},
	}
	seen := map[string]bool{}
	for _, v := range sum.Parameters {
		if v.Name != "lp__" && strings.HasSuffix(v.Name, "__") {
			t.Errorf("the summary holds the sampler column %s", v.Name)
		}
		e, ok := exact[v.Name]
		if !ok {
			continue
		}
		seen[v.Name] = true
		seSD := v.SD / math.Sqrt(e.seFactor*v.ESSBulk)
		t.Logf("%s: mean %.4f (exact %.4f, MCSE %.4f), sd %.4f (exact %.4f, se %.4f), ESS %.0f", v.Name, v.Mean, e.mean, v.MCSEMean, v.SD, e.sd, seSD, v.ESSBulk)
		if !(math.Abs(v.Mean-e.mean) <= 4*v.MCSEMean) {
			t.Errorf("%s: mean %v, exact %v: %.1f MCSE away", v.Name, v.Mean, e.mean, math.Abs(v.Mean-e.mean)/v.MCSEMean)
		}
		if !(math.Abs(v.SD-e.sd) <= 4*seSD) {
			t.Errorf("%s: sd %v, exact %v: %.1f standard errors away", v.Name, v.SD, e.sd, math.Abs(v.SD-e.sd)/seSD)
		}
	}
	if len(seen) != len(exact) {
		t.Errorf("the summary has %v of %d variables", seen, len(exact))
	}
	// The chain file: Stan's names after the unconstrained coordinates.
	f, err := os.Open(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	nuts := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "hmc_nuts") {
			nuts = true
		}
		if strings.HasPrefix(sc.Text(), "lp__") {
			if method == "nuts" && !nuts {
				t.Error("--method nuts: the chain file's header does not name hmc_nuts")
			}
			if !strings.HasSuffix(sc.Text(), ",mu_unc__,s_unc__,mu,s,half_s,mu2") {
				t.Errorf("header %q", sc.Text())
			}
			return
		}
	}
	t.Error("chain-1.csv has no header row")
}

// A Stan model's chain files read back by rstan::read_stan_csv as a Stan
// user reads CmdStan's: R sees Stan's variables with the summary's means
// and sds (to 1e-8 relative), and the unconstrained columns as variables
// of their own, not as indices of Stan's (rstan reads theta.1 as
// theta[1], so mu.unc would have been mu[unc]).
func TestRstanReadsStanChains(t *testing.T) {
	skipShort(t, "compiles a Stan model")
	if _, err := stan.FindToolchain(); err != nil {
		t.Skipf("no Stan toolchain: %v", err)
	}
	rscript, _ := exec.LookPath("Rscript")
	if out, err := exec.Command(rscript, "-e", `q(status = if (nzchar(system.file(package = "posterior"))) 0 else 1)`).CombinedOutput(); err != nil {
		t.Skipf("R lacks posterior, the rstan check is skipped (install r-cran-posterior): %v %s", err, out)
	}
	out := t.TempDir()
	mustRun(t, "sample", "--stan", "testdata/exact.stan", "--data", "testdata/exact.json", "--out", out)
	files, _ := filepath.Glob(filepath.Join(out, "chain-*.csv"))
	r := rstanRead(t, rscript, files)
	for _, name := range []string{"mu_unc__", "s_unc__"} {
		if _, ok := r[name]; !ok {
			t.Errorf("R does not see the column %s as a variable: %v", name, r)
		}
	}
	var sum results.Summary
	readSummaryInto(t, out, &sum)
	for _, p := range sum.Parameters {
		got, ok := r[p.Name]
		if !ok {
			t.Errorf("R does not see variable %s", p.Name)
			continue
		}
		if !(math.Abs(got[0]-p.Mean) <= 1e-8*math.Abs(p.Mean)) || !(math.Abs(got[1]-p.SD) <= 1e-8*p.SD) {
			t.Errorf("%s: R's mean and sd %v, ours %v %v", p.Name, got, p.Mean, p.SD)
		}
	}
}
