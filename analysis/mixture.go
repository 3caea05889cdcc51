package analysis

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

// gmmBins is the number of equal bins on [−10, 10] over which TV is taken:
// 0.33-wide bins, narrower than either mode's sd.
const gmmBins = 60

func fractionAbove(xs []float64, c float64) float64 {
	n := 0
	for _, x := range xs {
		if x > c {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// weightMCSE is the Monte Carlo standard error of w, the share of the
// draws right of 0: the sd √(w(1 − w)) of the indicator over the square
// root of its ESS, from the chains and draws the diagnostics use.
func weightMCSE(res *Result, w float64) float64 {
	var ind [][]float64
	for _, c := range res.Chains {
		if !slices.Contains(res.Summary.DiagChains, c.Header.ID) {
			continue
		}
		xs := c.Cols[len(c.Columns)-1][:res.Summary.Draws]
		in := make([]float64, len(xs))
		for i, x := range xs {
			if x > 0 {
				in[i] = 1
			}
		}
		ind = append(ind, in)
	}
	if len(ind) == 0 {
		return math.NaN()
	}
	return math.Sqrt(w*(1-w)) / math.Sqrt(diag.ESSMean(ind))
}

func densityFigure(base string, exact diag.Grid1D, xs []float64, name string) error {
	exy := make(plotter.XYs, 801)
	for i := range exy {
		exy[i].X = -8 + 14*float64(i)/800
		exy[i].Y = exact.At(exy[i].X)
	}
	p, err := figure.Densities("Gaussian mixture, τ1 = 1: samples against the exact density", exy,
		[]figure.Curve{{Name: name, XY: figure.Histogram(xs, -8, 6, 84)}})
	if err != nil {
		return err
	}
	// 11 inches: a report's page width at the PNG's 96 dpi.
	return figure.Save(p, 11*vg.Inch, 4.5*vg.Inch, base)
}

// MixtureFit compares the draws the table pools, of a run on a
// one-dimensional energy u (the last column), with the exact density of
// exp(−u/τ): total variation over gmmBins bins, W1 and the weight right of
// 0. It draws density.png/svg into the run's directory and returns the
// metrics and the line that says them.
func MixtureFit(res *Result, u func(float64) float64, tau float64, name string) (metrics map[string]any, line string, err error) {
	var xs []float64
	for _, c := range results.PooledChains(res.Chains) {
		xs = append(xs, c.Cols[len(c.Columns)-1]...)
	}
	if len(xs) == 0 {
		return nil, "", nil
	}
	exact := diag.Tempered1D(u, tau, -10, 10, 20000)
	res.SetExactDensity(res.Chains[0].Columns[len(res.Chains[0].Columns)-1], exact.At)
	w := fractionAbove(xs, 0)
	mcse := weightMCSE(res, w)
	metrics = map[string]any{
		"tv": exact.TV(xs, gmmBins), "tv_bins": gmmBins, "w1": exact.W1(xs),
		"right_mode_weight": w, "right_mode_weight_exact": 1 - exact.CDF(0), "right_mode_weight_mcse": results.JSONNum(mcse), // null when the ESS is undefined
	}
	line = fmt.Sprintf("pooled draws against the exact density: TV %.4f (%d bins), W1 %.4f, right-mode weight %.3f ± %.2g MCSE (exact %.3f)",
		metrics["tv"], gmmBins, metrics["w1"], w, mcse, metrics["right_mode_weight_exact"])
	if err := densityFigure(res.dir.File("density"), exact, xs, name); err != nil {
		return metrics, line, err
	}
	res.dir.Record("density.png", "density.svg")
	return metrics, line, nil
}

// MixtureStability judges the step size η (the largest of a decreasing
// schedule, its first) against the mixture's curvature before any
// sampling. A Langevin step contracts along a direction of curvature λ
// only if ηλ < 2, whatever the temperature, which scales the noise, not
// the drift. U” of a Gaussian mixture is the components' precisions
// averaged by their posterior weights minus the variance of the scores, so
// it lies below λ_max = max 1/σ_k², and in the tails it tends to that of
// the widest component, 1/max σ_k². Beyond 2 over the tails' curvature
// every chain diverges: refused (unless refuse is false). Between 2/λ_max and that, the narrowest
// component cannot hold a chain: a warning, since the run completes but
// misses that mode.
func MixtureStability(mix models.Mixture, eta float64, refuse bool) (warn string, err error) {
	var lmax, ltail float64
	for _, sd := range mix.SDs {
		lmax = max(lmax, 1/(sd*sd))
		if ltail == 0 || 1/(sd*sd) < ltail {
			ltail = 1 / (sd * sd)
		}
	}
	if eta*ltail > 2 && refuse {
		return "", fmt.Errorf("--eta = %v: η·λ = %.3g > 2 even at the curvature λ = %.3g of U's tails (its widest component): every Langevin step overshoots and the chains diverge; give --eta below %.3g (below %.3g = 2/λ_max to sample the narrowest mode too)",
			eta, eta*ltail, ltail, 2/ltail, 2/lmax)
	}
	if eta*lmax > 2 {
		return fmt.Sprintf("--eta = %v: η·λ_max = %.3g > 2 at the narrowest component (λ_max = %.3g): its mode cannot hold a chain, and the draws will miss it; give --eta below %.3g", eta, eta*lmax, lmax, 2/lmax), nil
	}
	return "", nil
}
