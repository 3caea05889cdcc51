package minibatch

import (
	"fmt"
	"io"
	"math"
)

// SDMarkdown writes the follow-up's tables: the linear prediction of the sd
// bias for the cold chain (n = NCold, τ1) and for hot chains (τ2) at the
// sizes given, the measured scores at the last budget and at budget mid,
// and the per-coordinate comparison of measured and predicted sd ratios.
//
// If main is the main study's breast-cancer summary (nil if not at hand),
// it also gives each variant's cost to reach reSGLD's final sd error there.
func SDMarkdown(w io.Writer, pr Problem, seeds int, lin []LinearPrediction, hotLin map[int][]LinearPrediction, hotSizes []int, sums []SDSummary, main *Summary) {
	st := pr.Setting
	fmt.Fprintf(w, "Problem %s at the study's setting: τ1 = %g, τ2 = %g, η = %.4g, cold n = %d, hot n automatic, %d seeds.\n\n",
		pr.Name, st.Tau1, st.Tau2, st.Eta, st.NCold, seeds)
	fmt.Fprintf(w, "Linear prediction at the posterior mode (Laplace approximation, exact minibatch noise covariance C; sd bias = RMS and mean over coordinates of sd/√(τ(H⁻¹)_jj) − 1):\n\n")
	fmt.Fprintf(w, "| chain | noise | RMS sd bias | mean sd bias | clamped coordinates |\n|---|---|---|---|---|\n")
	row := func(chain string, ps []LinearPrediction) {
		for _, p := range ps {
			fmt.Fprintf(w, "| %s | %s | %.4f | %+.4f | %d |\n", chain, p.Noise, p.RMS, p.Mean, p.Clamped)
		}
	}
	row(fmt.Sprintf("cold, τ = %g, n = %d", st.Tau1, st.NCold), lin)
	for _, n := range hotSizes {
		row(fmt.Sprintf("hot, τ = %g, n = %d", st.Tau2, n), hotLin[n])
	}
	nb := len(st.Budgets)
	at := []int{nb - 1}
	if nb >= 3 {
		at = []int{nb / 2, nb - 1}
	}
	for _, b := range at {
		fmt.Fprintf(w, "\nMeasured at %.3g per-example evaluations (mean ± se over seeds; signed sd bias = mean over coordinates of ŝ_j/s_j − 1; clamps per step):\n\n", st.Budgets[b])
		fmt.Fprintf(w, "| variant | mean error | sd error | signed sd bias | clamped steps cold / hot | clamped coordinate-steps cold / hot |\n|---|---|---|---|---|---|\n")
		for _, s := range sums {
			m, e := s.Mean[b], s.SE[b]
			fmt.Fprintf(w, "| %s | %.4f ± %.4f | %.4f ± %.4f | %+.4f ± %.4f | %.4f / %.4f | %.5f / %.5f |\n",
				s.Variant, m[0], e[0], m[1], e[1], m[2], e[2], s.ClampStepsCold, s.ClampStepsHot, s.ClampCoordCold, s.ClampCoordHot)
		}
	}
	fmt.Fprintf(w, "\nsd error (mean ± se over seeds) against per-example evaluations:\n\n| evaluations |")
	for _, s := range sums {
		fmt.Fprintf(w, " %s |", s.Variant)
	}
	fmt.Fprintf(w, "\n|---|")
	for range sums {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintln(w)
	for b, x := range st.Budgets {
		fmt.Fprintf(w, "| %.3g |", x)
		for _, s := range sums {
			fmt.Fprintf(w, " %.4f ± %.4f |", s.Mean[b][1], s.SE[b][1])
		}
		fmt.Fprintln(w)
	}
	if re := resgldOf(main); re != nil && len(re.Mean) == len(st.Budgets) {
		final, cost := re.Mean[len(re.Mean)-1][1], st.Budgets[len(st.Budgets)-1]
		fmt.Fprintf(w, "\nCost to reach reSGLD's final sd error in the main study (%.4f at %.3g evaluations, %d seeds; interpolated log-linearly as there):\n\n| variant | to sd error ≤ %.4f | vs reSGLD |\n|---|---|---|\n", final, cost, main.Seeds, final)
		for _, s := range sums {
			r := Reach(st.Budgets, s.Mean, 1, final)
			if math.IsNaN(r) {
				fmt.Fprintf(w, "| %s | not reached | — |\n", s.Variant)
				continue
			}
			fmt.Fprintf(w, "| %s | %.3g | %.2f× |\n", s.Variant, r, r/cost)
		}
	}
	// Per coordinate: does the linear prediction of what the diagonal
	// correction does to each sd match what the chains do?
	var base *SDSummary
	for i := range sums {
		if sums[i].Variant == SDVariants[0].Name {
			base = &sums[i]
		}
	}
	pred := map[LinearNoise][]float64{}
	for _, p := range lin {
		pred[p.Noise] = p.Ratio
	}
	pS := pred[SGLDNoise]
	if base == nil || pS == nil || pred[DiagCorrectedNoise] == nil || pred[ExactNoise] == nil {
		return
	}
	fmt.Fprintf(w, "\nPer coordinate at the last budget: measured sd ratio of each variant minus SGLD's (ŝ_j/s_j, means over seeds), against the linear prediction of the same difference for the cold chain (its noise minus SGLD's: the exact diagonal correction's for the diagonal variants, the full gradient's for the full-covariance one, whose injected noise cancels the gradient noise's covariance): Pearson correlation over the %d coordinates, least-squares slope through the origin, and the mean measured and predicted differences.\n\n", len(pS))
	fmt.Fprintf(w, "| variant | predicted by | correlation | slope | mean measured difference | mean predicted difference |\n|---|---|---|---|---|---|\n")
	for _, s := range sums {
		if s.Variant == base.Variant || s.Uncorrected {
			continue
		}
		model := DiagCorrectedNoise
		if s.FullCov {
			model = ExactNoise
		}
		d := make([]float64, len(pS))
		obs := make([]float64, len(pS))
		for j := range obs {
			d[j] = pred[model][j] - pS[j]
			obs[j] = s.Ratio[j] - base.Ratio[j]
		}
		r, slope := corrSlope(d, obs)
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %+.4f | %+.4f |\n", s.Variant, model, r, slope, mean(obs), mean(d))
	}
	fmt.Fprintln(w)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// corrSlope returns the Pearson correlation of x and y and the slope of the
// least-squares line y ≈ b·x through the origin.
func corrSlope(x, y []float64) (r, b float64) {
	mx, my := mean(x), mean(y)
	var sxy, sxx, syy, sxy0, sxx0 float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
		sxy0 += x[i] * y[i]
		sxx0 += x[i] * x[i]
	}
	return sxy / math.Sqrt(sxx*syy), sxy0 / sxx0
}

// resgldOf is reSGLD's summary in the main study's sum, or nil.
func resgldOf(sum *Summary) *MethodSummary {
	if sum == nil {
		return nil
	}
	for i := range sum.Methods {
		if sum.Methods[i].Method == "resgld" {
			return &sum.Methods[i]
		}
	}
	return nil
}
