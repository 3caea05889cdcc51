package results

import (
	"strconv"
	"strings"
)

// A logistic run on standardised features records each feature's mean and
// sd among its settings, on one line (standardisedKey), so that the chain
// files alone (and so merge, byte for byte) give the coefficients on the
// data's scale. One line, not one per feature, keeps the comment header
// short on wide data.
const standardisedKey = "standardisation"

// StandardisationSettings is the settings line of the features' means and
// sds, in the features' order: "standardisation = m1 s1 m2 s2 …", written
// exactly (shortest round-trip form).
func StandardisationSettings(means, sds []float64) [][2]string {
	var b strings.Builder
	for j := range means {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(means[j], 'g', -1, 64) + " " + strconv.FormatFloat(sds[j], 'g', -1, 64))
	}
	return [][2]string{{standardisedKey, b.String()}}
}

// standardisation reads back the means and sds, and whether the model has
// an intercept; ok is false when the settings hold none (a run on the
// data's scale, or a chain written before they were recorded).
func standardisation(settings [][2]string) (means, sds []float64, intercept, ok bool) {
	var line string
	for _, kv := range settings {
		switch kv[0] {
		case "no_intercept":
			intercept = kv[1] == "false"
		case standardisedKey:
			line = kv[1]
		}
	}
	f := strings.Fields(line)
	if len(f) == 0 || len(f)%2 != 0 {
		return nil, nil, false, false
	}
	for j := 0; j < len(f); j += 2 {
		mv, err1 := strconv.ParseFloat(f[j], 64)
		sv, err2 := strconv.ParseFloat(f[j+1], 64)
		if err1 != nil || err2 != nil || !(sv > 0) {
			return nil, nil, false, false
		}
		means, sds = append(means, mv), append(sds, sv)
	}
	return means, sds, intercept, true
}

// rawScaleDraws transforms the coefficients' draws (coef[k][c] is
// coefficient k's draws in chain c; coefficient 0 is the intercept when
// intercept is set) back to the data's scale, draw by draw, so that their
// summaries (mean, quantiles, ESS, R̂) are those of the raw-scale
// posterior, not rescaled summaries: feature j entered the model as
// (x − m_j)/s_j, so its raw slope is β_j/s_j, and the raw intercept is
// α − Σ_j β_j·m_j/s_j. Without an intercept the centring has nowhere to
// go, and only the slopes are transformed.
func rawScaleDraws(coef [][][]float64, intercept bool, means, sds []float64) [][][]float64 {
	k0 := 0
	if intercept {
		k0 = 1
	}
	out := make([][][]float64, len(coef))
	for k := range coef {
		out[k] = make([][]float64, len(coef[k]))
		for c := range coef[k] {
			out[k][c] = make([]float64, len(coef[k][c]))
		}
	}
	for c := range coef[0] {
		for d := range coef[0][c] {
			var shift float64
			for k := k0; k < len(coef); k++ {
				b := coef[k][c][d] / sds[k-k0]
				out[k][c][d] = b
				shift += b * means[k-k0]
			}
			if intercept {
				out[0][c][d] = coef[0][c][d] - shift
			}
		}
	}
	return out
}

// rawScaleHeading introduces the table of coefficients on the data's scale.
func rawScaleHeading(intercept bool) string {
	h := "on the data's scale (the same draws transformed one by one: slope/sd, intercept − Σ slope·mean/sd):"
	if !intercept {
		h = "on the data's scale (the same draws transformed one by one: slope/sd; without an intercept the centring, −Σ slope·mean/sd, is a fixed offset on this scale, not shown):"
	}
	return h
}
