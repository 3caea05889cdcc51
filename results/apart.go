package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A chain that found what the plan's search missed sits apart: started
// over-dispersed (dispersedStart), it fell into another basin and stayed,
// or stopped where no other chain goes. R̂ rises then too, but says
// neither which chain nor where; and on few chains, or with one chain
// apart among many, it may stay under its threshold. So every run checks
// each chain's median of lp__ and of each parameter against the range of
// all the other chains' draws.
//
// The rule has no false alarm to speak of on chains that sample the same
// law: with n draws in each of k chains, the others' range spans from
// about their 1/((k−1)n) quantile to the one as far from the top, and a
// chain's median falls beyond it only if half its draws do, a chance
// below 2^−n for independent draws (an autocorrelated chain of ESS m
// behaves as m draws: 2^−m, still nil at the ESS a run is trusted with).

// ApartWarnings are the warnings of the chains whose median of a column
// (lp__ and then cols; nil: every column of the first chain's but the
// sampler's own, named …__, the parameters and generated quantities) lies
// outside the range of the other chains' draws of it, one a chain, at its
// column farthest out in the others' sds; searched says what the plan's
// search looked at ("" when it ran none or is not known, as in a merge).
func ApartWarnings(chains []*Chain, cols []string, searched string) []Warning {
	var have []*Chain
	for _, c := range chains {
		if len(c.Cols) > 0 && slices.Index(c.Columns, "lp__") >= 0 && len(c.Cols[slices.Index(c.Columns, "lp__")]) > 0 {
			have = append(have, c)
		}
	}
	if len(have) < 2 {
		return nil
	}
	if cols == nil {
		for _, c := range have[0].Columns {
			if !strings.HasSuffix(c, "__") {
				cols = append(cols, c)
			}
		}
	}
	names := append([]string{"lp__"}, cols...)
	var out []Warning
	for i, c := range have {
		worst, wname := 0.0, ""
		var wmed, wlo, whi float64
		for _, name := range names {
			j := slices.Index(c.Columns, name)
			if j < 0 {
				continue
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			var s, q, n float64
			for k, o := range have {
				if k == i {
					continue
				}
				oj := slices.Index(o.Columns, name)
				if oj < 0 {
					continue
				}
				for _, v := range o.Cols[oj] {
					lo, hi = min(lo, v), max(hi, v)
					s, q, n = s+v, q+v*v, n+1
				}
			}
			if n < 2 {
				continue
			}
			med := median(c.Cols[j])
			var gap float64
			switch {
			case med > hi:
				gap = med - hi
			case med < lo:
				gap = lo - med
			default:
				continue
			}
			sd := math.Sqrt(max(0, q/n-(s/n)*(s/n)))
			z := gap / sd
			if sd == 0 {
				z = math.Inf(1)
			}
			if wname == "" || z > worst {
				worst, wname, wmed, wlo, whi = z, name, med, lo, hi
			}
		}
		if wname == "" {
			continue
		}
		what := "the plan searched for no modes, or its search is not known here"
		if searched != "" {
			what = "the plan's search (" + searched + ") found nothing there, or this chain alone left the region the others sample"
		}
		out = append(out, Warning{
			Code:   "chain-apart",
			Chain:  c.Header.ID,
			Number: worst,
			Message: fmt.Sprintf("chain %d sits where no other chain goes: its median %s is %.6g, outside every draw of the other chains (%.6g to %.6g), %.3g of their sds beyond; %s. The pooled table mixes regions the chains do not share",
				c.Header.ID, wname, wmed, wlo, whi, worst, what),
			Remedy: "rerun with more chains (raise --chains) to see how much of the posterior lies there, and look at the model there; the estimates of this run are not to be trusted",
		})
	}
	return out
}

// median is the middle of v (the mean of the two middle values for an
// even count).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
