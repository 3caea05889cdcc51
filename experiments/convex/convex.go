package convex

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/langevin"
)

// Convex is the study of Theorem 4.2: a Gaussian target U = λθ²/2 whose
// gradient and energy are only estimated, sampled by two chains at τ1, τ2.
// It measures the W2 distance between the cold chain's stationary law and
// π_τ1 = N(0, τ1/λ) against the step size η:
//
//   - exactly, without swaps (a = 0), where every chain is a Gaussian AR(1)
//     process and its stationary law is known in closed form;
//   - by simulation, with swaps at intensity a (the paper's a·η·min(1, Ŝ)
//     convention), from long runs over many seeds.
type Convex struct {
	Etas    []float64
	Seeds   int
	Time    float64 // continuous time η·steps retained per seed
	Workers int
	Var     study.VarSettings
	// Progress, when set, makes a progress callback for the study's runs
	// (nil callback: none), called after each run with the runs done.
	Progress func(label string, total int) func(done, total int)
}

// Settings of the convex study, fixed for every method and step size.
const (
	cvLambda       = 1.0 // m = M = λ: Theorem 4.2 needs η < 1/(m+M) = 0.5
	cvTau1, cvTau2 = 1.0, 10.0
	cvS1, cvS2     = 2.0, 5.0 // gradient noise sd, cold and hot (as in the mixture study)
	cvSig1, cvSig2 = 1.0, 3.0 // energy noise sd
	cvA            = 1.0      // swap intensity: a swap is attempted with probability a·η
	cvBurnTime     = 20.0     // continuous time discarded (20 relaxation times 1/λ)
	cvThinTime     = 0.5      // continuous time between retained states
)

// DefaultEtas are the step sizes of the convex study.
var DefaultEtas = []float64{0.4, 0.2, 0.1, 0.05, 0.025, 0.0125}

// ConvexVariants are the samplers the convex study compares.
var ConvexVariants = []study.Variant{
	{Name: "SGLD", Method: exchange.SGLDMethod, Var: study.Known},
	{Name: "reSGLD", Method: exchange.ReSGLDMethod, Var: study.Known},
	{Name: "f-reSGLD", Method: exchange.FReSGLDMethod, Var: study.Known},
	{Name: "f-reSGLD_cons", Method: exchange.FReSGLDMethod, Var: study.Constant},
	{Name: "f-reSGLD_nonp", Method: exchange.FReSGLDMethod, Var: study.Kernel},
}

// StationaryVar is the stationary variance of θ' = θ − η(λθ + noise) +
// √v ξ with gradient noise variance s2 and injected variance v per step:
// (η²s2 + v)/(1 − (1 − ηλ)²).
func StationaryVar(eta, lambda, s2, v float64) float64 {
	r := 1 - eta*lambda
	return (eta*eta*s2 + v) / (1 - r*r)
}

// ExactW2 is the W2 distance between the cold chain's stationary law and
// N(0, τ1/λ) without swaps: SGLD (and reSGLD's cold chain) inject 2τη;
// f-reSGLD injects 2τη − η²ŝ² with ŝ² = s²·ratio (ratio 1: known variance).
func ExactW2(eta float64, corrected bool, ratio float64) float64 {
	return diag.GaussianW2(0, coldVar(eta, corrected, ratio), 0, cvTau1/cvLambda)
}

// coldVar is the cold chain's stationary variance without swaps; see ExactW2.
func coldVar(eta float64, corrected bool, ratio float64) float64 {
	v := 2 * cvTau1 * eta
	if corrected {
		v = math.Max(0, v-eta*eta*cvS1*cvS1*ratio)
	}
	return StationaryVar(eta, cvLambda, cvS1*cvS1, v)
}

// ExactW2Estimated is the mean over runs of ExactW2 when each run's ŝ² is
// s²·χ²_ν/ν: a variance estimate with ν degrees of freedom, frozen for the
// run (the kernel-ridge fit on a constant noise, ν = points·(repeats − 1)).
// toLD is the mean W2 between that law and the law of Langevin dynamics with
// exact gradients at the same η (the part due to gradient noise and its
// estimation). Means by the midpoint rule on 2000 quantiles of χ²_ν.
func ExactW2Estimated(eta float64, nu float64) (toTarget, toLD float64) {
	c := distuv.ChiSquared{K: nu}
	const m = 2000
	ld := coldVar(eta, true, 1)
	for i := range m {
		v := coldVar(eta, true, c.Quantile((float64(i)+0.5)/m)/nu)
		toTarget += diag.GaussianW2(0, v, 0, cvTau1/cvLambda) / m
		toLD += diag.GaussianW2(0, v, 0, ld) / m
	}
	return toTarget, toLD
}

// ConvexRow is one simulated run: the cold chain's retained states reduced
// to their second moment, and its W2 to N(0, τ1/λ) from quantiles.
type ConvexRow struct {
	Method   string
	Eta      float64
	Seed     int
	Samples  int
	M2       float64 // mean of θ²
	W2       float64
	SwapRate float64
	Grad     float64
}

// ConvexResult is the whole study.
type ConvexResult struct {
	Rows []ConvexRow
	// Pooled W2 from quantiles of all seeds' samples, per method and η.
	Pooled map[string]map[float64]float64
}

// Problem is the two-temperature Gaussian problem at step eta.
func (c Convex) Problem(eta float64) study.Problem {
	q := energy.NewIsoQuadratic(1, cvLambda)
	s := exchange.Setup{Tau1: cvTau1, Tau2: cvTau2, Eta: langevin.Constant{Step: eta},
		Cold: energy.NewNoisy(q, cvSig1, cvS1), Hot: energy.NewNoisy(q, cvSig2, cvS2), A: cvA, A1: 0.9}
	return study.Problem{Setup: s, Var: c.Var, Init: []float64{0}}
}

// Run simulates every variant at every η over the seeds.
func (c Convex) Run(log io.Writer) (ConvexResult, error) {
	if c.Seeds < 1 {
		return ConvexResult{}, fmt.Errorf("seeds = %d: need at least 1", c.Seeds)
	}
	if err := c.Var.Validate(); err != nil {
		return ConvexResult{}, err
	}
	for _, eta := range c.Etas {
		if !(eta > 0 && eta < 1/(2*cvLambda)) {
			return ConvexResult{}, fmt.Errorf("step size η = %v: Theorem 4.2 needs 0 < η < 1/(m+M) = %v", eta, 1/(2*cvLambda))
		}
	}
	exact := diag.Tempered1D(func(x float64) float64 { return cvLambda * x * x / 2 }, cvTau1, -12, 12, 240000)
	type job struct {
		v    study.Variant
		eta  float64
		seed int
		i    int
	}
	var jobs []job
	for _, v := range ConvexVariants {
		for _, eta := range c.Etas {
			for s := 1; s <= c.Seeds; s++ {
				jobs = append(jobs, job{v, eta, s, len(jobs)})
			}
		}
	}
	rows := make([]ConvexRow, len(jobs))
	samples := make([][]float64, len(jobs))
	errs := make([]error, len(jobs))
	study.Parallel(len(jobs), c.Workers, c.Progress, "convex", func(i int, done func()) {
		j := jobs[i]
		z := study.Size{Name: "convex", Burn: int(math.Ceil(cvBurnTime / j.eta)), Thin: max(1, int(math.Round(cvThinTime/j.eta))),
			Keep: int(math.Ceil(c.Time / cvThinTime))}
		r, err := c.Problem(j.eta).Execute(j.v, uint64(j.seed), z)
		done()
		if err == nil {
			err = study.Finite(r.Samples)
		}
		if err != nil {
			errs[j.i] = fmt.Errorf("convex η = %v: %w", j.eta, err)
			return
		}
		var m2 float64
		for _, x := range r.Samples {
			m2 += x * x
		}
		row := ConvexRow{Method: j.v.Name, Eta: j.eta, Seed: j.seed, Samples: len(r.Samples),
			M2: m2 / float64(len(r.Samples)), W2: exact.W2(r.Samples), SwapRate: math.NaN(), Grad: study.GradUnits(r.Stats)}
		if len(r.Stats.Pairs) > 0 {
			row.SwapRate = r.Stats.Pairs[0].Rate()
		}
		rows[j.i], samples[j.i] = row, r.Samples
	})
	for _, err := range errs {
		if err != nil {
			return ConvexResult{}, err
		}
	}
	res := ConvexResult{Rows: rows, Pooled: map[string]map[float64]float64{}}
	for _, v := range ConvexVariants {
		res.Pooled[v.Name] = map[float64]float64{}
		for _, eta := range c.Etas {
			var pool []float64
			for i, j := range jobs {
				if j.v.Name == v.Name && j.eta == eta {
					pool = append(pool, samples[i]...)
				}
			}
			res.Pooled[v.Name][eta] = exact.W2(pool)
		}
	}
	if log != nil {
		fmt.Fprintf(log, "convex: %d runs done\n", len(jobs))
	}
	return res, nil
}

// SlopeLogLog fits log y = a + b log x by least squares and returns b (NaN
// for fewer than two usable points).
func SlopeLogLog(xs, ys []float64) float64 {
	var lx, ly []float64
	for i := range xs {
		if xs[i] > 0 && ys[i] > 0 && !math.IsInf(ys[i], 0) {
			lx, ly = append(lx, math.Log(xs[i])), append(ly, math.Log(ys[i]))
		}
	}
	n := float64(len(lx))
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i] / n
		my += ly[i] / n
	}
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	return sxy / sxx
}
