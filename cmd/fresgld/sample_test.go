package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/models"
)

// The test binary doubles as a model process: with FRESGLD_TEST_MODEL set
// it serves a logistic regression over the protocol and, with
// FRESGLD_TEST_DIE_AFTER = k, exits after its k-th batch.
func TestMain(m *testing.M) {
	if os.Getenv("FRESGLD_TEST_MODEL") != "" {
		os.Exit(serveTestModel())
	}
	os.Exit(m.Run())
}

func testModel() *models.Logistic {
	l, _, err := models.SyntheticLogistic(200, 3, 1, 5)
	if err != nil {
		panic(err)
	}
	return l
}

// dying exits the process at its k-th batch, as a crashing model would.
type dying struct {
	energy.BatchTerms
	k int
}

func (d *dying) Batch(m *energy.Moments, x, y []float64, idx []int32) {
	if d.k--; d.k == 0 {
		fmt.Fprintln(os.Stderr, "the test model crashes on purpose")
		os.Exit(3)
	}
	d.BatchTerms.Batch(m, x, y, idx)
}

// flipped answers its terms' gradients with coordinate 2's sign flipped,
// as a model with a sign error in its gradient would (FRESGLD_TEST_FLIP).
type flipped struct{ energy.BatchTerms }

func (f flipped) Batch(m *energy.Moments, x, y []float64, idx []int32) {
	f.BatchTerms.Batch(m, x, y, idx)
	if m.G != nil {
		m.G[1], m.GSum[1] = -m.G[1], -m.GSum[1]
	}
}

func serveTestModel() int {
	var t energy.Terms = testModel()
	if k, _ := strconv.Atoi(os.Getenv("FRESGLD_TEST_DIE_AFTER")); k > 0 {
		t = &dying{energy.NewPerTerm(t), k}
	}
	if os.Getenv("FRESGLD_TEST_FLIP") != "" {
		t = flipped{energy.NewPerTerm(t)}
	}
	if err := modelproc.Serve(t, []string{"a", "b", "c"}, true, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func testModelCmd(dieAfter int) string {
	return fmt.Sprintf("FRESGLD_TEST_MODEL=1 FRESGLD_TEST_DIE_AFTER=%d exec '%s'", dieAfter, os.Args[0])
}

// draws counts the draws of a chain CSV: its lines that are neither
// comments nor the header.
func draws(t *testing.T, path string) int {
	b := readFile(t, path)
	n := -1 // the header
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// A model process runs a whole analysis: the chains' files hold every
// draw under the model's parameter names.
func TestSampleGoModel(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "sample", "--model-cmd", testModelCmd(0), "--keep", "200", "--chains", "2", "--out", out)
	for _, c := range []string{"chain-1.csv", "chain-2.csv"} {
		if n := draws(t, filepath.Join(out, c)); n != 200 {
			t.Errorf("%s: %d draws, want 200", c, n)
		}
	}
	// A copy of the model per chain, and as many as --model-procs says.
	for _, c := range []struct{ procs, want string }{{"0", "2"}, {"1", "1"}} {
		dir := t.TempDir()
		mustRun(t, "sample", "--model-cmd", testModelCmd(0), "--keep", "20", "--chains", "2", "--model-procs", c.procs, "--out", dir)
		b := readFile(t, filepath.Join(dir, "summary.json"))
		if want := `"model_processes": ` + c.want + ","; !strings.Contains(string(b), want) {
			t.Errorf("--model-procs %s: summary.json does not say %s", c.procs, want)
		}
	}
	head := readFile(t, filepath.Join(out, "chain-1.csv"))
	if want := "#   model_cmd = " + testModelCmd(0) + "\n"; !strings.Contains(string(head), want) {
		t.Errorf("chain-1.csv does not record the model command: no line %q", want)
	}
	sum := readFile(t, filepath.Join(out, "summary.txt"))
	for _, name := range []string{"lp__", "a ", "b ", "c "} {
		if !strings.Contains(string(sum), "\n"+name) {
			t.Errorf("summary.txt has no row %q:\n%s", name, sum)
		}
	}
}

// A model that dies in the middle of the run stops it with an error that
// names the request and quotes the model's last words, and the draws taken
// before are kept and summarised.
func TestSampleModelDies(t *testing.T) {
	out := t.TempDir()
	// The ladder's set-up (the mode, the pilots, the clamp's check) takes
	// some 2,300 requests and the run 6,400 more: the model dies in the run.
	err := run(t, "sample", "--model-cmd", testModelCmd(4000), "--method", "fresgld", "--keep", "2000", "--burn", "200", "--thin", "1", "--chains", "1", "--out", out)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"request terms", "examples at θ = [", "exited (exit status 3)", "the test model crashes on purpose"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("no summary of the draws taken: %v", err)
	}
	if regexp.MustCompile(`stopped after [^"]*lower --eta`).Match(sum) || !strings.Contains(string(sum), "the step size is not the cause") {
		t.Errorf("summary.json blames the chain's stop on the step size, not the model:\n%s", sum)
	}
	if n := draws(t, filepath.Join(out, "chain-1.csv")); n < 1 || n >= 2000 {
		t.Errorf("chain-1.csv holds %d draws, want some but not all 2000", n)
	}
	// The report says the run failed and why, with the model's own words
	// and exit status, which summary.json keeps.
	var js struct {
		ModelError string `json:"model_error"`
	}
	if err := json.Unmarshal(sum, &js); err != nil || !strings.Contains(js.ModelError, "exit status 3") || !strings.Contains(js.ModelError, "crashes on purpose") {
		t.Errorf("summary.json's model_error %q (%v), want the exit status and the model's stderr", js.ModelError, err)
	}
	page := readFile(t, filepath.Join(out, "report.html"))
	for _, want := range []string{`class="verdict failed"`, "Why the run failed", "exit status 3", "crashes on purpose"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// sample names its swap energies' reason truthfully: its own default when
// --swap-energies is not given, the flag when it is; and a ladder's run
// prints its swap lines (noise and cost), as the other commands' do.
func TestSampleSwapEnergiesRule(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"--method", "fresgld"}, "swap energies: exact (sample's default", "set by --swap-energies"},
		{[]string{"--method", "fresgld", "--swap-energies", "exact"}, "swap energies: exact (set by --swap-energies)", "sample's default"},
	} {
		var stderr bytes.Buffer
		rootCmd.SetErr(&stderr)
		stdout, err := stdoutOf(t, append([]string{"sample", "--model-cmd", testModelCmd(0), "--keep", "50", "--chains", "1", "--out", t.TempDir()}, c.args...)...)
		rootCmd.SetErr(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := stderr.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%v: stderr %q, want %q and not %q", c.args, got, c.want, c.not)
		}
		if !strings.Contains(stdout, "swap cost: ") {
			t.Errorf("%v: stdout has no swap lines:\n%s", c.args, stdout)
		}
	}
}

// Bad flags are refused before any model starts.
func TestSampleFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--model-cmd: no command given"},
		{[]string{"--model-cmd", "  \t "}, "--model-cmd: no command given"},
		{[]string{"--model-cmd", "true", "--model-timeout", "0s"}, "--model-timeout = 0s"},
		{[]string{"--model-cmd", "true", "--model-procs", "-1"}, "--model-procs = -1"},
		{[]string{"--model-cmd", "echo nonsense"}, `--model-cmd: model process "echo nonsense": request handshake`},
		// Refused before the model runs: a model that ran would not say this.
		{[]string{"--model-cmd", "echo nonsense", "--method", "fresgld", "--tau2", "0.5"}, "--tau2 = 0.5"},
		{[]string{"--model-cmd", "echo nonsense", "--method", "fresgld", "--swap-energies", "bogus"}, `--swap-energies: unknown swap-energy mode "bogus"`},
		{[]string{"--model-cmd", "echo nonsense", "--tau2", "8"}, "--method auto (the default) chooses its own sampler"},
		{[]string{"--model-cmd", "echo nonsense", "--adapt-delta", "1"}, "--adapt-delta = 1: must lie in (0, 1)"},
		{[]string{"--model-cmd", "echo nonsense", "--method", "nuts", "--adapt-delta", "NaN"}, "--adapt-delta = NaN"},
		{[]string{"--model-cmd", "echo nonsense", "--method", "fresgld", "--adapt-delta", "0.9"}, "--adapt-delta: --method fresgld runs no NUTS"},
	} {
		err := run(t, append([]string{"sample", "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}

// The Python and R examples of docs/model-protocol.md sample end to end
// where their interpreters are installed.
func TestSampleScripts(t *testing.T) {
	l := testModel()
	var csv strings.Builder
	csv.WriteString("a,b,c,y\n")
	for i := range l.Len() {
		for _, v := range l.Row(i) {
			csv.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		fmt.Fprintf(&csv, "%v\n", l.Y[i])
	}
	data := writeFile(t, "data.csv", csv.String())
	dir, _ := filepath.Abs("../../examples/protocol")
	for _, c := range []struct{ program, script string }{{"python3", "logistic.py"}, {"Rscript", "logistic.R"}} {
		t.Run(c.program, func(t *testing.T) {
			if _, err := exec.LookPath(c.program); err != nil {
				t.Skipf("%s is not installed: its example is not run", c.program)
			}
			out := t.TempDir()
			cmd := fmt.Sprintf("%s '%s' '%s'", c.program, filepath.Join(dir, c.script), data)
			mustRun(t, "sample", "--model-cmd", cmd, "--keep", "100", "--chains", "1", "--burn", "200", "--thin", "1", "--out", out)
			if n := draws(t, filepath.Join(out, "chain-1.csv")); n != 100 {
				t.Errorf("%d draws, want 100", n)
			}
		})
	}
}

// A model whose gradient has a sign error is refused before it is
// sampled, naming the coordinate: it would have sampled another posterior
// with every diagnostic fine.
func TestSampleRefusesWrongGradient(t *testing.T) {
	cmd := fmt.Sprintf("FRESGLD_TEST_MODEL=1 FRESGLD_TEST_FLIP=1 exec '%s'", os.Args[0])
	err := run(t, "sample", "--model-cmd", cmd, "--keep", "20", "--chains", "1", "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "gradient disagrees") || !strings.Contains(err.Error(), "∂U/∂b") {
		t.Errorf("a gradient with coordinate b's sign flipped: %v", err)
	}
}
