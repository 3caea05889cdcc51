// Command ess measures effective samples per CPU-second of preconditioned
// Langevin chains on a Bayesian logistic regression, the library path that
// issue 22's defaults are to take: the chains start at the mode, step in the
// coordinates where the Hessian at the mode is I (langevin.Precond), and
// draw their gradients either on the full data or as control-variate
// minibatches about the mode (energy.CVGrad). It prints the smallest bulk
// ESS and largest R̂ over the coefficients (as R's posterior package
// computes them), the CPU time of the sampling, and writes the standardised
// design and the chains' means and sds for nuts.R, which runs Stan's NUTS on
// the same data (see run.sh).
//
//	go run ./bench/ess --data FILE.csv --label y [--batch n] [--eta η] [--draws K]
//
// With --command BIN it runs a fresgld command with its defaults instead and
// times the whole process, the model processes of sample included:
// --model logistic (fresgld logistic), regress (fresgld regress --exact,
// the spike-and-slab linear regression; its largest inclusion error is
// what counts) or sample (fresgld sample on the Python logistic example,
// examples/protocol/logistic.py, with --features).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"

	"gonum.org/v1/gonum/mat"
)

func main() {
	file := flag.String("data", "", "CSV file (default: the shipped breast-cancer data, label benign)")
	label := flag.String("label", "benign", "label column")
	batch := flag.Int("batch", 0, "control-variate minibatch size (0: full-data gradients)")
	eta := flag.Float64("eta", 0.1, "step size in the preconditioned coordinates (the Euler bias inflates variances by about 1/(1 − η/2))")
	draws := flag.Int("draws", 2000, "draws kept per chain (after a burn-in of ⌈5/η⌉ steps)")
	thin := flag.Int("thin", 5, "steps per draw kept")
	chains := flag.Int("chains", 4, "chains")
	out := flag.String("out", filepath.Join(os.TempDir(), "fresgld-ess"), "directory for design.csv and fresgld.json")
	useMALA := flag.Bool("mala", false, "preconditioned MALA on full-data gradients and energies (step adapted during the burn-in to acceptance 0.574) instead of unadjusted Langevin")
	ref := flag.String("reference", "", "a long MALA reference of the same posterior (minibatch.Reference JSON) to print the errors against")
	command := flag.String("command", "", "a fresgld binary: run the --model's command on --data with no other flag (its defaults), time its whole process (user + system CPU, its children's included) and read its summary.json")
	model := flag.String("model", "logistic", "with --command: logistic (`BIN logistic`), regress (`BIN regress --exact`; default data data/diabetes.csv, label progression) or sample (`BIN sample --model-cmd 'python3 examples/protocol/logistic.py FILE FEATURES'`)")
	features := flag.String("features", "mean_radius,mean_texture,mean_smoothness,mean_concave_points", "--model sample: the features the Python example uses, comma-separated")
	plan := flag.Bool("plan", false, "the default plan of fresgld logistic (plan.NewLogConcave: its gradient rule, step and run length; --batch, --eta, --thin and --mala are then ignored)")
	flag.Parse()
	var err error
	labelSet := false
	flag.Visit(func(f *flag.Flag) { labelSet = labelSet || f.Name == "label" })
	if *command != "" && *model == "regress" && !labelSet {
		*label = "progression"
	}
	if *command != "" {
		err = runCommand(*command, *model, *file, *label, *features, *out, *ref)
	} else {
		err = run(*file, *label, *batch, *eta, *draws, *thin, *chains, *out, *ref, *useMALA, *plan)
	}
	benchmain.Check("ess", err)
}

func run(file, label string, batch int, eta float64, draws, thin, chains int, out, ref string, useMALA, plan bool) error {
	raw, name := data.WDBC, "wdbc.csv"
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		raw, name = b, file
	}
	d, err := dataset.Read(bytes.NewReader(raw), name, dataset.Options{Label: label})
	if err != nil {
		return err
	}
	x, p := d.WithIntercept()
	l, err := models.NewLogistic(x, d.Y, p, minibatch.PriorSD)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeDesign(filepath.Join(out, "design.csv"), x, d.Y, p); err != nil {
		return err
	}
	if plan {
		return runPlan(l, d.N, p, draws, chains, out, ref)
	}
	start := cputime.Process()
	// The mode by Newton's method with exact gradients and, where N·p² is
	// large, the Hessian of a random subset of 5·10⁸/p² examples (as the
	// logistic command does): a preconditioner needs H only roughly.
	rows := rand.New(rand.NewPCG(1, 1<<42)).Perm(l.Len())[:min(l.Len(), int(math.Ceil(5e8/float64(p*p))))]
	mode, h, err := l.Mode(make([]float64, p), rows, 100)
	if err != nil {
		return err
	}
	pc, err := langevin.NewPrecond(h)
	if err != nil {
		return err
	}
	setup := cputime.Process() - start
	// Full-data gradients as a minibatch of all N: its linear-model path
	// takes rows four at a time, several times faster than one Term call
	// per example.
	var est energy.Estimator
	if batch > 0 {
		est, err = energy.NewCVGrad(l, mode, batch)
	} else {
		est, err = energy.NewMinibatch(l, d.N)
	}
	if err != nil {
		return err
	}
	burn := int(math.Ceil(5 / eta))
	trace := make([][][]float64, p) // [coefficient][chain][draw]
	for j := range trace {
		trace[j] = make([][]float64, chains)
	}
	start = cputime.Process()
	for c := range chains {
		if useMALA {
			if err := malaChain(l, mode, h, burn, draws, thin, uint64(c+1), trace, c); err != nil {
				return err
			}
			continue
		}
		e := est
		if cl, ok := est.(energy.Cloner); ok {
			e = cl.Clone()
		}
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: e, Eta: langevin.Constant{Step: eta}, Precond: pc}}, Seed: exchange.ChainSeed(1, c+1)}, [][]float64{mode})
		if err != nil {
			return err
		}
		if err := record(s, burn, draws, thin, trace, c); err != nil {
			return err
		}
	}
	cpu := cputime.Process() - start
	res := result{Batch: batch, Eta: eta, Draws: draws, Thin: thin, Chains: chains, CPUSeconds: cpu.Seconds(), SetupSeconds: setup.Seconds()}
	return report(res, trace, d.N, p, kind(batch, useMALA), out, ref)
}

// report summarises the chains' draws, prints the line and the errors
// against a reference, and writes fresgld.json.
func report(res result, trace [][][]float64, N, p int, what, out, ref string) error {
	minESS, maxR := math.Inf(1), 0.0
	for j := range p {
		sm := diag.Summarize(trace[j])
		minESS = math.Min(minESS, sm.ESSBulk)
		maxR = math.Max(maxR, sm.Rhat)
		res.Mean = append(res.Mean, sm.Mean)
		res.SD = append(res.SD, sm.SD)
		res.MCSE = append(res.MCSE, sm.MCSEMean)
	}
	res.MinESS, res.MaxRhat = minESS, maxR
	fmt.Printf("fresgld: N = %d, p = %d, %s gradients, η = %.3g, %d chains × %d draws (thin %d): smallest bulk ESS %.0f, largest R̂ %.4f, %.2f CPU s sampling (+%.2f s mode, Hessian and pilot): %.0f bulk ESS per CPU-s (%.0f with the setup)\n",
		N, p, what, res.Eta, res.Chains, res.Draws, res.Thin, minESS, maxR, res.CPUSeconds, res.SetupSeconds, minESS/res.CPUSeconds, minESS/(res.CPUSeconds+res.SetupSeconds))
	return finish(res, p, out, ref)
}

// finish prints the errors against a reference and writes fresgld.json.
func finish(res result, p int, out, ref string) error {
	if ref != "" {
		r, err := minibatch.LoadReference(ref, p)
		if err != nil {
			return err
		}
		var worstMean, worstSD, worstZ float64
		for j := range p {
			worstMean = math.Max(worstMean, math.Abs(res.Mean[j]-r.Mean[j])/r.SD[j])
			worstSD = math.Max(worstSD, math.Abs(res.SD[j]/r.SD[j]-1))
			worstZ = math.Max(worstZ, math.Abs(res.Mean[j]-r.Mean[j])/math.Hypot(res.MCSE[j], r.MeanSE[j]))
		}
		fmt.Printf("against the reference %s: largest |mean error| %.3f posterior sd (%.1f combined MCSE), largest |sd/sd_ref − 1| %.3f\n", ref, worstMean, worstZ, worstSD)
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "fresgld.json"), b, 0o644)
}

type result struct {
	Batch, Draws, Thin, Chains int
	Eta                        float64
	CPUSeconds, SetupSeconds   float64
	MinESS, MaxRhat            float64
	Mean, SD, MCSE             []float64
	InclusionErr               float64 `json:",omitempty"`
}

// writeDesign writes the standardised design with its intercept column and
// the label, so that Stan samples exactly the posterior the chains do.
func writeDesign(path string, x, y []float64, p int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, yi := range y {
		for j := range p {
			fmt.Fprintf(w, "%.17g,", x[i*p+j])
		}
		fmt.Fprintf(w, "%.17g\n", yi)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func kind(batch int, useMALA bool) string {
	switch {
	case useMALA:
		return "MALA, full-data"
	case batch > 0:
		return fmt.Sprintf("control-variate n = %d", batch)
	}
	return "full-data"
}

// malaChain runs one preconditioned MALA chain (mala.Affine with LLᵀ = H⁻¹)
// from the mode into chain c of trace.
func malaChain(l *models.Logistic, mode []float64, h *mat.SymDense, burn, draws, thin int, seed uint64, trace [][][]float64, c int) error {
	p := len(mode)
	var inv mat.SymDense
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return fmt.Errorf("the Hessian at the mode is not positive definite")
	}
	if err := ch.InverseTo(&inv); err != nil {
		return err
	}
	var ci mat.Cholesky
	if !ci.Factorize(&inv) {
		return fmt.Errorf("the inverse Hessian is not positive definite")
	}
	var lt mat.TriDense
	ci.LTo(&lt)
	L := make([]float64, p*p)
	for i := range p {
		for j := 0; j <= i; j++ {
			L[i*p+j] = lt.At(i, j)
		}
	}
	a := mala.NewAffine(l, mode, L)
	r, err := mala.Run(a, make([]float64, p), mala.Config{Step: 0.5, Burn: burn, Keep: draws, Thin: thin, Seed: seed, Adapt: true})
	if err != nil {
		return err
	}
	theta := make([]float64, p)
	for k := range draws {
		a.Theta(theta, r.Samples[k*p:(k+1)*p])
		for j, v := range theta {
			trace[j][c] = append(trace[j][c], v)
		}
	}
	return nil
}

// runPlan runs the default plan of fresgld logistic in process: the mode,
// preconditioner, gradient rule, step, starts and run length of
// plan.NewLogConcave.
func runPlan(l *models.Logistic, N, p, draws, chains int, out, ref string) error {
	start := cputime.Process()
	lc, err := plan.NewLogConcave(l, 1)
	if err != nil {
		return err
	}
	setup := cputime.Process() - start
	fmt.Println("plan:", lc.Note())
	burn, thin, iat := lc.RunLength(draws)
	trace := make([][][]float64, p)
	for j := range trace {
		trace[j] = make([][]float64, chains)
	}
	start = cputime.Process()
	for c := range chains {
		s, err := lc.Sampler(1, c+1)
		if err != nil {
			return err
		}
		if err := record(s, burn, draws, thin, trace, c); err != nil {
			return err
		}
	}
	cpu := cputime.Process() - start
	res := result{Batch: lc.Choice.Batch, Eta: lc.Eta, Draws: draws, Thin: thin, Chains: chains, CPUSeconds: cpu.Seconds(), SetupSeconds: setup.Seconds()}
	what := "MALA, full-data"
	if lc.Choice.CV {
		what = fmt.Sprintf("control-variate n = %d", lc.Choice.Batch)
	}
	fmt.Printf("run length: burn %d, thin %d (τ_int = %.3g steps in φ)\n", burn, thin, iat)
	return report(res, trace, N, p, what, out, ref)
}

// runCommand runs the fresgld binary bin's command for model (logistic,
// regress or sample) with its defaults on file, writes the design for
// nuts.R, and reports the run's smallest bulk ESS, largest R̂, means and,
// for regress, largest inclusion error from its summary.json against the
// whole process's CPU time (reading, mode, pilot, sampling, summaries,
// figures, and the model processes of sample, which it waits for).
func runCommand(bin, model, file, label, features, out, ref string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	dir := filepath.Join(out, "run")
	var args []string
	var p, N int
	switch model {
	case "logistic", "sample":
		if file == "" {
			file = "data/wdbc.csv"
		}
		d, err := dataset.ReadFile(file, dataset.Options{Label: label})
		if err != nil {
			return err
		}
		x, q := d.WithIntercept()
		if model == "sample" {
			if x, q, err = pick(d, strings.Split(features, ",")); err != nil {
				return err
			}
			script := filepath.Join("examples", "protocol", "logistic.py")
			args = []string{"sample", "--model-cmd", fmt.Sprintf("python3 %s %s %s", script, file, features)}
		} else {
			args = []string{"logistic", "--data", file, "--label", label}
		}
		if err := writeDesign(filepath.Join(out, "design.csv"), x, d.Y, q); err != nil {
			return err
		}
		p, N = q, d.N
	case "regress":
		if file == "" {
			file = "data/diabetes.csv"
		}
		d, err := dataset.ReadFile(file, dataset.Options{Label: label, Response: true})
		if err != nil {
			return err
		}
		// fresgld regress's defaults: noise sd from the least-squares fit,
		// w = 0.5, s0 = 0.02, s1 = 1.
		pr := models.SlabPrior{W: 0.5, Spike: 0.02, Slab: 1}
		lr, _, err := analysis.Regression(file, d, 0, pr)
		if err != nil {
			return err
		}
		exact, err := lr.Exact()
		if err != nil {
			return err
		}
		if err := writeRegress(out, lr, pr, exact.Inclusion); err != nil {
			return err
		}
		args = []string{"regress", "--data", file, "--label", label, "--exact"}
		p, N = d.P, d.N
	default:
		return fmt.Errorf("--model %q: logistic, regress or sample", model)
	}
	cmd := exec.Command(bin, append(args, "--out", dir)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Println("$", strings.Join(cmd.Args, " "))
	if err := cmd.Run(); err != nil {
		return err
	}
	// The rusage of a waited-for process includes its waited-for children.
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return err
	}
	var sum struct {
		Draws      int `json:"draws_per_chain"`
		Parameters []struct {
			Variable string  `json:"variable"`
			Mean     float64 `json:"mean"`
			SD       float64 `json:"sd"`
			MCSEMean float64 `json:"mcse_mean"`
			ESSBulk  float64 `json:"ess_bulk"`
			Rhat     float64 `json:"rhat"`
		} `json:"parameters"`
		Distance *struct {
			InclusionErr float64 `json:"max_inclusion_error"`
			Variable     string  `json:"max_inclusion_error_variable"`
		} `json:"distance_to_exact"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return err
	}
	res := result{Draws: sum.Draws, Chains: 4, CPUSeconds: cpu.Seconds(), MinESS: math.Inf(1)}
	for _, r := range sum.Parameters {
		if r.Variable == "lp__" || strings.HasPrefix(r.Variable, "inclusion") || strings.HasSuffix(r.Variable, "_included") || len(res.Mean) == p {
			continue
		}
		res.MinESS = math.Min(res.MinESS, r.ESSBulk)
		res.MaxRhat = math.Max(res.MaxRhat, r.Rhat)
		res.Mean, res.SD, res.MCSE = append(res.Mean, r.Mean), append(res.SD, r.SD), append(res.MCSE, r.MCSEMean)
	}
	if len(res.Mean) != p {
		return fmt.Errorf("%s: %d coefficients, the design has %d", filepath.Join(dir, "summary.json"), len(res.Mean), p)
	}
	fmt.Printf("fresgld %s (defaults): N = %d, p = %d: smallest bulk ESS %.0f, largest R̂ %.4f, %.2f CPU s for the whole process: %.0f bulk ESS per CPU-s\n",
		args[0], N, p, res.MinESS, res.MaxRhat, res.CPUSeconds, res.MinESS/res.CPUSeconds)
	if model == "regress" {
		if sum.Distance == nil {
			return fmt.Errorf("%s: no distance_to_exact", filepath.Join(dir, "summary.json"))
		}
		res.InclusionErr = sum.Distance.InclusionErr
		fmt.Printf("fresgld regress: largest |inclusion − exact| %.4f (%s) at %.2f CPU s\n", res.InclusionErr, sum.Distance.Variable, res.CPUSeconds)
	}
	return finish(res, p, out, ref)
}

// pick is the design of the Python example: an intercept and the named
// features of d, standardised as d holds them.
func pick(d *dataset.Data, names []string) (x []float64, p int, err error) {
	cols := make([]int, len(names))
	for k, n := range names {
		j := slices.Index(d.Names, n)
		if j < 0 {
			return nil, 0, fmt.Errorf("--features: no column %q", n)
		}
		cols[k] = j
	}
	p = 1 + len(cols)
	for i := range d.N {
		x = append(x, 1)
		for _, j := range cols {
			x = append(x, d.X[i*d.P+j])
		}
	}
	return x, p, nil
}

// writeRegress writes the regression's design (standardised features and
// response), its noise sd and prior (prior.csv) and the exact inclusion
// probabilities (exact_inclusion.csv) for nuts.R.
func writeRegress(out string, lr *models.LinReg, pr models.SlabPrior, incl []float64) error {
	if err := writeDesign(filepath.Join(out, "design.csv"), lr.X, lr.Y, lr.P); err != nil {
		return err
	}
	prior := fmt.Sprintf("sigma,w,s0,s1\n%.17g,%.17g,%.17g,%.17g\n", lr.Sigma, pr.W, pr.Spike, pr.Slab)
	if err := os.WriteFile(filepath.Join(out, "prior.csv"), []byte(prior), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("inclusion\n")
	for _, v := range incl {
		fmt.Fprintf(&b, "%.17g\n", v)
	}
	return os.WriteFile(filepath.Join(out, "exact_inclusion.csv"), []byte(b.String()), 0o644)
}

// record runs s for burn steps, then keeps every thin-th state of draws
// in trace[j][c], coordinate j of chain c.
func record(s *exchange.Sampler, burn, draws, thin int, trace [][][]float64, c int) error {
	s.FreezeAfter(burn) // any adaptation ends with the burn-in
	for k := range burn + draws*thin {
		if err := s.Step(); err != nil {
			return err
		}
		if k >= burn && (k-burn)%thin == thin-1 {
			for j, v := range s.State(0) {
				trace[j][c] = append(trace[j][c], v)
			}
		}
	}
	return nil
}
