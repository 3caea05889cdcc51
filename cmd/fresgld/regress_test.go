package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// regressRun is what the regress tests read back from summary.json.
type regressRun struct {
	Prior      string  `json:"prior"`
	SlabWeight float64 `json:"slab_weight"`
	SpikeSD    float64 `json:"spike_sd"`
	SlabSD     float64 `json:"slab_sd"`
	NoiseSD    float64 `json:"noise_sd"`
	Settings   struct {
		Method string `json:"method"`
		Keep   int    `json:"keep"`
	} `json:"settings"`
	Coef []struct {
		Name           string   `json:"variable"`
		Mean           float64  `json:"mean"`
		Inclusion      float64  `json:"inclusion"`
		InclusionMCSE  *float64 `json:"inclusion_mcse"`
		ExactMean      *float64 `json:"exact_mean"`
		ExactSD        *float64 `json:"exact_sd"`
		ExactInclusion *float64 `json:"exact_inclusion"`
	} `json:"per_coefficient"`
	Params []struct {
		Name string  `json:"variable"`
		MCSE float64 `json:"mcse_mean"`
	} `json:"parameters"`
	Distance struct {
		MeanErr float64 `json:"max_mean_error_sds"`
	} `json:"distance_to_exact"`
}

func readRegress(t *testing.T, dir string) regressRun {
	t.Helper()
	var r regressRun
	readSummaryInto(t, dir, &r)
	return r
}

// rNoiseSD is R's residual standard error of lm(progression ~ ., d) on
// data/diabetes.csv, 54.1542393281 on 431 degrees of freedom, divided by
// the response's population sd 77.0057…: the default --noise-sd.
const rNoiseSD = 0.7032493318

// TestRegressDiabetesAgainstExact runs regress end to end on the diabetes
// data with the default prior (spike-and-slab), once with the default
// method (the plan: the Gibbs kernel, run for a bulk ESS of 400 a chain)
// and once with the f-reSGLD ladder at smoke size, and checks each table
// against --exact: every coefficient's mean and every inclusion
// probability within 5 MCSE of the exact value.
//
// Why 5: the 20 errors, each divided by its MCSE, would be about standard
// normal, so the largest of 20 exceeds 5 with probability 20·5.7e-7 ≈ 1e-5.
// Two things widen that at this size and are covered by the margin from
// the usual 3–4: the MCSE is itself estimated from a bulk ESS near 100 per
// chain (off by up to about 30%), and the step size 0.2/λ_max inflates the
// stiffest direction's variance by 1/(1 − ηλ/2) ≤ 1.11, a bias of a few
// hundredths of an sd (the ladder; the Gibbs kernel is exact). A sampler on
// the wrong target misses by far more: with the prior's gradient of the
// normal prior, the inclusion probabilities of s1–s4 (exact 0.19–0.57)
// would be near 1.
func TestRegressDiabetesAgainstExact(t *testing.T) {
	for _, c := range []struct {
		method string
		args   []string
	}{
		{"auto", nil},
		{"fresgld", []string{"--method", "fresgld", "--keep", "400", "--thin", "200", "--burn", "5000"}},
	} {
		t.Run(c.method, func(t *testing.T) { regressAgainstExact(t, c.method, c.args) })
	}
}

func regressAgainstExact(t *testing.T, method string, args []string) {
	out := t.TempDir()
	mustRun(t, append([]string{"regress", "--data", diabetes(t), "--label", "progression", "--exact", "--chains", "4", "--out", out}, args...)...)
	r := readRegress(t, out)
	if r.Prior != "spike-slab" || r.SlabWeight != 0.5 || r.SpikeSD != 0.02 || r.SlabSD != 1 || r.Settings.Method != method {
		t.Errorf("summary: prior %q w %v s0 %v s1 %v method %q", r.Prior, r.SlabWeight, r.SpikeSD, r.SlabSD, r.Settings.Method)
	}
	if math.Abs(r.NoiseSD-rNoiseSD) > 1e-9 {
		t.Errorf("noise_sd = %.12g, R's lm gives %.10g", r.NoiseSD, rNoiseSD)
	}
	mcse := map[string]float64{}
	for _, p := range r.Params {
		mcse[p.Name] = p.MCSE
	}
	if len(r.Coef) != 10 {
		t.Fatalf("%d coefficients in per_coefficient, want 10", len(r.Coef))
	}
	for _, c := range r.Coef {
		if c.ExactMean == nil || c.ExactSD == nil || c.ExactInclusion == nil {
			t.Fatalf("%s: no exact values in summary.json", c.Name)
		}
		if e := math.Abs(c.Mean - *c.ExactMean); !(e <= 5*mcse[c.Name]) {
			t.Errorf("%s: mean %.4g, exact %.4g: error %.3g > 5 MCSE = %.3g", c.Name, c.Mean, *c.ExactMean, e, 5*mcse[c.Name])
		}
		// An inclusion probability within 1/M of 0 or 1 (M = 1600
		// draws) is beyond the draws' resolution: the pattern that makes
		// the difference is most likely never visited, and the estimate
		// is then 1 (or its spike's share) whatever the MCSE says, which
		// may be 0 (every draw gave 1 to the last bit: bmi, s5).
		var se float64
		if c.InclusionMCSE != nil {
			se = *c.InclusionMCSE
		}
		if e := math.Abs(c.Inclusion - *c.ExactInclusion); !(e <= 5*se+1.0/1600) {
			t.Errorf("%s: inclusion %.4g, exact %.4g: error %.3g > 5 MCSE + 1/1600 = %.3g", c.Name, c.Inclusion, *c.ExactInclusion, e, 5*se+1.0/1600)
		}
	}
	// The distance line is the largest of the per-coefficient errors.
	var worst float64
	for _, c := range r.Coef {
		worst = max(worst, math.Abs(c.Mean-*c.ExactMean) / *c.ExactSD)
	}
	if math.Abs(r.Distance.MeanErr-worst) > 1e-12 {
		t.Errorf("distance_to_exact: %v, largest |mean − exact|/sd %v", r.Distance.MeanErr, worst)
	}
	ch, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The plan's chain files name its sampler and hold no setting of the
	// ladder it does not run.
	if method == "auto" && (!slices.Contains(ch.Comments, "#     algorithm = model_gibbs") || slices.ContainsFunc(ch.Comments, func(c string) bool { return strings.HasPrefix(c, "#   tau2 = ") })) {
		t.Errorf("chain-1.csv's header under the plan: %q", ch.Comments)
	}
	if !slices.Contains(ch.Columns, "inclusion_s1") || len(ch.Cols[0]) != r.Settings.Keep {
		t.Errorf("chain-1.csv: columns %q, %d draws, --keep %d", ch.Columns, len(ch.Cols[0]), r.Settings.Keep)
	}
	files := []string{"chain-4.csv", "summary.txt", "trace.png", "marginals.svg", "ranks.svg"}
	if method == "fresgld" {
		files = append(files, "replicas.svg")
	}
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
}

// TestRegressNormalPrior: with --prior normal the default plan runs one
// level (the Gibbs kernel, which under the normal prior draws β exactly
// from its Gaussian posterior), the chain files hold no inclusion columns,
// and the means lie within 5 MCSE of the exact Gaussian posterior's (the
// argument of TestRegressDiabetesAgainstExact, over 10 comparisons).
func TestRegressNormalPrior(t *testing.T) {
	out := t.TempDir()
	if err := run(t, "regress", "--data", diabetes(t), "--label", "progression", "--prior", "normal", "--exact",
		"--chains", "2", "--keep", "400", "--out", out); err != nil {
		t.Fatal(err)
	}
	r := readRegress(t, out)
	if r.Settings.Method != "auto" || r.Prior != "normal" {
		t.Errorf("method %q, prior %q; want auto, normal", r.Settings.Method, r.Prior)
	}
	mcse := map[string]float64{}
	for _, p := range r.Params {
		mcse[p.Name] = p.MCSE
	}
	for _, c := range r.Coef {
		if e := math.Abs(c.Mean - *c.ExactMean); !(e <= 5*mcse[c.Name]) {
			t.Errorf("%s: mean %.4g, exact %.4g: error %.3g > 5 MCSE = %.3g", c.Name, c.Mean, *c.ExactMean, e, 5*mcse[c.Name])
		}
		if c.Inclusion != 1 || *c.ExactInclusion != 1 {
			t.Errorf("%s: inclusion %v, exact %v under the normal prior", c.Name, c.Inclusion, *c.ExactInclusion)
		}
	}
	ch, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(ch.Columns, func(c string) bool { return strings.HasPrefix(c, "inclusion_") }) || slices.Contains(ch.Columns, results.ReplicaCol(2)) {
		t.Errorf("normal prior, one chain: columns %q", ch.Columns)
	}
}

// Every setting is checked before any work: the error names the flag and
// the value, and --out is not created.
func TestRegressRejects(t *testing.T) {
	data := diabetes(t)
	wide := noiseCSV(t, 30, 21, 4, 5)
	// Above p = 20 a run has no exact posterior and says nothing of one.
	out := t.TempDir()
	if err := run(t, "regress", "--data", wide, "--label", "y", "--chains", "1", "--keep", "50", "--burn", "10", "--thin", "1", "--out", out); err != nil {
		t.Fatalf("p = 21: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.json")); strings.Contains(string(b), "distance_to_exact") || !strings.Contains(string(b), "inclusion_x20") {
		t.Errorf("p = 21: summary.json has a distance to exact or lacks the inclusion columns")
	}
	base := []string{"regress", "--data", data, "--label", "progression"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"regress", "--label", "y"}, "--data: no CSV file"},
		{[]string{"regress", "--data", data}, "--label: no response column"},
		{append(slices.Clone(base), "--prior", "laplace"), `--prior "laplace"`},
		{append(slices.Clone(base), "--slab-weight", "1"), "--slab-weight = 1"},
		{append(slices.Clone(base), "--slab-weight", "0"), "--slab-weight = 0"},
		{append(slices.Clone(base), "--spike-sd", "1"), "--spike-sd = 1: must be below --slab-sd = 1"},
		{append(slices.Clone(base), "--spike-sd", "-0.1"), "--spike-sd = -0.1"},
		{append(slices.Clone(base), "--slab-sd", "0"), "--slab-sd = 0"},
		{append(slices.Clone(base), "--noise-sd", "-1"), "--noise-sd = -1"},
		{append(slices.Clone(base), "--method", "reld"), `--method "reld"`},
		{append(slices.Clone(base), "--method", "corrected", "--correction", "full"), "--correction full"},
		{append(slices.Clone(base), "--prior", "normal", "--method", "sgld", "--correction", "full"), "--correction full: method sgld"},
		{append(slices.Clone(base), "--correction", "full"), "--method auto (the default) chooses its own sampler"},
		{append(slices.Clone(base), "--eta", "0.001"), "--method auto (the default) chooses its own sampler"},
		{append(slices.Clone(base), "--correction", "half"), "--correction"},
		{append(slices.Clone(base), "--tau2", "1"), "--tau2 = 1"},
		{append(slices.Clone(base), "--prior", "normal", "--spike-sd", "0.1"), "--spike-sd: --prior normal has no spike"},
		{append(slices.Clone(base), "--cycle", "100"), "--cycle: only --method csgld"},
		{append(slices.Clone(base), "--method", "fresgld", "--swap-energies", "thinned"), "--swap-energies thinned: this model's terms have no bounded third derivative"},
		{[]string{"regress", "--data", data, "--label", "nope"}, `label column "nope"`},
		{[]string{"regress", "--data", wide, "--label", "y", "--exact"}, "--exact: 21 coefficients"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := run(t, append(c.args, "--out", out)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args[1:], err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: --out was created", c.args[1:])
		}
	}
}

// Chains run one at a time (--chain c) and pooled by merge print the table
// of one run of both, inclusion columns and cost unit included.
func TestRegressMergeMatchesOneRun(t *testing.T) {
	cmd := []string{"regress", "--data", diabetes(t), "--label", "progression", "--keep", "100", "--burn", "200", "--thin", "5"}
	all := t.TempDir()
	mustRun(t, append(cmd, "--chains", "2", "--out", all)...)
	var dirs []string
	for c := 1; c <= 2; c++ {
		d := t.TempDir()
		mustRun(t, append(cmd, "--chain", fmt.Sprint(c), "--out", d)...)
		dirs = append(dirs, d)
	}
	merged := t.TempDir()
	mustRun(t, append([]string{"merge", "--out", merged}, dirs...)...)
	want, _ := os.ReadFile(filepath.Join(all, "summary.txt"))
	got, _ := os.ReadFile(filepath.Join(merged, "summary.txt"))
	if len(want) == 0 || string(got) != string(want) {
		t.Errorf("merged table:\n%s\none run's:\n%s", got, want)
	}
	if !strings.Contains(string(want), "inclusion_s3") || !strings.Contains(string(want), "per-example evaluations") {
		t.Errorf("table without inclusion columns or cost unit:\n%s", want)
	}
}

// --method csgld keeps only the draws of its sampling stages: of the
// retained steps s = burn + j·thin, those whose step k = s − 1 lies in the
// last (1 − β) of its cycle, k mod L ≥ βL (the test counts them itself).
func TestRegressCSGLDKeepsSamplingStages(t *testing.T) {
	const burn, keep, thin, L, beta = 300, 200, 7, 500, 0.4
	out := t.TempDir()
	if err := run(t, "regress", "--data", diabetes(t), "--label", "progression", "--method", "csgld", "--chains", "1",
		"--burn", fmt.Sprint(burn), "--keep", fmt.Sprint(keep), "--thin", fmt.Sprint(thin), "--cycle", fmt.Sprint(L), "--explore", fmt.Sprint(beta), "--out", out); err != nil {
		t.Fatal(err)
	}
	want := 0
	for j := 1; j <= keep; j++ {
		if k := burn + j*thin - 1; float64(k%L) >= beta*L {
			want++
		}
	}
	ch, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ch.Cols[0]); got != want || want == 0 || want == keep {
		t.Errorf("%d draws written, want %d of the %d retained steps", got, want, keep)
	}
	if r := readRegress(t, out); r.Settings.Method != "csgld" {
		t.Errorf("method %q", r.Settings.Method)
	}
	for _, c := range []struct{ flag, v, want string }{{"--explore", "1", "--explore = 1"}, {"--cycle", "1", "--cycle = 1"}} {
		if err := run(t, "regress", "--data", diabetes(t), "--label", "progression", "--method", "csgld", c.flag, c.v, "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v", c.flag, c.v, err)
		}
	}
}
