package multimodal

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
)

// Size is the study's size.
type Size struct {
	Budget float64 // per regression run, per-example evaluations
	Seeds  int     // runs (one chain each) per method and problem
	Large  []int   // the generated data's row counts
	Mix    int     // per mixture run, gradient evaluations
	NUTS   bool    // run NUTS through rstan where installed
	// Only, if set, runs these problems alone (by name: diabetes,
	// uscrime, synthetic-1e5, …, mixture), and Methods these methods
	// alone, so that one question need not wait for the whole study.
	Only    []string
	Methods []Method
	// Screened decides swaps by screens and full-pass confirmations, as
	// before issue 28's fix (Settings.Screened).
	Screened bool
}

// wants reports whether the study at sz runs the problem named name.
func (sz Size) wants(name string) bool { return sz.Only == nil || slices.Contains(sz.Only, name) }

// methods are the regression methods the study at sz runs, in table order.
func (sz Size) methods() []Method {
	if sz.Methods == nil {
		return Methods
	}
	var ms []Method
	for _, m := range Methods {
		if slices.Contains(sz.Methods, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// Check refuses a selection that names an unknown problem or method.
func (sz Size) Check() error {
	names := []string{"diabetes", "uscrime", "mixture"}
	for _, n := range sz.Large {
		names = append(names, syntheticName(n))
	}
	for _, n := range sz.Only {
		if !slices.Contains(names, n) {
			return fmt.Errorf("unknown problem %q (want one of %s)", n, strings.Join(names, ", "))
		}
	}
	for _, m := range sz.Methods {
		if !slices.Contains(Methods, m) {
			return fmt.Errorf("unknown method %q (want one of %v)", m, Methods)
		}
	}
	return nil
}

// Full is the size of the published study; Smoke a seconds-long run for
// tests.
var (
	Full  = Size{Budget: 1.6e8, Seeds: 5, Large: []int{100_000, 1_000_000}, Mix: 800_000, NUTS: true}
	Smoke = Size{Budget: 3e6, Seeds: 2, Large: []int{2000}, Mix: 40_000}
)

// Checkpoints are the shares of the budget at which the running estimates
// are scored.
var Checkpoints = []float64{1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1}

// SettingsFor are the regression settings at size sz (see Settings for
// the rule behind each).
func SettingsFor(sz Size) Settings {
	return Settings{NCold: 100, NHot: 10, Tau2: 4,
		AdaptLevels: 4, AdaptTau: 8, AdaptRounds: 3, AdaptFirst: max(50, int(sz.Budget/1e6)*5), AdaptMax: 8,
		Budget: sz.Budget, Burn: 0.05, Checkpoints: Checkpoints, Thin: 5, Cycles: 20, Explore: 0.5, Screened: sz.Screened}
}

// MixSettingsFor are the mixture settings at size sz.
func MixSettingsFor(sz Size) MixSettings {
	return MixSettings{Budget: sz.Mix, Levels: 4, TauMax: 16, AdaptRounds: 5, AdaptFirst: max(100, sz.Mix/1600), AdaptMax: 12, Thin: 1, CSGLDEta0: 0.4}
}

// Problems builds the regression problems at size sz (those it selects).
func Problems(sz Size) ([]*Problem, error) {
	var prs []*Problem
	for _, f := range []struct {
		name string
		make func() (*Problem, error)
	}{{"diabetes", Diabetes}, {"uscrime", UScrime}} {
		if !sz.wants(f.name) {
			continue
		}
		pr, err := f.make()
		if err != nil {
			return nil, err
		}
		prs = append(prs, pr)
	}
	for _, n := range sz.Large {
		if !sz.wants(syntheticName(n)) {
			continue
		}
		s, err := Synthetic(n, 1)
		if err != nil {
			return nil, err
		}
		prs = append(prs, s)
	}
	return prs, nil
}

// Results are the whole study's results.
type Results struct {
	Size     Size
	Problems []*Problem
	Rows     [][]Row     // per problem, per method (NUTS rows last)
	NUTS     [][]NUTSRun // per real-data problem, nil without R
	NUTSNote string
	Mix      [][]MixResult
}

// Measure runs the study on workers goroutines; progress, if set, is called
// after each (problem, method). work is a directory for NUTS's files.
func Measure(sz Size, workers int, work string, progress func(string)) (*Results, error) {
	if err := sz.Check(); err != nil {
		return nil, err
	}
	prs, err := Problems(sz)
	if err != nil {
		return nil, err
	}
	res := &Results{Size: sz, Problems: prs}
	st := SettingsFor(sz)
	for _, pr := range prs {
		var rows []Row
		for _, m := range sz.methods() {
			runs := make([]Result, sz.Seeds)
			if err := parallel(sz.Seeds, workers, func(i int) error {
				r, err := Run(pr, m, st, uint64(i+1))
				runs[i] = r
				return err
			}); err != nil {
				return nil, fmt.Errorf("%s, %s: %w", pr.Name, m, err)
			}
			row := Pool(pr, string(m), runs)
			rows = append(rows, row)
			if progress != nil {
				progress(fmt.Sprintf("%s %s: largest inclusion error %.4f ± %.4f, %.1f CPU s a run", pr.Name, m, row.InclErr, row.InclMCSE, row.CPU))
			}
		}
		res.Rows = append(res.Rows, rows)
	}
	ms := MixSettingsFor(sz)
	for _, m := range MixMethods {
		if !sz.wants("mixture") {
			break
		}
		runs := make([]MixResult, sz.Seeds)
		if err := parallel(sz.Seeds, workers, func(i int) error {
			r, err := RunMixture(m, ms, uint64(i+1))
			runs[i] = r
			return err
		}); err != nil {
			return nil, fmt.Errorf("mixture, %s: %w", m, err)
		}
		res.Mix = append(res.Mix, runs)
		if progress != nil {
			progress(fmt.Sprintf("mixture %s: %d modes in run 1", m, runs[0].Found))
		}
	}
	if !sz.NUTS || !slices.Contains(sz.methods(), FReSGLD) {
		res.NUTSNote = "NUTS not run at this size or selection"
		return res, nil
	}
	// NUTS on the real data only: at N = 10⁵ and 10⁶ each gradient is a
	// pass over the data, and Stan's default 2000 iterations of up to
	// hundreds of leapfrog steps would take hours.
	var real []*Problem
	var target []float64
	for i, pr := range prs {
		if pr.LR.Len() > 10_000 {
			continue
		}
		real = append(real, pr)
		f, _ := rowOf(res.Rows[i], FReSGLD)
		target = append(target, f.CPU*float64(f.Runs))
	}
	if len(real) == 0 {
		res.NUTSNote = "NUTS not run: it runs on the real data only"
		return res, nil
	}
	runs, err := NUTS(real, target, 1, work)
	switch {
	case errors.Is(err, ErrNoR):
		res.NUTSNote = "NUTS not run: " + err.Error()
		return res, nil
	case err != nil:
		// The SG results stand without NUTS: report the failure.
		res.NUTSNote = "NUTS failed: " + err.Error()
		return res, nil
	}
	res.NUTS = runs
	for i, rs := range runs {
		for _, r := range rs {
			res.Rows[i] = append(res.Rows[i], r.Row)
			if progress != nil {
				progress(fmt.Sprintf("%s NUTS %s: %d iterations, largest inclusion error %.4f, %.1f CPU s", real[i].Name, r.Tag, r.Iter, r.Row.InclErr, r.Warmup+r.Sample))
			}
		}
	}
	return res, nil
}

// rowOf is method m's row among rows, if the study ran it.
func rowOf(rows []Row, m Method) (Row, bool) {
	for _, r := range rows {
		if r.Method == string(m) {
			return r, true
		}
	}
	return Row{}, false
}

// parallel calls f(0) … f(n−1) on up to workers goroutines and returns
// the first error.
func parallel(n, workers int, f func(int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	sem := make(chan struct{}, max(1, workers))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Goal is one goal's verdict on one problem.
type Goal struct {
	Problem, Goal, Verdict string
	Met                    bool
}

// Goals judges the goals set before the runs.
func (r *Results) Goals() []Goal {
	var gs []Goal
	for i, pr := range r.Problems {
		rows := r.Rows[i]
		re, haveRe := rowOf(rows, ReSGLD)
		for _, m := range []Method{FReSGLD, Adaptive} {
			f, ran := rowOf(rows, m)
			if !ran {
				continue
			}
			if pr.LR.Len() >= 100_000 {
				gs = append(gs, ladderGoals(pr.Name, f)...)
			}
			if math.IsNaN(f.InclErr) {
				gs = append(gs, Goal{pr.Name, string(m) + ": inclusion within 0.02 and 3 MCSE of exact, at ≤ 0.5× reSGLD's cost", "no draws within the budget", false})
				continue
			}
			ok := f.InclErr <= 0.02 && f.InclErr <= 3*f.InclMCSE
			gs = append(gs, Goal{pr.Name, string(m) + ": inclusion within 0.02 and 3 MCSE of exact", fmt.Sprintf("%.4f, %.1f MCSE", f.InclErr, f.InclErr/f.InclMCSE), ok})
			if !haveRe {
				continue
			}
			need := re.CostFor(f.InclErr)
			ratio := f.Cost / need
			v := fmt.Sprintf("%.3g of the %.3g reSGLD needs (its error at the full budget: %.4f)", f.Cost, need, re.InclErr)
			if math.IsInf(need, 1) {
				v = fmt.Sprintf("reSGLD does not reach %.4f within the budget (%.4f at %.3g): ratio < 1, bound unknown", f.InclErr, re.InclErr, re.Cost)
			}
			gs = append(gs, Goal{pr.Name, string(m) + ": ≤ 0.5× reSGLD's cost for the same error", v, ratio <= 0.5})
		}
		for _, row := range rows {
			if row.Method != string(SGLD) && row.Method != string(CSGLD) && row.Method[:min(4, len(row.Method))] != "NUTS" {
				continue
			}
			gs = append(gs, Goal{pr.Name, row.Method + ": misses by ≥ 0.1 on some coefficient", fmt.Sprintf("largest inclusion error %.4f (%s) ± %.4f", row.InclErr, row.InclVar, row.InclMCSE), row.InclErr >= 0.1})
		}
	}
	return gs
}

// ladderGoals judges issue 28's goals for a ladder at large N (they are
// set for N = 10⁶ and judged from 10⁵ on) on row f: its
// hot level's CPU per step, the share of the budget in swaps and in tuning,
// and its round trips.
func ladderGoals(problem string, f Row) []Goal {
	m := f.Method
	return []Goal{
		{problem, m + ": hot level's CPU per step ≤ 0.3× the cold level's", fmt.Sprintf("%.2f×", f.HotCPU), f.HotCPU <= 0.3},
		{problem, m + ": swaps and confirmations ≤ 25% of the budget, with ≥ 20 round trips per 10⁶ cold steps",
			fmt.Sprintf("%.1f%%, %.1f round trips", 100*f.SwapShare, f.TripsPerM), f.SwapShare <= 0.25 && f.TripsPerM >= 20},
		{problem, m + ": tuning fits within the budget", fmt.Sprintf("%.1f%% of the budget", 100*f.TuningShare), f.TuningShare < 1 && !math.IsNaN(f.InclErr)},
	}
}

// Write writes the study's tables as Markdown.
func (r *Results) Write(w io.Writer) {
	st := SettingsFor(r.Size)
	fmt.Fprintf(w, "Sizes: %.3g per-example evaluations a regression run, %d seeds (one chain each) per method and problem, mixture runs of %d gradient evaluations. Settings: cold minibatch %d and f-reSGLD's hot minibatch %d, control-variate gradients about the slab posterior's mode; τ2 = %g (fixed ladder, 2 levels); adaptive ladder from %d geometric levels 1 … %g, %d rounds from %d steps, at most %d levels; draws of the first %.0f%% of the budget discarded, every %d-th step kept; %s.\n\n",
		r.Size.Budget, r.Size.Seeds, r.Size.Mix, st.NCold, st.NHot, st.Tau2, st.AdaptLevels, st.AdaptTau, st.AdaptRounds, st.AdaptFirst, st.AdaptMax, 100*st.Burn, st.Thin, st.swapNote())
	for i, pr := range r.Problems {
		Markdown(w, pr, r.Rows[i])
	}
	fmt.Fprintln(w, "Pooled largest inclusion-probability error at shares of the budget:")
	fmt.Fprintln(w)
	var all []Row
	for _, rows := range r.Rows {
		for _, row := range rows {
			if len(row.Curve) > 0 {
				all = append(all, row)
			}
		}
	}
	CurveMarkdown(w, all, Checkpoints)
	fmt.Fprintln(w, "Where the cost went, as shares of each run's cost (pooled over runs; a swap's exact energy difference is a confirmation under screens, the whole swap under exact swaps):")
	fmt.Fprintln(w)
	BreakdownMarkdown(w, all)
	fmt.Fprintln(w, "Ladders and swap acceptance per pair:")
	fmt.Fprintln(w)
	PairMarkdown(w, all)
	if r.NUTS != nil {
		fmt.Fprintln(w, "NUTS runs (4 chains, 1000 warmup iterations each, cores = 1, compilation excluded; *equal* takes the CPU seconds of all f-reSGLD runs on the problem together):")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| problem | run | iterations / chain | warmup CPU s | sampling CPU s | leapfrog steps | largest R̂ |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for i, rs := range r.NUTS {
			for _, n := range rs {
				fmt.Fprintf(w, "| %s | %s | %d | %.2f | %.2f | %.3g | %.3f |\n", r.Problems[i].Name, n.Tag, n.Iter, n.Warmup, n.Sample, n.Leapfrog, n.RHat)
			}
		}
		fmt.Fprintln(w)
	} else if r.NUTSNote != "" {
		fmt.Fprintf(w, "%s.\n\n", r.NUTSNote)
	}
	if len(r.Mix) > 0 {
		fmt.Fprintln(w, "25-Gaussian mixture, mode coverage (a mode is found when a retained draw lies within 3 sds of its mean):")
		fmt.Fprintln(w)
		MixMarkdown(w, r.Mix)
	}
	fmt.Fprintln(w, "Goals:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| problem | goal | measured | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, g := range r.Goals() {
		met := "**no**"
		if g.Met {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", g.Problem, g.Goal, g.Verdict, met)
	}
}
