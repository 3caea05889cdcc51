package tempering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/experiments/multimodal"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// Size is the study's size.
type Size struct {
	Seeds int  // runs (4 chains each) per method and workload
	Keep  int  // draws a chain of the plan's runs (0: the plan's own, 1000)
	NUTS  bool // run NUTS through rstan where installed
	// Workloads, if set, are the names of those to run.
	Workloads []string
	// Methods, if set, are the methods to run besides the default (whose
	// CPU time sets the others'), by their Key; NUTS is "nuts".
	Methods []string
}

// Key is the method's name as --methods takes it: its Name, hyphenated.
func (m Method) Key() string { return strings.ReplaceAll(m.Name, " ", "-") }

// ErrNoMethod is the error, wrapped, for a name that is no method's.
var ErrNoMethod = errors.New("no method")

// checkMethods refuses a name in names that is no method's Key or "nuts".
func checkMethods(names []string) error {
	keys := []string{}
	for _, m := range Methods {
		keys = append(keys, m.Key())
	}
	keys = append(keys, "nuts")
	for _, n := range names {
		if !slices.Contains(keys, n) {
			return fmt.Errorf("%w %q (there are %s)", ErrNoMethod, n, strings.Join(keys, ", "))
		}
	}
	return nil
}

// runs reports whether the size runs the method of key k.
func (sz Size) runs(k string) bool {
	return len(sz.Methods) == 0 || k == "default" || slices.Contains(sz.Methods, k)
}

// Full is the published study's size; Smoke a seconds-long run for tests.
var (
	Full  = Size{Seeds: 5, NUTS: true}
	Smoke = Size{Seeds: 2, Keep: 100}
)

// Stretch is how much longer than the default's CPU time the other
// methods run, so that their estimate at the default's CPU time is read
// from their own draws, not extrapolated.
const Stretch = 1.25

// Row is one method's runs on one workload.
type Row struct {
	Method string
	Runs   []*Run
	// Pooled is the mean over runs of the estimates at the target CPU
	// time, Err its largest error (at coefficient Coef) and MCSE the
	// runs' sd over √runs there.
	Pooled           []float64
	Err, MCSE        float64
	Coef             string
	RunErr, RunErrSE float64 // mean over runs of each run's own error at the target, and its se
	CPU              float64 // mean CPU seconds a run (the whole run)
	Note             string
}

// Result is one workload's rows.
type Result struct {
	Workload *Workload
	Target   float64 // the default's mean CPU seconds a run
	Rows     []Row
	NUTSNote string
}

// Measure runs the study; progress, if set, hears after each method. work
// is a directory for NUTS's files. Once ctx is done it stops at the run
// under way (its error wraps results.ErrInterrupted); on any error it
// returns the workloads finished before it, for the caller to keep.
func Measure(ctx context.Context, sz Size, work string, progress func(string)) ([]*Result, error) {
	if err := checkMethods(sz.Methods); err != nil {
		return nil, fmt.Errorf("--methods: %w", err)
	}
	ws, err := Workloads(sz.Workloads...)
	if errors.Is(err, ErrNoWorkload) {
		return nil, fmt.Errorf("--workloads: %w", err)
	}
	if err != nil {
		return nil, err
	}
	var out []*Result
	for _, w := range ws {
		r, err := measure(ctx, w, sz, work, progress)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func measure(ctx context.Context, w *Workload, sz Size, work string, progress func(string)) (*Result, error) {
	res := &Result{Workload: w}
	say := func(row Row) {
		if progress != nil {
			progress(fmt.Sprintf("%s %s: largest %s error %.4f ± %.4f (%s) at %.3g CPU s; a run's own %.4f ± %.4f, %.3g CPU s a run", w.Name, row.Method, w.Quantity, row.Err, row.MCSE, row.Coef, res.Target, row.RunErr, row.RunErrSE, row.CPU))
		}
	}
	for _, m := range Methods {
		if !sz.runs(m.Key()) {
			continue
		}
		l := Length{Keep: sz.Keep}
		note := ""
		if m.Name != "default" {
			var err error
			if l, note, err = lengthFor(ctx, w, m, sz, res.Target); err != nil {
				return nil, err
			}
		}
		var runs []*Run
		for s := range sz.Seeds {
			r, err := runOnce(ctx, w, m, uint64(s+1), l, res.Target)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
		row := pool(w, m.Name, runs)
		row.Note = note
		if m.Name == "default" {
			res.Target = row.CPU
		}
		res.Rows = append(res.Rows, row)
		say(row)
	}
	if !sz.NUTS || !sz.runs("nuts") {
		res.NUTSNote = "NUTS not run (--smoke, --nuts=false or --methods)"
		return res, nil
	}
	runs, err := nuts(ctx, w, sz.Seeds, res.Target, work)
	switch {
	case errors.Is(err, results.ErrInterrupted):
		return nil, err
	case errors.Is(err, multimodal.ErrNoR):
		res.NUTSNote = "NUTS not run: " + err.Error()
	case err != nil:
		res.NUTSNote = "NUTS failed: " + err.Error()
	default:
		row := pool(w, "NUTS", runs)
		res.Rows = append(res.Rows, row)
		say(row)
	}
	return res, nil
}

// lengthFor is the length at which m runs on w for about Stretch × target
// CPU seconds: the plan's own length, kept longer as needed, for a plan
// method; for the others, from a pilot of 1000 steps a chain on seed 1
// that measures the CPU time a step.
func lengthFor(ctx context.Context, w *Workload, m Method, sz Size, target float64) (Length, string, error) {
	keep := sz.Keep
	if keep == 0 {
		keep = plan.PlanKeep
	}
	if m.Plan {
		r, err := runOnce(ctx, w, m, 1, Length{Keep: keep}, 0)
		if err != nil {
			return Length{}, "", err
		}
		if r.CPU >= Stretch*target {
			return Length{Keep: keep}, "", nil
		}
		// More draws at the plan's thinning: given the draws alone, the
		// plan would thin less for the same ESS (RunLength).
		f := (Stretch*target - r.Setup) / (r.CPU - r.Setup)
		k := int(math.Ceil(f * float64(keep)))
		return Length{Keep: k, Thin: r.Thin}, fmt.Sprintf("%d draws a chain at the plan's thinning %d, its run ×%.2g, for the default's CPU time", k, r.Thin, f), nil
	}
	// Two pilots on seed 1, of 2,000 and 20,000 steps a chain: the CPU a
	// step is their difference over 18,000 steps, free of the fixed costs
	// (the method's own pilots, writing and summarising the draws) that
	// dominate a short run.
	var cpu [2]float64
	var setup float64
	for i, n := range []int{2000, 20000} {
		r, err := runOnce(ctx, w, m, 1, Length{Burn: 1, Keep: 100, Thin: n / 100}, 0)
		if err != nil {
			return Length{}, "", err
		}
		cpu[i], setup = r.CPU, r.Setup
	}
	perStep := max(cpu[1]-cpu[0], 1e-3) / 18000
	fixed := max(cpu[0]-2000*perStep, setup)
	steps := max(2000, int((Stretch*target-fixed)/perStep))
	burn := steps / 10
	thin := max(1, (steps-burn)/keep)
	return Length{Burn: burn, Keep: keep, Thin: thin}, fmt.Sprintf("burn %d, thin %d: %.3g µs a step (4 chains), %.3g s fixed, from two pilots", burn, thin, 1e6*perStep, fixed), nil
}

// pool scores runs: their estimates at the target CPU time pooled, and
// each run's own error.
func pool(w *Workload, method string, runs []*Run) Row {
	row := Row{Method: method, Runs: runs, Pooled: make([]float64, len(w.Names))}
	n := float64(len(runs))
	var errs []float64
	for _, r := range runs {
		for j, v := range r.InclAtTarget {
			row.Pooled[j] += v / n
		}
		errs = append(errs, r.AtTarget.Err)
		row.CPU += r.CPU / n
	}
	row.Err = -1
	for j, m := range row.Pooled {
		var ss float64
		for _, r := range runs {
			ss += (r.InclAtTarget[j] - m) * (r.InclAtTarget[j] - m)
		}
		e := math.Abs(m - w.Ref[j])
		if math.IsNaN(e) {
			row.Err, row.Coef = math.NaN(), w.Names[j]
			break
		}
		if e > row.Err {
			row.Err, row.Coef, row.MCSE = e, w.Names[j], math.Sqrt(ss/(n-1)/n)
		}
	}
	row.RunErr, row.RunErrSE = meanSE(errs)
	return row
}

func meanSE(x []float64) (mean, se float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v / n
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}
