package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/interrupt"
	"github.com/fresgld/fresgld/results"
)

// cli runs the command line as main does, panics turned into errors as
// execute turns them, and returns its exit status and everything it said
// to the user: the error, then stderr.
func cli(t *testing.T, args ...string) (code int, said string) {
	t.Helper()
	var stderr bytes.Buffer
	rootCmd.SetErr(&stderr)
	defer rootCmd.SetErr(nil)
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return run(t, args...)
	}()
	if err != nil {
		return 1, err.Error() + "\n" + stderr.String()
	}
	return 0, stderr.String()
}

// inputCase is one input of a user and the answer it must get.
type inputCase struct {
	name string
	args []string
	code int      // exit status
	want []string // each must appear in what the command said
	not  []string // none may
}

func (c inputCase) check(t *testing.T) {
	t.Helper()
	code, said := cli(t, c.args...)
	if strings.Contains(said, "panic") || strings.Contains(said, "internal error") {
		t.Errorf("%s: %v: a panic reached the user: %s", c.name, c.args, said)
		return
	}
	if code != c.code {
		t.Errorf("%s: %v: exit status %d, want %d; said %q", c.name, c.args, code, c.code, said)
	}
	for _, w := range c.want {
		if !strings.Contains(said, w) {
			t.Errorf("%s: %v: said %q, want it to contain %q", c.name, c.args, said, w)
		}
	}
	for _, w := range c.not {
		if strings.Contains(said, w) {
			t.Errorf("%s: %v: said %q, which should not contain %q", c.name, c.args, said, w)
		}
	}
}

// The inputs of issue 20 to `fresgld logistic` that were accepted with a
// wrong or silent answer, or refused late or unclearly: each gets its
// answer, with the flag, file, line, column or value, before any work.
func TestLogisticInputAnswers(t *testing.T) {
	data := smallCSV(t)
	// A run as short as the command allows, for the cases that succeed.
	short := []string{"--burn", "20", "--keep", "20", "--thin", "1", "--chains", "1"}
	lg := func(args ...string) []string {
		out := filepath.Join(t.TempDir(), "out")
		return append([]string{"logistic", "--label", "y", "--out", out}, args...)
	}
	ok := func(i int) string { return fmt.Sprintf("%d,%g,%d", i%5, float64(i%7)-3, (i*7)%3%2) }
	outFile := writeFile(t, "file", "x")
	for _, c := range []inputCase{
		// Silent garbage.
		{"swap-rate 0", lg("--data", data, "--swap-rate", "0"), 1, []string{"--swap-rate = 0: must lie in (0, 1]", "--method sgld"}, nil},
		{"1e308 outlier", lg(append([]string{"--data", writeFile(t, "o.csv", csvRows("a,b,y\n", 60, func(i int) string {
			if i == 9 {
				return fmt.Sprintf("%d,1e308,%d", i%5, i%2)
			}
			return ok(i)
		})), "--method", "sgld"}, short...)...), 0, []string{`column 2 ("b"): example 10 (value 1e+308) lies`, "indicator of that one example"}, nil},
		{"single class", lg("--data", writeFile(t, "c.csv", csvRows("a,b,y\n", 60, func(i int) string { return fmt.Sprintf("%d,%d,0", i%5, i%3) }))),
			1, []string{`column 3 ("y"): every one of the 60 examples has label 0: logistic regression needs examples of both classes`}, nil},
		{"sgld --levels", lg("--data", data, "--method", "sgld", "--levels", "3"), 1, []string{"--levels 3: --method sgld runs one chain"}, nil},
		{"fresgld --levels auto", lg(append([]string{"--data", data, "--method", "fresgld", "--levels", "auto"}, short...)...), 0, []string{"tuning the ladder (--levels auto): 1 round, 200 steps from 4 levels"}, nil},
		{"auto --levels auto", lg("--data", data, "--levels", "auto"), 1, []string{"--levels auto: method auto tunes no ladder"}, nil},
		{"sgld --levels auto", lg("--data", data, "--method", "sgld", "--levels", "auto"), 1, []string{"--levels auto: method sgld tunes no ladder"}, nil},
		{"fresgld --swap-energies thinned", lg(append([]string{"--data", data, "--method", "fresgld", "--swap-energies", "thinned"}, short...)...), 0, []string{"swap energies: thinned (set by --swap-energies)"}, nil},
		{"sgld --swap-energies", lg("--data", data, "--method", "sgld", "--swap-energies", "exact"), 1, []string{"--swap-energies exact: --method sgld runs one chain"}, nil},
		{"resgld --hot-share", lg("--data", data, "--method", "resgld", "--hot-share", "0.5"), 1, []string{"--hot-share 0.5: --method resgld runs every level on the cold minibatch"}, nil},
		{"chain 0", lg("--data", data, "--chain", "0"), 1, []string{"--chain = 0: chains are numbered from 1"}, nil},
		{"latin-1 header", lg("--data", writeFile(t, "l.csv", csvRows("a,caf\xe9,y\n", 60, ok))), 1, []string{"l.csv:1: column 2: the column name has byte 0xE9 at byte 4, which is not UTF-8", "iconv"}, nil},
		// Issue 17: a one-level method ran the swap-energy pilot and
		// crashed; reld needs exact energies.
		{"corrected", lg(append([]string{"--data", data, "--method", "corrected"}, short...)...), 0, nil, nil},
		{"reld without exact energies", lg("--data", data, "--method", "reld"), 1, []string{"--method reld: noise-free replica exchange needs exact energies: give --swap-batch 200"}, nil},
		{"reld with exact energies", lg(append([]string{"--data", data, "--method", "reld", "--swap-batch", "200"}, short...)...), 0, nil, nil},
		// Late errors: --out before the data are read (the file does not
		// even exist).
		{"--out a file", lg("--data", "/nonexistent.csv", "--out", outFile), 1, []string{"--out: " + outFile + " exists and is not a directory"}, []string{"nonexistent"}},
		{"--out under a file", lg("--data", "/nonexistent.csv", "--out", filepath.Join(outFile, "sub")), 1, []string{outFile + " is a file, not a directory"}, []string{"nonexistent"}},
		// Unclear messages.
		{"tiny varying column", lg(append([]string{"--data", writeFile(t, "t.csv", csvRows("a,b,y\n", 60, func(i int) string { return fmt.Sprintf("%de-302,%d,%d", i%7-3, i%5, i%2) })), "--method", "sgld"}, short...)...), 0, nil, []string{"constant"}},
		{"constant columns all named", lg("--data", writeFile(t, "k.csv", csvRows("a,k,b,y,m\n", 60, func(i int) string { return fmt.Sprintf("%d,7,%d,%d,0", i%5, i%3, i%2) }))),
			1, []string{`column 2 ("k"): the feature is constant (7); 1 more are: column 5 ("m", 0)`, "--drop-constant"}, nil},
		{"--drop-constant", lg(append([]string{"--data", writeFile(t, "k.csv", csvRows("a,k,b,y,m\n", 60, func(i int) string { return fmt.Sprintf("%d,7,%d,%d,0", i%5, i%3, i%2) })), "--drop-constant", "--method", "sgld"}, short...)...),
			0, []string{`dropped 2 constant feature(s): column 2 ("k", 7), column 5 ("m", 0)`}, nil},
		{"prior-sd 1e-200", lg("--data", data, "--prior-sd", "1e-200"), 1, []string{"--prior-sd = 1e-200: the prior's precision"}, []string{"singular"}},
		{"gzip", lg("--data", writeFile(t, "d.csv.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage")), 1, []string{"d.csv.gz: the file is gzip-compressed"}, []string{"bare"}},
		{"no header, --label y", lg("--data", writeFile(t, "h.csv", csvRows("1,2,0\n", 60, ok))), 1, []string{`label column "y": no column has that name`, "--no-header"}, nil},
		{"swap-pilot 0", lg("--data", data, "--swap-pilot", "0"), 1, []string{"--swap-pilot = 0: must be ≥ 1"}, []string{"exact-every"}},
		{"exact-every -1", lg("--data", data, "--exact-every", "-1"), 1, []string{"--exact-every = -1: must be ≥ 0"}, []string{"swap-pilot"}},
		{"seed -1", lg("--data", data, "--seed", "-1"), 1, []string{`--seed = "-1": want a whole number from 0 to 18446744073709551615`}, []string{"strconv"}},
		{"keep 1e12", lg("--data", data, "--keep", "1e12"), 1, []string{`--keep = "1e12": want a whole number, written out (1000000000000, not 1e12)`}, []string{"strconv"}},
		{"keep too many", lg("--data", data, "--keep", "2000000000"), 1, []string{"--keep = 2000000000: that many draws would not fit in memory"}, []string{"1 coordinates"}},
		{"thin 1e9, burn auto", lg("--data", data, "--thin", "1000000000"), 1, []string{"--keep = 1000 × --thin = 1000000000 = 1e+12 steps (before the automatic --burn): more than the 2147483647 steps"}, []string{"--burn = 0"}},
		{"swap-energies unknown", lg("--data", data, "--swap-energies", "fast"), 1, []string{`unknown swap-energy mode "fast"`, "or auto, the default"}, nil},
		// 10¹² chains ran out of memory in a crash no handler sees.
		{"chains 1e12", lg("--data", data, "--chains", "1000000000000"), 1, []string{"--chains = 1000000000000: at most 256 run in one process", "--chain c"}, nil},
		{"eta not a number", lg("--data", data, "--eta", "fast"), 1, []string{`--eta = "fast": want a number or auto`}, nil},
		{"bool flag", lg("--data", data, "--no-header=maybe"), 1, []string{`--no-header = "maybe": want true or false`}, []string{"strconv"}},
	} {
		c.check(t)
	}
}

// --help lists every method the command accepts, and the modes of
// --swap-energies with auto.
func TestHelpListsEveryChoice(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"logistic", []string{"corrected", "reld", "fresgld, mresgld, resgld, sgld", "auto, draw, minibatch"}},
		{"gmm", []string{"corrected", "not reld"}},
	} {
		var out bytes.Buffer
		rootCmd.SetOut(&out)
		err := run(t, c.cmd, "--help")
		rootCmd.SetOut(nil)
		for _, w := range c.want {
			if err != nil || !strings.Contains(out.String(), w) {
				t.Errorf("%s --help (%v) does not mention %q", c.cmd, err, w)
			}
		}
	}
}

// The inputs of issue 20 to `fresgld gmm`.
func TestGMMInputAnswers(t *testing.T) {
	gm := func(args ...string) []string {
		return append([]string{"gmm", "--out", filepath.Join(t.TempDir(), "out"), "--chains", "1", "--burn", "10", "--keep", "50", "--thin", "1"}, args...)
	}
	start := time.Now()
	for _, c := range []inputCase{
		{"eta 50", gm("--eta", "50"), 1, []string{"--eta = 50: η·λ = 102 > 2 even at the curvature λ = 2.04 of U's tails", "below 0.98"}, []string{"stopped after"}},
		// The narrow mode cannot hold a chain: said before the run,
		// which completes.
		{"eta 0.7", gm("--eta", "0.7"), 0, []string{"--eta = 0.7: η·λ_max = 2.8 > 2 at the narrowest component"}, nil},
		{"eta 0.03", gm(), 0, nil, []string{"η·λ"}},
		{"chain 0", gm("--chain", "0"), 1, []string{"--chain = 0: chains are numbered from 1"}, nil},
		{"sgld --tau2", gm("--method", "sgld", "--tau2", "5"), 1, []string{"--tau2 5: --method sgld runs one chain"}, nil},
		{"reld", gm("--method", "reld"), 1, []string{"--method reld: noise-free replica exchange needs exact energies, and gmm's are noisy"}, nil},
		{"corrected", gm("--method", "corrected"), 0, nil, nil},
		{"seed -1", gm("--seed", "-1"), 1, []string{`--seed = "-1": want a whole number`}, []string{"strconv"}},
		// Four chains' ladders, each tuned on its own, grew to 4 and 5
		// levels on 7 of seeds 1–8 and the run panicked; one tuning for
		// every chain gives them one ladder.
		{"auto ladder, grown", append(gm("--levels", "auto", "--auto-levels", "3", "--tau2", "300", "--auto-first", "40", "--auto-rounds", "3"), "--chains", "4"), 0, nil, []string{"levels, chain", "panic"}},
	} {
		c.check(t)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the cases took %v: some sampled before refusing", d)
	}
}

// The inputs of issue 20 to `fresgld merge`: a NaN cell, an interrupted
// run with no draws, and runs whose settings differ.
func TestMergeInputAnswers(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "gmm", "--chains", "2", "--burn", "5", "--keep", "20", "--thin", "1", "--out", dir)
	body := readFile(t, results.ChainFile(dir, 1))
	lines := strings.Split(string(body), "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "lp__") })
	// A NaN in the third draw's last column.
	nan := slices.Clone(lines)
	f := strings.Split(nan[head+3], ",")
	f[len(f)-1] = "NaN"
	nan[head+3] = strings.Join(f, ",")
	nanFile := writeFile(t, "chain-1.csv", strings.Join(nan, "\n"))
	f[len(f)-1] = "-Inf"
	nan[head+3] = strings.Join(f, ",")
	infFile := writeFile(t, "chain-1.csv", strings.Join(nan, "\n"))
	// An interrupted run: its chains stopped in the burn-in, with no draws.
	interrupted := t.TempDir()
	for id := 1; id <= 2; id++ {
		b, _ := os.ReadFile(results.ChainFile(dir, id))
		ls := strings.Split(string(b), "\n")
		var kept []string
		for i, l := range ls {
			switch {
			case i > head && !strings.HasPrefix(l, "#"):
			case strings.HasPrefix(l, results.StatSteps):
				kept = append(kept, results.StatSteps+"3", results.StatStopped+interrupt.ErrInterrupted.Error())
			default:
				kept = append(kept, l)
			}
		}
		if err := os.WriteFile(results.ChainFile(interrupted, id), []byte(strings.Join(kept, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Chains run with different --prior-sd, whose automatic burn-in
	// differs too.
	data := smallCSV(t)
	pa, pb := t.TempDir(), t.TempDir()
	for _, r := range []struct{ out, chain, sd string }{{pa, "1", "1"}, {pb, "2", "0.2"}} {
		mustRun(t, "logistic", "--data", data, "--label", "y", "--method", "sgld", "--keep", "20", "--chain", r.chain, "--prior-sd", r.sd, "--out", r.out)
	}
	for _, c := range []inputCase{
		{"NaN cell", []string{"merge", nanFile}, 1, []string{fmt.Sprintf("chain-1.csv:%d: column 6 (theta1): \"NaN\" is not a number", head+4)}, nil},
		{"infinite cell", []string{"merge", infFile}, 1, []string{fmt.Sprintf("chain-1.csv:%d: column 6 (theta1): \"-Inf\" is not a finite number", head+4)}, nil},
		{"interrupted in burn-in", []string{"merge", interrupted}, 1, []string{"chain-1.csv has no draws (chain 1 stopped after 3 steps, in its burn-in of 5: interrupted)", "the table would hold 0 draws"}, []string{"0 draws\nvariable"}},
		{"different prior-sd", []string{"merge", pa, pb}, 1, []string{"come from different settings: prior_sd = 1 against prior_sd = 0.2"}, []string{"num_warmup"}},
		{"the run itself", []string{"merge", dir}, 0, nil, nil},
	} {
		c.check(t)
	}
}

// wideCSV writes n examples of p features, with a 0/1 label y last.
func wideCSV(t *testing.T, n, p int) string {
	t.Helper()
	x := func(i, j int) string { return strconv.Itoa((i*7+j*13)%11 - 5) }
	return featuresCSV(t, n, p, x, func(i int) int { return i % 2 })
}

// Data with p ≫ N (issue 20: 60 × 10,000 sat silent for minutes at 1.7 GB):
// the default run's draws are refused at once, with the --keep that fits
// and the reason p > N is a poor use of the data; a run that fits skips
// the p×p Hessian (its note says so) and finishes.
func TestLogisticWideData(t *testing.T) {
	start := time.Now()
	inputCase{"3000 features, 20 examples", []string{"logistic", "--data", wideCSV(t, 20, 3000), "--label", "y", "--method", "fresgld", "--out", t.TempDir()}, 1,
		[]string{"--keep = 5000: p = 3001 coefficients but N = 20 examples: the data inform at most 20 directions", "4 chain(s) × 5000 draws × 3002 variables", "give --keep 4163 or less"}, nil}.check(t)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refused after %v: some work came first", d)
	}
	// The default's plan stops at plan.PlanMaxDim coordinates, saying so.
	said, err := stdoutOf(t, "logistic", "--data", wideCSV(t, 20, 1001), "--label", "y", "--chains", "1", "--keep", "20", "--burn", "10", "--thin", "1", "--out", t.TempDir())
	if want := "sampler: corrected (one SGLD chain per --chains whose gradient noise counts toward its temperature): p = 1002 > 1000"; err != nil || !strings.Contains(said, want) {
		t.Errorf("default method on 1002 coefficients: %v; said %q, want it to contain %q", err, said, want)
	}
	out := t.TempDir()
	inputCase{"1001 features, 20 examples", []string{"logistic", "--data", wideCSV(t, 20, 1001), "--label", "y", "--method", "sgld", "--chains", "1", "--keep", "20", "--out", out}, 0, nil, nil}.check(t)
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	for _, want := range []string{"p = 1002: a p×p Hessian", "λ_min = 1/σ₀² = 1 (p = 1002"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary.json does not say %q", want)
		}
	}
}

// gmm's ladder warnings, one per chain, are folded into one with the
// chains and the range of the number: two chains of a ladder that barely
// swaps.
func TestGMMFoldedWarnings(t *testing.T) {
	inputCase{"gmm, 2 chains", []string{"gmm", "--chains", "2", "--tau2", "100", "--burn", "10", "--keep", "200", "--thin", "1", "--out", t.TempDir()}, 0,
		[]string{"warning: chains 1, 2: levels 1–2 (τ = 1, 100) rejected "}, []string{"warning: chain 1: levels"}}.check(t)
}

// The output speaks the user's units: the table says the coefficients are
// standardised (and does not with --no-standardize), the automatic hot
// batch is recorded as chosen, not as 0, and a run on exact swap energies
// is not told to use exact swap energies.
func TestLogisticOutputUnits(t *testing.T) {
	data := smallCSV(t)
	for _, c := range []struct {
		args     []string
		scale    bool
		hotBatch string // in chain-1.csv's settings
	}{
		// τ2 = 10⁶: no swap is accepted, so the remedies are given.
		{[]string{"--method", "fresgld", "--swap-energies", "exact", "--tau2", "1e6"}, true, "#   hot_batch = auto (from "},
		{[]string{"--method", "sgld", "--no-standardize"}, false, "#   hot_batch = 0"},
	} {
		out := t.TempDir()
		args := append([]string{"logistic", "--data", data, "--label", "y", "--chains", "2", "--burn", "50", "--keep", "50", "--thin", "1", "--out", out}, c.args...)
		stdout := captureStdout(t, func() error { _, _ = cli(t, args...); return nil })
		if got := strings.Contains(stdout, "coefficients on the standardised scale"); got != c.scale {
			t.Errorf("%v: the table says standardised: %v, want %v", c.args, got, c.scale)
		}
		// A standardised run's table continues with the coefficients on
		// the data's scale, summarised from the transformed draws.
		if got := strings.Contains(stdout, "on the data's scale (the same draws transformed one by one"); got != c.scale {
			t.Errorf("%v: the table has the data's scale: %v, want %v", c.args, got, c.scale)
		}
		csv, _ := os.ReadFile(results.ChainFile(out, 1))
		if !strings.Contains(string(csv), c.hotBatch) {
			t.Errorf("%v: chain-1.csv lacks %q", c.args, c.hotBatch)
		}
		var sum struct {
			Settings struct {
				HotBatch int `json:"hot_batch"`
			} `json:"settings"`
			Auto     []struct{ N int } `json:"hot_batch_automatic"`
			Warnings []string          `json:"warnings"`
		}
		readSummaryInto(t, out, &sum)
		if len(sum.Auto) > 0 && (sum.Settings.HotBatch < 1 || sum.Settings.HotBatch != sum.Auto[0].N && sum.Settings.HotBatch != sum.Auto[1].N) {
			t.Errorf("%v: summary.json records hot_batch %d, chosen %+v", c.args, sum.Settings.HotBatch, sum.Auto)
		}
		told := false
		for _, w := range sum.Warnings {
			told = told || strings.Contains(w, "no swap accepted")
			if strings.Contains(w, "--swap-energies exact") {
				t.Errorf("%v: a run on exact swap energies is told %q", c.args, w)
			}
		}
		if c.scale && !told {
			t.Errorf("%v: no warning of unaccepted swaps: %q", c.args, sum.Warnings)
		}
	}
}

// logisticFuzzFlags are the flags FuzzLogisticFlags combines.
var logisticFuzzFlags = []string{"--keep", "--thin", "--burn", "--eta", "--batch", "--hot-batch", "--swap-batch", "--tau2", "--prior-sd",
	"--swap-rate", "--swap-pilot", "--exact-every", "--levels", "--hot-share", "--swap-noise-cap", "--chain", "--chains", "--seed",
	"--method", "--swap-energies", "--correction", "--no-header", "--drop-constant"}

// FuzzLogisticFlags: any two flags with any values, on a data file that
// does not exist, get an error that names a flag (the data's among them),
// never a panic and never a run. `go test ./cmd/fresgld -fuzz
// FuzzLogisticFlags` explores further; the seeds run with the suite.
func FuzzLogisticFlags(f *testing.F) {
	for _, s := range []struct {
		a  uint8
		av string
		b  uint8
		bv string
	}{
		{0, "0", 1, "1"}, {0, "1e12", 2, "auto"}, {3, "fast", 4, "-1"}, {9, "0", 10, "0"}, {11, "-1", 12, "1"},
		{15, "0", 16, "1000000000000"}, {17, "-1", 18, "reld"}, {18, "sgld", 12, "3"}, {18, "corrected", 19, "exact"},
		{8, "1e-200", 7, "NaN"}, {13, "Inf", 14, "-0"}, {21, "maybe", 22, "true"}, {1, "1000000000", 0, "5000"},
	} {
		f.Add(s.a, s.av, s.b, s.bv)
	}
	missing := filepath.Join(f.TempDir(), "missing.csv")
	out := filepath.Join(f.TempDir(), "out")
	f.Fuzz(func(t *testing.T, a uint8, av string, b uint8, bv string) {
		fa, fb := logisticFuzzFlags[int(a)%len(logisticFuzzFlags)], logisticFuzzFlags[int(b)%len(logisticFuzzFlags)]
		code, said := cli(t, "logistic", "--data", missing, "--label", "y", "--out", out, fa+"="+av, fb+"="+bv)
		if code != 1 || !strings.HasPrefix(said, "--") || strings.Contains(said, "panic") || strings.Contains(said, "strconv") {
			t.Errorf("%s=%q %s=%q: exit %d, said %q; want exit 1 and an error that starts with the flag", fa, av, fb, bv, code, said)
		}
	})
}
