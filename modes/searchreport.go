package modes

import (
	"fmt"
	"strings"
)

// A search for modes can say where a mode is, never that there is none
// elsewhere: what it did not look at is the blind spot of every plan built
// on it. So the run says what was searched, beside what was found, in its
// notes, in summary.json (plan.search) and under the report's verdict,
// which is "trusted" only within it.

// SearchSummary is what the mode search looked at and found, for
// summary.json.
type SearchSummary struct {
	// Searches are the L-BFGS searches: from the start, from the model's
	// own starts, from falls in U along the rays, and from random starts
	// at SpreadSDs Laplace sds about the first mode.
	Searches     int        `json:"searches"`
	ModelStarts  int        `json:"model_starts"`
	RayStarts    int        `json:"ray_starts"`
	RandomStarts int        `json:"random_starts"`
	SpreadSDs    [2]float64 `json:"random_spread_sds"`
	// OneBasin says the random starts stopped after the check, every
	// search having ended in the first mode's basin.
	OneBasin bool `json:"one_basin_check"`
	// Rays were read out to RayReachSDs Laplace sds of the first mode (the
	// least over the rays: a ray ends where U is not finite).
	Rays        int     `json:"rays"`
	RayReachSDs float64 `json:"ray_reach_sds"`
	// Modes are those found (after weighing), Merged the minima filed
	// under a mode for want of a barrier of basinBarrier nats, Saddles and
	// Failed the searches that ended at a saddle or did not converge.
	Modes   int `json:"modes"`
	Merged  int `json:"merged_minima"`
	Saddles int `json:"saddles"`
	Failed  int `json:"failed"`
	// Evals are the evaluations of U or ∇U the search spent.
	Evals int `json:"evaluations"`
	// Searched says all of it in a line.
	Searched string `json:"searched"`
}

// Summary is s for summary.json; model is the model's own starts.
func (s *ModeSearch) Summary(model int) *SearchSummary {
	return &SearchSummary{Searches: s.Starts, ModelStarts: model, RayStarts: len(s.rayStarts), RandomStarts: s.Random, SpreadSDs: s.Spread, OneBasin: s.Checked,
		Rays: s.Rays, RayReachSDs: s.RayReach, Modes: len(s.Modes), Merged: s.Merged, Saddles: s.Saddles, Failed: s.Failed, Evals: s.Evals, Searched: s.Searched()}
}

// Searched says where the search looked, in a line: the starts of its
// searches, and how far along how many rays it read U.
func (s *ModeSearch) Searched() string {
	var parts []string
	found := fmt.Sprintf("found %d mode(s)", len(s.Modes))
	if s.Merged > 0 {
		found += fmt.Sprintf(" (and %d minima filed under them, with no barrier of %g nats between)", s.Merged, basinBarrier)
	}
	parts = append(parts, fmt.Sprintf("%s in %d search(es) by L-BFGS", found, s.Starts))
	if n := len(s.rayStarts); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of them from a fall in U along a ray", n))
	}
	if s.Random > 0 {
		r := fmt.Sprintf("%d from random starts %g to %g Laplace sds about the first mode", s.Random, s.Spread[0], s.Spread[1])
		if s.Checked {
			r += " (no more: every search ended in the first mode's basin)"
		}
		parts = append(parts, r)
	}
	if s.Rays > 0 {
		parts = append(parts, fmt.Sprintf("U and its slope read along %d rays from the first mode out to %.4g Laplace sds", s.Rays, s.RayReach))
	}
	parts = append(parts, fmt.Sprintf("%d evaluations of U or ∇U", s.Evals))
	return strings.Join(parts, ", ") + "; a mode further out, or in a basin that no start or ray met, would be missed"
}
