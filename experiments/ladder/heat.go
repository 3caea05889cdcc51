package ladder

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models/heat"
	"github.com/fresgld/fresgld/output"
)

// HeatSettings are the settings of the heat part of the ladder study, the
// paper's §5.2 problem as `fresgld reproduce heat` sets it up (same problem,
// solvers, η = 1e-5, τ from 0.08 to 0.5, start at (0.5, 0.5), reflection
// into the unit square).
type HeatSettings struct {
	Seeds int
	// Burn and Keep are s-reSGLD's run (the reference of the equal-CPU
	// comparison) and the two-level run of reading (d).
	Burn, Keep int
	// Rounds and First tune the adaptive ladder (its burn-in), from
	// Start geometric levels, grown to ⌈2Λ̂⌉, at most MaxLevels.
	Rounds, First, Start, MaxLevels int
	Grid                            int // exact posterior: cells per side
}

const heatEta, heatTau1, heatTau2 = 1e-5, 0.08, 0.5

var heatInit = []float64{0.5, 0.5}

// HeatRow is one run of the heat study.
type HeatRow struct {
	Method     string
	Seed       int
	Levels     int
	Taus       []float64
	Lambda     float64
	RoundTrips int
	Swaps      int
	Samples    int
	Steps      int // tuning included
	Fine       int64
	Coarse     int64
	CPU        float64 // seconds of thread CPU time, tuning included
	M          heat.Metrics
}

// heatLadder builds f-reSGLD ladders on the heat problem: the coldest level
// on the fine solver, every hotter level on a coarse solver of its own (a
// solver remembers its last two solves, which a shared one would lose to
// the other levels). esd gives the energy noise sd at a temperature, gsd is
// the gradient noise sd. The solvers persist across rounds so their solve
// counts add up.
type heatLadder struct {
	p            heat.Problem
	fine         *heat.Solved
	coarse       []*heat.Solved
	esd          func(tau float64) float64
	gsd          float64
	scheme       exchange.Scheme
	seed         uint64
	fineN, fineS int
	coN, coS     int
}

func (h *heatLadder) build(taus []float64) (exchange.Config, error) {
	box := heat.Box()
	lv := make([]exchange.Level, len(taus))
	for l, tau := range taus {
		f := h.fine
		if l > 0 {
			for len(h.coarse) < l {
				c, err := heat.NewSolved(h.p, h.coN, h.coS)
				if err != nil {
					return exchange.Config{}, err
				}
				h.coarse = append(h.coarse, c)
			}
			f = h.coarse[l-1]
		}
		est := energy.NewNoisy(&heat.Energy{P: h.p, F: f}, h.esd(tau), h.gsd)
		lv[l] = exchange.Level{Tau: tau, Est: est, Eta: langevin.Constant{Step: heatEta}, Noise: langevin.Corrected}
	}
	return exchange.Config{Levels: lv, Swap: exchange.Swap{Rule: exchange.FReSGLD, PerStep: true, Scheme: h.scheme}, Seed: h.seed, Domain: &box}, nil
}

func (h *heatLadder) solves() (fine, coarse int64) {
	for _, c := range h.coarse {
		coarse += c.Solves
	}
	return h.fine.Solves, coarse
}

// RunHeat runs, for each seed: (s) s-reSGLD with small noise, two levels,
// Burn + Keep steps, timing its CPU; (c) f-reSGLD with the paper's large
// noise (sd 0.8 on U, 2 on ∇U) on an adaptive DEO ladder whose hot levels
// use the coarse solver, tuned and then run until it has used the same CPU
// time as (s); (d) f-reSGLD on two levels with energy noise sd 0.8 on U/τ
// (sd 0.8τ on U) and gradient noise sd 2, Burn + Keep steps. Each run is
// scored against the exact tempered posterior at τ1.
func RunHeat(s HeatSettings, log io.Writer) ([]HeatRow, error) {
	p := heat.Paper()
	sc := heat.NewScorer(p, heatTau1, s.Grid)
	var rows []HeatRow
	unlock := cputime.Lock()
	defer unlock()
	for seed := 1; seed <= s.Seeds; seed++ {
		small, err := heatSmall(p, s, uint64(seed))
		if err != nil {
			return rows, fmt.Errorf("s-reSGLD seed %d: %w", seed, err)
		}
		ad, err := heatAdaptive(p, s, uint64(seed), small.row.CPU)
		if err != nil {
			return rows, fmt.Errorf("adaptive f-reSGLD seed %d: %w", seed, err)
		}
		two, err := heatTempered(p, s, uint64(seed))
		if err != nil {
			return rows, fmt.Errorf("two-level f-reSGLD (noise on U/τ) seed %d: %w", seed, err)
		}
		for _, r := range []*heatResult{&small, &ad, &two} {
			r.row.Seed = seed
			r.row.M = sc.Score(r.xs, r.ys)
			rows = append(rows, r.row)
			fmt.Fprintf(log, "%s seed %d: K %d, coverage %.3f, TV %.3f, %d samples, round trips %d, swaps %d, CPU %.1f s\n",
				r.row.Method, seed, r.row.Levels, r.row.M.Coverage, r.row.M.TV, r.row.Samples, r.row.RoundTrips, r.row.Swaps, r.row.CPU)
		}
	}
	return rows, nil
}

type heatResult struct {
	row    HeatRow
	xs, ys []float64
}

// sample runs smp, keeping the cold state after step burn, until steps
// steps or, if cpuLimit > 0, until the thread's CPU time since cpu0
// reaches it (checked every 100 steps).
func sample(smp *exchange.Sampler, burn, steps int, cpu0 time.Duration, cpuLimit float64) (xs, ys []float64, err error) {
	smp.FreezeAfter(burn) // any adaptation ends with the burn-in
	for k := 1; k <= steps; k++ {
		if err := smp.Step(); err != nil {
			return xs, ys, err
		}
		if k > burn {
			x := smp.State(0)
			xs, ys = append(xs, x[0]), append(ys, x[1])
		}
		if cpuLimit > 0 && k%100 == 0 {
			now := cputime.Thread()
			if now == 0 {
				return xs, ys, errors.New("equal-CPU stopping needs the thread's CPU time, which this platform does not report")
			}
			if (now - cpu0).Seconds() >= cpuLimit {
				break
			}
		}
	}
	return xs, ys, nil
}

// runTwo samples cfg's two levels, both started at heatInit, and fills r
// with the cold level's draws and the run's costs (h's solves).
func runTwo(r *heatResult, cfg exchange.Config, s HeatSettings, cpu0 time.Duration, h *heatLadder) error {
	smp, err := exchange.New(cfg, [][]float64{heatInit, heatInit})
	if err != nil {
		return err
	}
	r.xs, r.ys, err = sample(smp, s.Burn, s.Burn+s.Keep, cpu0, 0)
	if err != nil {
		return err
	}
	fill(r, cfg, smp, h, cpu0)
	return nil
}

func fill(r *heatResult, cfg exchange.Config, smp *exchange.Sampler, h *heatLadder, cpu0 time.Duration) {
	st := smp.Stats()
	for _, lv := range cfg.Levels {
		r.row.Taus = append(r.row.Taus, lv.Tau)
	}
	r.row.Levels = len(cfg.Levels)
	for _, p := range st.Pairs {
		r.row.Swaps += p.Accepts
		if p.Attempts > 0 {
			r.row.Lambda += p.Rejection()
		} else {
			r.row.Lambda++
		}
	}
	r.row.RoundTrips = exchange.Sum(st.Replicas).RoundTrips
	r.row.Samples = len(r.xs)
	r.row.Steps += st.Steps
	r.row.Fine, r.row.Coarse = h.solves()
	r.row.CPU = (cputime.Thread() - cpu0).Seconds()
}

func newHeatLadder(p heat.Problem, esd func(float64) float64, gsd float64, scheme exchange.Scheme, seed uint64) (*heatLadder, error) {
	fine, err := heat.NewSolved(p, heat.Fine.N, heat.Fine.Steps)
	if err != nil {
		return nil, err
	}
	return &heatLadder{p: p, fine: fine, esd: esd, gsd: gsd, scheme: scheme, seed: seed, coN: heat.Coarse.N, coS: heat.Coarse.Steps}, nil
}

// heatSmall is s-reSGLD with sd 0.1 on energy and gradient: both levels on
// the fine solver, plain SGLD noise, Deng's ratio, a swap attempt every
// step, as `fresgld reproduce heat` runs it.
func heatSmall(p heat.Problem, s HeatSettings, seed uint64) (heatResult, error) {
	r := heatResult{row: HeatRow{Method: "s-reSGLD (sd 0.1), 2 levels"}}
	cpu0 := cputime.Thread()
	fine, err := heat.NewSolved(p, heat.Fine.N, heat.Fine.Steps)
	if err != nil {
		return r, err
	}
	box := heat.Box()
	cfg, err := exchange.ReSGLDMethod.Config(exchange.Setup{Tau1: heatTau1, Tau2: heatTau2, Eta: langevin.Constant{Step: heatEta},
		Cold: energy.NewNoisy(&heat.Energy{P: p, F: fine}, 0.1, 0.1), PerStep: true, Seed: seed, Domain: &box})
	if err != nil {
		return r, err
	}
	// ReSGLD clones the cold estimator for the hot level, which then shares
	// the fine solver: its solve count is the run's.
	err = runTwo(&r, cfg, s, cpu0, &heatLadder{fine: fine})
	return r, err
}

// heatAdaptive is f-reSGLD at the paper's large noise on a tuned DEO ladder,
// stopped at cpuLimit seconds of CPU, tuning included.
func heatAdaptive(p heat.Problem, s HeatSettings, seed uint64, cpuLimit float64) (heatResult, error) {
	r := heatResult{row: HeatRow{Method: "f-reSGLD (sd 0.8 on U), adaptive DEO ladder"}}
	cpu0 := cputime.Thread()
	h, err := newHeatLadder(p, func(float64) float64 { return 0.8 }, 2, exchange.DEO, seed)
	if err != nil {
		return r, err
	}
	taus, err := exchange.Geometric(heatTau1, heatTau2, s.Start)
	if err != nil {
		return r, err
	}
	inits := make([][]float64, len(taus))
	for l := range inits {
		inits[l] = heatInit
	}
	ad, err := exchange.Adapt(h.build, taus, inits, exchange.AdaptOptions{Rounds: s.Rounds, First: s.First, Grow: true, MaxLevels: s.MaxLevels})
	if err != nil {
		return r, err
	}
	cfg, err := h.build(ad.Taus)
	if err != nil {
		return r, err
	}
	smp, err := exchange.New(cfg, ad.States)
	if err != nil {
		return r, err
	}
	r.xs, r.ys, err = sample(smp, 0, math.MaxInt32, cpu0, cpuLimit)
	if err != nil {
		return r, err
	}
	r.row.Steps = ad.Steps
	fill(&r, cfg, smp, h, cpu0)
	return r, nil
}

// heatTempered is reading (d): two levels, energy noise sd 0.8 on U/τ.
func heatTempered(p heat.Problem, s HeatSettings, seed uint64) (heatResult, error) {
	r := heatResult{row: HeatRow{Method: "f-reSGLD (sd 0.8 on U/τ), 2 levels"}}
	cpu0 := cputime.Thread()
	h, err := newHeatLadder(p, func(tau float64) float64 { return 0.8 * tau }, 2, exchange.Sweep, seed)
	if err != nil {
		return r, err
	}
	cfg, err := h.build([]float64{heatTau1, heatTau2})
	if err != nil {
		return r, err
	}
	err = runTwo(&r, cfg, s, cpu0, h)
	return r, err
}

// HeatOutputs are the files WriteHeat writes.
var HeatOutputs = []string{"ladder-heat.md", "ladder-heat.csv"}

// WriteHeat writes the heat table (HeatMarkdown) and every run's row
// (ladder-heat.csv) into dir, and returns the table.
func WriteHeat(s HeatSettings, rows []HeatRow, dir string) (string, error) {
	md := HeatMarkdown(s, rows)
	if err := output.WriteBytes(filepath.Join(dir, "ladder-heat.md"), []byte(md)); err != nil {
		return "", err
	}
	if err := output.WriteFile(filepath.Join(dir, "ladder-heat.csv"), func(w io.Writer) error {
		fmt.Fprintln(w, "method,seed,levels,coverage,tv,near,samples,lambda,round_trips,swaps,fine_solves,coarse_solves,cpu_seconds")
		for _, r := range rows {
			fmt.Fprintf(w, "%q,%d,%d,%.4f,%.4f,%.4f,%d,%.4f,%d,%d,%d,%d,%.2f\n", r.Method, r.Seed, r.Levels, r.M.Coverage, r.M.TV, r.M.Near, r.Samples, r.Lambda, r.RoundTrips, r.Swaps, r.Fine, r.Coarse, r.CPU)
		}
		return nil
	}); err != nil {
		return "", err
	}
	return md, nil
}

// HeatMarkdown is the heat table: per method, mean ± standard error over
// seeds.
func HeatMarkdown(s HeatSettings, rows []HeatRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cold-level samples against the exact posterior at τ1 = 0.08, mean ± standard error over %d seeds. s-reSGLD and the two-level run: %d burn-in steps, then %d samples; the adaptive ladder: %d tuning rounds (%d steps first, doubling) from %d geometric levels, grown to ⌈2Λ̂⌉ (at most %d), then sampling until it has used the CPU time of the same seed's s-reSGLD run, tuning included.\n\n",
		s.Seeds, s.Burn, s.Keep, s.Rounds, s.First, s.Start, s.MaxLevels)
	b.WriteString("| method | K | coverage | TV | near circle | samples | Λ̂ | round trips | swaps | fine solves | coarse solves | CPU s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var methods []string
	for _, r := range rows {
		if !contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	for _, m := range methods {
		col := func(f func(HeatRow) float64) string {
			var xs []float64
			for _, r := range rows {
				if r.Method == m {
					xs = append(xs, f(r))
				}
			}
			mu, se := diag.MeanSE(xs)
			if len(xs) < 2 {
				return fmt.Sprintf("%.3g", mu)
			}
			return fmt.Sprintf("%.3g ± %.2g", mu, se)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m,
			col(func(r HeatRow) float64 { return float64(r.Levels) }),
			col(func(r HeatRow) float64 { return r.M.Coverage }),
			col(func(r HeatRow) float64 { return r.M.TV }),
			col(func(r HeatRow) float64 { return r.M.Near }),
			col(func(r HeatRow) float64 { return float64(r.Samples) }),
			col(func(r HeatRow) float64 { return r.Lambda }),
			col(func(r HeatRow) float64 { return float64(r.RoundTrips) }),
			col(func(r HeatRow) float64 { return float64(r.Swaps) }),
			col(func(r HeatRow) float64 { return float64(r.Fine) }),
			col(func(r HeatRow) float64 { return float64(r.Coarse) }),
			col(func(r HeatRow) float64 { return r.CPU }))
	}
	b.WriteString("\nPer seed, the adaptive ladder's temperatures:\n\n")
	for _, r := range rows {
		if strings.Contains(r.Method, "adaptive") {
			fmt.Fprintf(&b, "- seed %d: τ = %s\n", r.Seed, joinG(r.Taus))
		}
	}
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func joinG(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.4g", x)
	}
	return strings.Join(parts, ", ")
}
