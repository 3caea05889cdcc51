package heat

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models/heat"
	"github.com/fresgld/fresgld/output"
	"github.com/fresgld/fresgld/variance"
)

// Settings are the settings of the inverse heat-equation study. The
// command's defaults are the study's fixed settings: chosen before any
// comparison and the same for every method.
type Settings struct {
	Seeds       int
	Keep, Early int
	Burn        int
	Eta         float64
	Tau1, Tau2  float64
	FineN       int
	FineSteps   int
	CoarseN     int
	CoarseSteps int
	Variance    string
	Grid        int
	Figures     string
	Results     string
	MaxPoints   int
	ErrorGrid   int
}

// heatMethod is one of the paper's three runs.
type heatMethod struct {
	Name     string
	M        exchange.Method
	ESD, GSD float64 // injected noise on the energy and on each gradient coordinate
}

var heatMethods = []heatMethod{
	{"s-reSGLD", exchange.ReSGLDMethod, 0.1, 0.1},
	{"f-reSGLD", exchange.FReSGLDMethod, 0.8, 2},
	{"l-reSGLD", exchange.ReSGLDMethod, 0.8, 2},
}

// heatInit is the initial state of both chains: the centre of the square,
// 0.2 from the sensor, off the circle of solutions (radius ≈ 0.155).
var heatInit = []float64{0.5, 0.5}

// Validate checks the settings.
func (f *Settings) Validate() error {
	switch {
	case f.Seeds < 1:
		return fmt.Errorf("--seeds = %d: need at least 1", f.Seeds)
	case f.Keep < 1:
		return fmt.Errorf("--keep = %d: need at least 1", f.Keep)
	case f.Early < 1 || f.Early > f.Keep:
		return fmt.Errorf("--early = %d: must lie in [1, --keep = %d]", f.Early, f.Keep)
	case f.Burn < 0:
		return fmt.Errorf("--burn = %d: must be ≥ 0", f.Burn)
	case f.Grid < 50 || f.Grid%50 != 0:
		return fmt.Errorf("--grid = %d: must be a positive multiple of 50 (the TV bins)", f.Grid)
	case f.ErrorGrid < 1:
		return fmt.Errorf("--error-grid = %d: need at least 1", f.ErrorGrid)
	case f.MaxPoints < 1:
		return fmt.Errorf("--max-points = %d: need at least 1", f.MaxPoints)
	case f.Variance != "known" && f.Variance != "running":
		return fmt.Errorf("--variance %q: want known or running", f.Variance)
	case !(f.Eta > 0) || math.IsInf(f.Eta, 0):
		return fmt.Errorf("--eta = %v: must be positive and finite", f.Eta)
	case !(f.Tau1 > 0) || math.IsInf(f.Tau1, 0):
		return fmt.Errorf("--tau1 = %v: must be positive and finite", f.Tau1)
	case !(f.Tau2 > f.Tau1) || math.IsInf(f.Tau2, 0):
		return fmt.Errorf("--tau2 = %v: must exceed --tau1 = %v and be finite", f.Tau2, f.Tau1)
	}
	for _, fd := range []heat.Fidelity{{Name: "fine", N: f.FineN, Steps: f.FineSteps}, {Name: "coarse", N: f.CoarseN, Steps: f.CoarseSteps}} {
		if _, err := heat.NewSolved(heat.Paper(), fd.N, fd.Steps); err != nil {
			return fmt.Errorf("--%s-n/--%s-steps: %w", fd.Name, fd.Name, err)
		}
	}
	return nil
}

// heatRun is one method's run at one seed.
type heatRun struct {
	xs, ys        []float64
	stats         exchange.Stats
	fine, coarse  int64 // solves made
	wall, cpu     time.Duration
	early, full   heat.Metrics
	swaps, clamps int
}

// Progress returns a callback for a run of total steps labelled label, or
// nil for none.
type Progress func(label string, total int) func(done, total int)

// Run runs the study: every method at every seed, the tables and figures.
func Run(f *Settings, progress Progress) error {
	if err := f.Validate(); err != nil {
		return err
	}
	p := heat.Paper()
	fineF := heat.Fidelity{Name: "fine", N: f.FineN, Steps: f.FineSteps}
	coarseF := heat.Fidelity{Name: "coarse", N: f.CoarseN, Steps: f.CoarseSteps}
	for _, fd := range []heat.Fidelity{fineF, coarseF} {
		if _, err := heat.NewSolved(p, fd.N, fd.Steps); err != nil {
			return fmt.Errorf("--%s-n/--%s-steps: %w", fd.Name, fd.Name, err)
		}
	}
	fmt.Printf("Inverse heat problem: sensor (%g, %g), T = %g, true x0 = (%g, %g), σ = %g, y = %.6f, circle radius r* = %.5f\n",
		p.Sensor[0], p.Sensor[1], p.T, p.Truth[0], p.Truth[1], p.Sigma, p.Y, p.Radius())
	fmt.Printf("ring width σ√τ/|G'(r*)|: %.5f at τ1 = %g, %.5f at τ2 = %g; ∂²U/∂r² on the circle %.0f, η·∂²U/∂r² = %.3f\n",
		p.RingWidth(f.Tau1), f.Tau1, p.RingWidth(f.Tau2), f.Tau2, p.Stiffness(), f.Eta*p.Stiffness())
	fmt.Printf("settings: η = %g, burn-in %d, %d samples (also measured at %d), swaps attempted every step, both chains start at (%g, %g), f-reSGLD variance: %s, seeds 1..%d\n\n",
		f.Eta, f.Burn, f.Keep, f.Early, heatInit[0], heatInit[1], f.Variance, f.Seeds)

	fid, err := fidelityTable(p, []heat.Fidelity{fineF, coarseF}, f.ErrorGrid)
	if err != nil {
		return err
	}
	fmt.Println(fid)

	sc := heat.NewScorer(p, f.Tau1, f.Grid)
	runs := make([][]heatRun, len(heatMethods))
	for mi, m := range heatMethods {
		for seed := 1; seed <= f.Seeds; seed++ {
			r, err := runHeatMethod(p, f, m, fineF, coarseF, uint64(seed), progress)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", m.Name, seed, err)
			}
			r.early, r.full = sc.Score(r.xs[:f.Early], r.ys[:f.Early]), sc.Score(r.xs, r.ys)
			fmt.Fprintf(os.Stderr, "%s seed %d: coverage %.3f/%.3f, TV %.3f/%.3f, near %.3f, swaps %d, %v\n",
				m.Name, seed, r.early.Coverage, r.full.Coverage, r.early.TV, r.full.TV, r.full.Near, r.swaps, r.wall.Round(time.Millisecond))
			if seed > 1 {
				r.xs, r.ys = nil, nil // only the first seed is plotted
			}
			runs[mi] = append(runs[mi], r)
		}
	}
	ref := exactReference(sc, f)
	table := heatTable(f, sc, runs, ref)
	fmt.Println(table)

	errs := []error{
		os.MkdirAll(f.Results, 0o755),
		output.WriteBytes(filepath.Join(f.Results, "heat-fidelity.md"), []byte(fid)),
		output.WriteBytes(filepath.Join(f.Results, "heat-table.md"), []byte(table)),
		writeHeatRuns(filepath.Join(f.Results, "heat-runs.csv"), runs),
	}
	for _, n := range []int{f.Early, f.Keep} {
		errs = append(errs, heatFigure(filepath.Join(f.Figures, fmt.Sprintf("heat-%d", n)), p, runs, n, f.MaxPoints))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Printf("wrote %s/heat-{fidelity.md,table.md,runs.csv} and %s/heat-{%d,%d}.{png,svg}\n", f.Results, f.Figures, f.Early, f.Keep)
	return nil
}

// runHeatMethod runs one method at one seed and returns its cold-chain
// samples and costs.
func runHeatMethod(p heat.Problem, f *Settings, m heatMethod, fineF, coarseF heat.Fidelity, seed uint64, progress Progress) (heatRun, error) {
	fine, err := heat.NewSolved(p, fineF.N, fineF.Steps)
	if err != nil {
		return heatRun{}, err
	}
	coarse, err := heat.NewSolved(p, coarseF.N, coarseF.Steps)
	if err != nil {
		return heatRun{}, err
	}
	var cold, hot energy.Estimator = energy.NewNoisy(&heat.Energy{P: p, F: fine}, m.ESD, m.GSD), energy.NewNoisy(&heat.Energy{P: p, F: coarse}, m.ESD, m.GSD)
	box := heat.Box()
	setup := exchange.Setup{
		Tau1: f.Tau1, Tau2: f.Tau2, Eta: langevin.Constant{Step: f.Eta},
		Cold: cold, Hot: hot, PerStep: true, Seed: seed, Domain: &box,
	}
	if f.Variance == "running" && m.M == exchange.FReSGLDMethod {
		setup.Cold, setup.Hot = energy.Hidden{Estimator: cold}, energy.Hidden{Estimator: hot}
		mk := func() variance.Model { r, _ := variance.NewRunning(10, 100); return r }
		setup.ColdVar, setup.HotVar = mk, mk
	}
	cfg, err := m.M.Config(setup)
	if err != nil {
		return heatRun{}, err
	}
	smp, err := study.NewLadder(cfg, heatInit)
	if err != nil {
		return heatRun{}, err
	}
	defer smp.Close()
	plan := exchange.Plan{Burn: f.Burn, Keep: f.Keep, Thin: 1}
	if progress != nil {
		plan.Progress = progress(fmt.Sprintf("%s seed %d", m.Name, seed), plan.Steps())
	}
	start, cpu0 := time.Now(), cpuTime()
	tr, err := exchange.Collect(smp, plan)
	r := heatRun{wall: time.Since(start), cpu: cpuTime() - cpu0, stats: smp.Stats(), fine: fine.Solves, coarse: coarse.Solves}
	if err != nil {
		return r, err
	}
	r.xs, r.ys = tr.Coord(0), tr.Coord(1)
	for _, pr := range r.stats.Pairs {
		r.swaps += pr.Accepts
	}
	for _, l := range r.stats.Levels {
		r.clamps += int(l.Clamped)
	}
	for k := range r.xs {
		if !box.Contains([]float64{r.xs[k], r.ys[k]}) {
			return r, fmt.Errorf("sample %d = (%v, %v) left the unit square", k, r.xs[k], r.ys[k])
		}
	}
	return r, nil
}

// exactReference scores independent draws from the exact posterior at the
// same sample sizes and seeds: the floor of each metric at that size.
func exactReference(sc heat.Scorer, f *Settings) [2][]heat.Metrics {
	var ref [2][]heat.Metrics
	for seed := 1; seed <= f.Seeds; seed++ {
		xs, ys := heat.Draw(sc.Exact, f.Keep, rand.New(rand.NewPCG(uint64(seed), 99)))
		ref[0] = append(ref[0], sc.Score(xs[:f.Early], ys[:f.Early]))
		ref[1] = append(ref[1], sc.Score(xs, ys))
	}
	return ref
}

// pm formats the mean ± standard error of xs; one value has no error.
func pm(xs []float64, prec int) string {
	m, se := diag.MeanSE(xs)
	if len(xs) < 2 {
		return fmt.Sprintf("%.*f", prec, m)
	}
	return fmt.Sprintf("%.*f ± %.*f", prec, m, prec, se)
}

func metricCols(ms []heat.Metrics) []string {
	var c, t, n []float64
	for _, m := range ms {
		c, t, n = append(c, m.Coverage), append(t, m.TV), append(n, m.Near)
	}
	return []string{pm(c, 3), pm(t, 3), pm(n, 3)}
}

func heatTable(f *Settings, sc heat.Scorer, runs [][]heatRun, ref [2][]heat.Metrics) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cold-chain samples against the exact posterior at τ1 = %g, mean ± standard error over %d seeds.\n", f.Tau1, f.Seeds)
	fmt.Fprintf(&b, "Coverage: fraction of %d equal angular sectors around the sensor holding a sample within %.4f (three ring widths) of the circle; TV on %d×%d bins of [0,1]²; near: fraction of samples within that band (exact posterior: %.4f).\n\n",
		sc.Sectors, sc.Band, sc.Bins, sc.Bins, sc.ExactNear())
	b.WriteString("| method | samples | coverage | TV | near circle | swaps | fine solves | coarse solves | CPU s | wall s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for mi, m := range heatMethods {
		for k, n := range []int{f.Early, f.Keep} {
			var ms []heat.Metrics
			var sw, fs, cs, cpu, wall []float64
			for _, r := range runs[mi] {
				if k == 0 {
					ms = append(ms, r.early)
				} else {
					ms = append(ms, r.full)
				}
				sw, fs, cs, wall = append(sw, float64(r.swaps)), append(fs, float64(r.fine)), append(cs, float64(r.coarse)), append(wall, r.wall.Seconds())
				cpu = append(cpu, r.cpu.Seconds())
			}
			c := metricCols(ms)
			if k == 0 {
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | | | | | |\n", m.Name, n, c[0], c[1], c[2])
			} else {
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", m.Name, n, c[0], c[1], c[2], pm(sw, 0), pm(fs, 0), pm(cs, 0), pm(cpu, 1), pm(wall, 1))
			}
		}
	}
	for k, n := range []int{f.Early, f.Keep} {
		c := metricCols(ref[k])
		fmt.Fprintf(&b, "| exact (independent draws) | %d | %s | %s | %s | | | | | |\n", n, c[0], c[1], c[2])
	}
	var clamps int
	for _, rs := range runs {
		for _, r := range rs {
			clamps += r.clamps
		}
	}
	fmt.Fprintf(&b, "\nSwaps are counted over all %d steps (burn-in included); solves are the PDE solves made (each gives the reading and its gradient); coordinate-steps clamped by the noise budget, all runs: %d.\n", f.Burn+f.Keep, clamps)
	return b.String()
}

func writeHeatRuns(path string, runs [][]heatRun) error {
	return output.WriteFile(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"method", "seed", "samples", "coverage", "tv", "near", "swaps", "fine_solves", "coarse_solves", "cpu_seconds", "wall_seconds"})
		f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
		for mi, rs := range runs {
			for s, r := range rs {
				for k, m := range []heat.Metrics{r.early, r.full} {
					label := "early"
					if k == 1 {
						label = "all"
					}
					cw.Write([]string{heatMethods[mi].Name, strconv.Itoa(s + 1), label, f(m.Coverage, 4), f(m.TV, 4), f(m.Near, 4),
						strconv.Itoa(r.swaps), strconv.FormatInt(r.fine, 10), strconv.FormatInt(r.coarse, 10), f(r.cpu.Seconds(), 2), f(r.wall.Seconds(), 2)})
				}
			}
		}
		cw.Flush()
		return cw.Error()
	})
}
