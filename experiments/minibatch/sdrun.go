package minibatch

import (
	"fmt"
	"math"
	"strings"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// The sd follow-up: the study found f-reSGLD's and corrected-sgld's sd
// error levelling off on breast cancer. SDVariant reruns a method at the
// study's setting with one thing changed: where the corrected step's ŝ²
// comes from, or the form of its correction.
type SDVariant struct {
	// Key names the variant on the command line.
	Key    string
	Name   string
	Method exchange.Method // sgld, resgld, fresgld or CorrectedSGLD
	// SmoothCold and SmoothHot give the cold (hot) chain the window-averaged
	// per-example spread N(N − n)/n · S̄_j² (variance.AutoOptions.Smooth)
	// instead of each draw's own N(N − n)/n · s_j². The cold chain keeps its
	// n (an AutoBatch with Min = Max = NCold); the hot one keeps the
	// automatic rule.
	SmoothCold, SmoothHot bool
	// Correction, for the corrected methods, is Diagonal (the study's) or
	// Full: the injected noise has covariance (2τη·I − η²Ĉ)⁺, Ĉ each
	// draw's full covariance from its per-example gradients
	// (langevin.CorrectedFull). Full uses no ŝ², so it takes no smoothing.
	Correction exchange.Correction
}

// SDVariants are the follow-up's runs, in the order it reports them.
var SDVariants = []SDVariant{
	{Key: "sgld", Name: "sgld", Method: exchange.SGLDMethod},
	{Key: "resgld", Name: "resgld", Method: exchange.ReSGLDMethod},
	{Key: "csgld", Name: "corrected-sgld, per-draw ŝ²", Method: CorrectedSGLD},
	{Key: "csgld-smooth", Name: "corrected-sgld, smoothed ŝ²", Method: CorrectedSGLD, SmoothCold: true},
	{Key: "fresgld", Name: "fresgld, per-draw ŝ² (both)", Method: exchange.FReSGLDMethod},
	{Key: "fresgld-smooth-hot", Name: "fresgld, smoothed hot ŝ²", Method: exchange.FReSGLDMethod, SmoothHot: true},
	{Key: "fresgld-smooth", Name: "fresgld, smoothed ŝ² (both)", Method: exchange.FReSGLDMethod, SmoothCold: true, SmoothHot: true},
	{Key: "csgld-full", Name: "corrected-sgld, full Ĉ", Method: CorrectedSGLD, Correction: exchange.Full},
	{Key: "fresgld-full", Name: "fresgld, full Ĉ (both)", Method: exchange.FReSGLDMethod, Correction: exchange.Full},
}

// SelectSDVariants returns the variants named by keys, in the order of
// SDVariants; "all" alone selects every one.
func SelectSDVariants(keys []string) ([]SDVariant, error) {
	if len(keys) == 1 && keys[0] == "all" {
		return SDVariants, nil
	}
	want := map[string]bool{}
	for _, k := range keys {
		found := false
		for _, v := range SDVariants {
			found = found || v.Key == k
		}
		if !found {
			names := make([]string, len(SDVariants))
			for i, v := range SDVariants {
				names[i] = v.Key
			}
			return nil, fmt.Errorf("unknown variant %q (want all or some of %s)", k, strings.Join(names, ", "))
		}
		want[k] = true
	}
	var out []SDVariant
	for _, v := range SDVariants {
		if want[v.Key] {
			out = append(out, v)
		}
	}
	return out, nil
}

// SDRun is one run of one variant: the breast-cancer scores at the
// budgets, the per-coordinate sd ratio (chain sd / reference sd) at the
// last one, and the chains' clamp counts.
type SDRun struct {
	// Score[b] = {mean error, sd error, signed sd bias}; the signed bias is
	// mean_j (ŝ_j/s_j − 1), positive when the chain runs hot.
	Score [][]float64
	Ratio []float64
	Steps int
	// ClampCold and ClampHot: steps with a clamped coordinate, and
	// clamped coordinate-steps, per step (per coordinate-step).
	ClampStepsCold, ClampCoordCold float64
	ClampStepsHot, ClampCoordHot   float64
}

// sdMoments adds the signed sd bias to moments' scores.
type sdMoments struct{ *moments }

func (a sdMoments) Score(dst []float64) {
	a.moments.Score(dst[:2])
	dst[2] = 0
	for _, r := range a.ratio() {
		dst[2] += (r - 1) / float64(len(a.mean))
	}
}

func (a sdMoments) ratio() []float64 {
	r := make([]float64, len(a.mean))
	for j := range r {
		r[j] = math.Sqrt(a.m2[j]/a.n) / a.ref.SD[j]
	}
	return r
}

// RunSD runs variant v on the breast-cancer problem pr with reference ref.
func RunSD(pr Problem, ref Reference, v SDVariant, seed uint64) (SDRun, error) {
	if v.Correction == exchange.Full && (v.SmoothCold || v.SmoothHot || (v.Method != CorrectedSGLD && v.Method != exchange.FReSGLDMethod)) {
		return SDRun{}, fmt.Errorf("sd variant %q: the full correction needs a corrected method (corrected-sgld or fresgld) and uses no smoothed ŝ²", v.Name)
	}
	st := pr.Setting
	var res SDRun
	cold, hot, err := pr.Estimators()
	if err != nil {
		return res, err
	}
	var used float64
	eta := langevin.Constant{Step: st.Eta}
	var varErr error
	keep := func(m *variance.AutoBatch, err error) variance.Model {
		if err != nil && varErr == nil {
			varErr = err
		}
		return m
	}
	setup := exchange.Setup{
		Tau1: st.Tau1, Tau2: st.Tau2, Eta: eta,
		Cold: meter{cold, &used}, Hot: meter{hot, &used},
		HotVar: func() variance.Model {
			return keep(variance.NewAutoBatch(hot, st.Tau2, eta, variance.AutoOptions{Share: st.Share, Every: st.Every, Smooth: v.SmoothHot}))
		},
		A: st.SwapA, A1: st.A1, Seed: seed, Correction: v.Correction,
		// The paper's swaps, as in Run.
		Energies: exchange.Energies{Gaussian: true},
	}
	if v.SmoothCold {
		setup.ColdVar = func() variance.Model {
			return keep(variance.NewAutoBatch(cold, st.Tau1, eta, variance.AutoOptions{Every: st.Every, Min: st.NCold, Max: st.NCold, Smooth: true}))
		}
	}
	var cfg exchange.Config
	if v.Method == CorrectedSGLD {
		cfg = exchange.Config{Levels: []exchange.Level{{Tau: st.Tau1, Est: setup.Cold, Eta: eta, Noise: v.Correction.Policy(), Var: call(setup.ColdVar)}}, Seed: seed}
	} else if cfg, err = v.Method.Config(setup); err != nil {
		return res, err
	}
	if varErr != nil {
		return res, varErr
	}
	s, err := study.NewLadder(cfg, st.Init)
	if err != nil {
		return res, err
	}
	defer s.Close()
	acc := sdMoments{newMoments(ref)}
	burnt := false
	for _, b := range st.Budgets {
		for used < b {
			if err := s.Step(); err != nil {
				return res, fmt.Errorf("%s, seed %d: %w", v.Name, seed, err)
			}
			if !burnt {
				burnt = FreezeBurnCost(s, used, st.BurnCost)
				continue
			}
			acc.Add(s.State(0))
		}
		sc := []float64{math.NaN(), math.NaN(), math.NaN()}
		if acc.n > 0 {
			acc.Score(sc)
		}
		res.Score = append(res.Score, sc)
	}
	if acc.n > 0 {
		res.Ratio = acc.ratio()
	}
	stats := s.Stats()
	res.Steps = stats.Steps
	p := float64(len(st.Init))
	n := float64(stats.Steps)
	res.ClampStepsCold = float64(stats.Levels[0].ClampedSteps) / n
	res.ClampCoordCold = float64(stats.Levels[0].Clamped) / (n * p)
	if len(stats.Levels) > 1 {
		res.ClampStepsHot = float64(stats.Levels[1].ClampedSteps) / n
		res.ClampCoordHot = float64(stats.Levels[1].Clamped) / (n * p)
	}
	return res, nil
}

func call(f func() variance.Model) variance.Model {
	if f == nil {
		return nil
	}
	return f()
}

// SDSummary is one variant's follow-up over the seeds: mean and standard
// error of each score at each budget, the mean per-coordinate sd ratio at
// the last budget, and the mean clamp rates.
type SDSummary struct {
	Variant string
	FullCov bool // the variant corrects against the full covariance
	// Uncorrected: the variant's cold chain injects plain SGLD noise.
	Uncorrected bool
	Mean, SE    [][]float64
	// Ratio[j] and RatioSE[j]: chain sd / reference sd of coordinate j at
	// the last budget, mean and standard error over seeds.
	Ratio, RatioSE                 []float64
	Steps                          float64
	ClampStepsCold, ClampCoordCold float64
	ClampStepsHot, ClampCoordHot   float64
}

// SDStudy runs every variant for seeds 1..seeds on workers goroutines.
func SDStudy(pr Problem, ref Reference, variants []SDVariant, seeds, workers int, progress func(done, total int)) ([]SDSummary, error) {
	runs := make([][]SDRun, len(variants))
	for i := range runs {
		runs[i] = make([]SDRun, seeds)
	}
	err := runAll(len(variants), seeds, workers, progress, func(v, s int) (err error) {
		runs[v][s], err = RunSD(pr, ref, variants[v], uint64(s+1))
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []SDSummary
	xs := make([]float64, seeds)
	for v, rs := range runs {
		m := variants[v].Method
		sm := SDSummary{Variant: variants[v].Name, FullCov: variants[v].Correction == exchange.Full, Uncorrected: m != CorrectedSGLD && m != exchange.FReSGLDMethod}
		for b := range pr.Setting.Budgets {
			mean, se := make([]float64, 3), make([]float64, 3)
			for k := range mean {
				for i, r := range rs {
					xs[i] = r.Score[b][k]
				}
				mean[k], se[k] = diag.MeanSE(xs)
			}
			sm.Mean, sm.SE = append(sm.Mean, mean), append(sm.SE, se)
		}
		p := len(ref.Mean)
		sm.Ratio, sm.RatioSE = make([]float64, p), make([]float64, p)
		for j := 0; j < p; j++ {
			for i, r := range rs {
				xs[i] = math.NaN()
				if r.Ratio != nil {
					xs[i] = r.Ratio[j]
				}
			}
			sm.Ratio[j], sm.RatioSE[j] = diag.MeanSE(xs)
		}
		f := 1 / float64(seeds)
		for _, r := range rs {
			sm.Steps += f * float64(r.Steps)
			sm.ClampStepsCold += f * r.ClampStepsCold
			sm.ClampCoordCold += f * r.ClampCoordCold
			sm.ClampStepsHot += f * r.ClampStepsHot
			sm.ClampCoordHot += f * r.ClampCoordHot
		}
		out = append(out, sm)
	}
	return out, nil
}
