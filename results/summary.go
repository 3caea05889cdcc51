package results

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/report"
)

// Summary is what a multi-chain run (or a merge of single-chain runs)
// reports: computed from the chains' CSVs alone, so that both print the
// same table.
type Summary struct {
	Command string `json:"command"`
	Chains  []int  `json:"chains"`     // the chains pooled
	Ran     int    `json:"chains_run"` // the chains run, pooled or not
	// Draws is the length of the equal-length layout from which MCSE, ESS
	// and R̂ are computed (DiagChains, each cut to Draws); when every
	// pooled chain has the same number of draws, all of them.
	Draws      int   `json:"draws_per_chain"`
	DiagChains []int `json:"diagnostic_chains"`
	// PooledDraws are the draws the means, sds and quantiles pool: every
	// draw of every pooled chain.
	PooledDraws int `json:"pooled_draws"`
	// PerChain says, for every chain run, how many draws it wrote, how
	// many steps it took and how it ended.
	PerChain   []ChainDraws `json:"per_chain"`
	Parameters []ParamRow   `json:"parameters"`
	Swaps      []PairRow    `json:"swap_acceptance"`
	Clamped    []LevelRow   `json:"clamped"`
	Cost       float64      `json:"total_cost"`
	// Counted is the number of chains whose counters (swaps, clamped
	// steps, cost) the table sums: every chain but those killed.
	Counted  int         `json:"chains_counted"`
	CostUnit string      `json:"cost_unit"`
	Stopped  []ChainStop `json:"stopped_chains,omitempty"`
	// Scale says on what scale the coefficients are, when not the data's
	// own: a user comparing with another tool's raw-scale estimates
	// must not read standardised ones as those.
	Scale string `json:"scale,omitempty"`
	// DataScale are the coefficients on the data's scale (rawScaleDraws),
	// with the heading that says how they were found.
	DataScale        []ParamRow `json:"parameters_data_scale,omitempty"`
	DataScaleHeading string     `json:"data_scale,omitempty"`
	// Interrupted is set when a chain was stopped by SIGINT or SIGTERM.
	Interrupted bool     `json:"interrupted"`
	Notes       []string `json:"notes,omitempty"`
	Warnings    []string `json:"warnings"`
	// Details are the warnings as values, in the same order.
	Details []Warning `json:"warning_details"`

	// exact are the exact marginal densities known, by variable, which
	// the marginals figure overlays (Result.SetExactDensity).
	exact map[string]func(float64) float64
}

// SetWarnings makes ws the summary's warnings.
func (s *Summary) SetWarnings(ws []Warning) {
	s.Details, s.Warnings = ws, messages(ws)
}

// ParamRow is one variable's row of the table: the report's Variable,
// whose JSON ({"variable": name, ...the Summary's fields}) is the row as
// summary.json has it and as the report reads it back.
type ParamRow = report.Variable

type PairRow struct {
	Levels   [2]int   `json:"levels"` // numbered from 1, the coldest
	Attempts int      `json:"attempts"`
	Accepts  int      `json:"accepts"`
	Rate     *float64 `json:"rate"` // null without attempts
	// NoSwap counts the chains that attempted swaps on this pair and
	// accepted none.
	NoSwap int `json:"chains_without_swaps"`
}

type LevelRow struct {
	Level        int     `json:"level"`
	Steps        int     `json:"steps"`
	ClampedSteps int64   `json:"clamped_steps"`
	Share        float64 `json:"share"`
	// At a Metropolis-adjusted level: the accepted proposals (one a step)
	// and their share of the steps; nil elsewhere.
	Accepted   *int64   `json:"accepted,omitempty"`
	AcceptRate *float64 `json:"accept_rate,omitempty"`
	// At a level that jumps between the modes (exchange.Jumps): its
	// jumps, those accepted (also in Accepted) and their share.
	Jumps         *int64   `json:"jumps,omitempty"`
	JumpsAccepted *int64   `json:"jumps_accepted,omitempty"`
	JumpRate      *float64 `json:"jump_accept_rate,omitempty"`
}

// ChainDraws is what one chain contributed.
type ChainDraws struct {
	Chain  int    `json:"chain"`
	Draws  int    `json:"draws"`
	Steps  int    `json:"steps"`
	Status string `json:"status"` // one of the status* constants
	Pooled bool   `json:"pooled"` // its draws are in the table
}

// How a chain ended.
const (
	StatusFinished    = "finished"
	StatusInterrupted = "interrupted"
	// A chain that was waiting for a core when the signal came (RunChains
	// runs as many chains at once as there are cores) takes no step.
	StatusNeverStarted = "never started"
	StatusKilled       = "killed" // its file ends without statistics
	StatusStopped      = "stopped"
)

// status is how chain c ended.
func (c *Chain) status() string {
	switch {
	case c.Stats.Torn:
		return StatusKilled
	case c.Stats.Stopped == "":
		return StatusFinished
	case interrupted(c.Stats.Stopped) && c.Stats.Steps == 0:
		return StatusNeverStarted
	case interrupted(c.Stats.Stopped):
		return StatusInterrupted
	}
	return StatusStopped
}

// PooledChains are the chains whose draws the table pools: every chain
// with draws that finished, was interrupted or was killed, since each of
// those draws was taken by a sound chain; a chain stopped by an error
// (divergence, a NaN) is left out unless no other chain has draws.
func PooledChains(chains []*Chain) []*Chain {
	var good, any []*Chain
	for _, c := range chains {
		if len(c.Cols) == 0 || len(c.Cols[0]) == 0 {
			continue
		}
		any = append(any, c)
		if c.status() != StatusStopped {
			good = append(good, c)
		}
	}
	if len(good) > 0 {
		return good
	}
	return any
}

// diagLayout picks the chains and the common length from which MCSE, ESS
// and R̂ are computed: those diagnostics, as posterior defines them, need
// chains of equal length. It takes the length L that keeps the most draws,
// L times the number of chains with at least L draws (on a tie, more
// chains), and the first L draws of each of those chains.
func diagLayout(used []*Chain) (chains []*Chain, L int) {
	best := 0
	for _, c := range used {
		n, k := len(c.Cols[0]), 0
		for _, d := range used {
			if len(d.Cols[0]) >= n {
				k++
			}
		}
		if n*k > best || (n*k == best && n < L) {
			best, L = n*k, n
		}
	}
	for _, c := range used {
		if len(c.Cols[0]) >= L {
			chains = append(chains, c)
		}
	}
	return chains, L
}

type ChainStop struct {
	Chain int    `json:"chain"`
	Steps int    `json:"steps"`
	Error string `json:"error"`
}

// SummarizeChains pools the chains: every draw of every chain that
// PooledChains keeps. Means, sds and quantiles are of all those draws; MCSE,
// ESS and R̂ of the equal-length layout diagLayout picks, which is all of
// them when the chains have the same length (every run that was not
// stopped early). An interrupt thus loses nothing already drawn.
func SummarizeChains(chains []*Chain) (Summary, error) {
	if len(chains) == 0 {
		return Summary{}, fmt.Errorf("no chains")
	}
	c0 := chains[0]
	s := Summary{Command: c0.Header.Command, CostUnit: costUnit(c0.Header.Command), Ran: len(chains)}
	if s.Command == "logistic" && slices.Contains(c0.Header.Settings, [2]string{"no_standardize", "false"}) {
		s.Scale = standardisedScale
	}
	// The ladder's size comes from the first chain's statistics, or, when
	// every chain was killed before writing them, its replica columns.
	K := -1
	for _, c := range chains {
		if !c.Stats.Torn {
			K = len(c.Stats.Clamped)
			break
		}
	}
	if K < 0 {
		K = 0
		for slices.Contains(c0.Columns, ReplicaCol(K+1)) {
			K++
		}
	}
	s.Swaps = make([]PairRow, max(K-1, 0))
	s.Clamped = make([]LevelRow, K)
	used := PooledChains(chains)
	var torn []int
	for _, c := range chains {
		st := c.status()
		s.PerChain = append(s.PerChain, ChainDraws{Chain: c.Header.ID, Draws: len(c.Cols[0]), Steps: c.Stats.Steps, Status: st, Pooled: slices.Contains(used, c)})
		if st != StatusFinished {
			s.Interrupted = s.Interrupted || st == StatusInterrupted || st == StatusNeverStarted
			s.Stopped = append(s.Stopped, ChainStop{Chain: c.Header.ID, Steps: c.Stats.Steps, Error: c.Stats.Stopped})
		}
		if c.Stats.Torn {
			// Its counters died with the process: the swap, clamp and
			// cost lines are of the chains that wrote them.
			torn = append(torn, c.Header.ID)
			continue
		}
		if len(c.Stats.Clamped) != K || len(c.Stats.Attempts) != len(s.Swaps) {
			return s, fmt.Errorf("%s: %d levels, %s has %d", c.Path, len(c.Stats.Clamped), c0.Path, K)
		}
		s.Cost += c.Stats.Cost
		s.Counted++
		// A step that failed moved its levels (and may have clamped)
		// before the error: it counts as a step of each level.
		failed := 0
		if st == StatusStopped {
			failed = 1
		}
		for l := range s.Clamped {
			s.Clamped[l].Steps += c.Stats.Steps + failed
			s.Clamped[l].ClampedSteps += c.Stats.Clamped[l]
			if l < len(c.Stats.Accepted) && c.Stats.Accepted[l] >= 0 {
				if s.Clamped[l].Accepted == nil {
					s.Clamped[l].Accepted = new(int64)
				}
				*s.Clamped[l].Accepted += c.Stats.Accepted[l]
			}
			if l < len(c.Stats.Jumps) && c.Stats.Jumps[l] >= 0 {
				if s.Clamped[l].Jumps == nil {
					s.Clamped[l].Jumps, s.Clamped[l].JumpsAccepted = new(int64), new(int64)
				}
				*s.Clamped[l].Jumps += c.Stats.Jumps[l]
				*s.Clamped[l].JumpsAccepted += c.Stats.JumpsAccepted[l]
			}
		}
		for l := range s.Swaps {
			s.Swaps[l].Attempts += c.Stats.Attempts[l]
			s.Swaps[l].Accepts += c.Stats.Accepts[l]
			if c.Stats.Attempts[l] > 0 && c.Stats.Accepts[l] == 0 {
				s.Swaps[l].NoSwap++
			}
		}
	}
	for l := range s.Clamped {
		s.Clamped[l].Level = l + 1
		s.Clamped[l].Share = float64(s.Clamped[l].ClampedSteps) / float64(max(s.Clamped[l].Steps, 1))
		if a := s.Clamped[l].Accepted; a != nil {
			r := float64(*a) / float64(max(s.Clamped[l].Steps, 1))
			s.Clamped[l].AcceptRate = &r
		}
		if n := s.Clamped[l].Jumps; n != nil && *n > 0 {
			r := float64(*s.Clamped[l].JumpsAccepted) / float64(*n)
			s.Clamped[l].JumpRate = &r
		}
	}
	for l := range s.Swaps {
		s.Swaps[l].Levels = [2]int{l + 1, l + 2}
		if s.Swaps[l].Attempts > 0 {
			r := float64(s.Swaps[l].Accepts) / float64(s.Swaps[l].Attempts)
			s.Swaps[l].Rate = &r
		}
	}
	if len(torn) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("swap acceptance, clamped steps and cost leave out chain(s) %s, killed before writing their statistics", joinInts(torn)))
	}
	if left := len(chains) - len(used); left > 0 && len(used) > 0 {
		var out []int
		for _, c := range chains {
			if !slices.Contains(used, c) && len(c.Cols[0]) > 0 {
				out = append(out, c.Header.ID)
			}
		}
		if len(out) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("the table leaves out the draws of chain(s) %s, stopped by an error", joinInts(out)))
		}
	}
	diagChains, n := diagLayout(used)
	for _, c := range used {
		s.Chains = append(s.Chains, c.Header.ID)
		s.PooledDraws += len(c.Cols[0])
	}
	for _, c := range diagChains {
		s.DiagChains = append(s.DiagChains, c.Header.ID)
	}
	s.Draws = n
	if n == 0 {
		return s, nil
	}
	unequal := s.PooledDraws != n*len(used)
	if unequal {
		s.Notes = append(s.Notes, fmt.Sprintf("mean, sd and quantiles pool all %d draws; MCSE, ESS and R̂ need chains of equal length and use the first %d draws of chain(s) %s", s.PooledDraws, n, joinInts(s.DiagChains)))
	}
	var names []string
	var params, pooled [][][]float64
	for j, name := range c0.Columns {
		if j > 0 && strings.HasSuffix(name, "__") {
			continue // sampler columns other than lp__
		}
		xs := make([][]float64, len(diagChains))
		for i, c := range diagChains {
			xs[i] = c.Cols[j][:n]
		}
		names, params = append(names, name), append(params, xs)
		if unequal {
			var all []float64
			for _, c := range used {
				all = append(all, c.Cols[j]...)
			}
			pooled = append(pooled, [][]float64{all})
		}
	}
	sums := diag.SummarizeAll(params)
	if unequal {
		// The location statistics of all draws pooled as one chain are
		// posterior's of those draws: they do not depend on the layout.
		for i, p := range diag.SummarizeAll(pooled) {
			sums[i].Mean, sums[i].SD, sums[i].Q5, sums[i].Q50, sums[i].Q95 = p.Mean, p.SD, p.Q5, p.Q50, p.Q95
		}
	}
	for i, d := range sums {
		s.Parameters = append(s.Parameters, ParamRow{Name: names[i], Summary: d})
	}
	if means, sds, intercept, ok := standardisation(c0.Header.Settings); ok && s.Command == "logistic" {
		p := len(means)
		if intercept {
			p++
		}
		// The coefficients are the p variables before the generated
		// quantities: under the spike-and-slab prior, an inclusion
		// probability per standardised feature.
		g := generatedCount(c0.Header.Settings, len(means))
		if end := len(params) - g; p < end {
			raw := diag.SummarizeAll(rawScaleDraws(params[end-p:end], intercept, means, sds))
			if unequal { // location statistics from every draw, as above
				for i, d := range diag.SummarizeAll(rawScaleDraws(pooled[end-p:end], intercept, means, sds)) {
					raw[i].Mean, raw[i].SD, raw[i].Q5, raw[i].Q50, raw[i].Q95 = d.Mean, d.SD, d.Q5, d.Q50, d.Q95
				}
			}
			for i, d := range raw {
				s.DataScale = append(s.DataScale, ParamRow{Name: names[len(names)-g-p+i], Summary: d})
			}
			s.DataScaleHeading = rawScaleHeading(intercept)
		}
	}
	r := remediesFor(s.Command, c0.Header.Settings)
	r.thin = c0.Header.Thin
	s.SetWarnings(chainWarnings(s, r, stanDraws(c0.Header.Settings)))
	return s, nil
}

// generatedCount is the number of generated quantities after a logistic
// run's coefficients: one inclusion probability per feature under the
// spike-and-slab prior (the intercept has none), else none.
func generatedCount(settings [][2]string, features int) int {
	for _, kv := range settings {
		if kv[0] == "prior" && kv[1] == "spike-slab" {
			return features
		}
	}
	return 0
}

// joinInts lists ids as "1, 2, 3".
func joinInts(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ", ")
}

func costUnit(command string) string {
	if command == "logistic" || command == "regress" {
		return "per-example evaluations"
	}
	return "energy and gradient draws"
}

// standardisedScale heads the table of a logistic run on standardised
// features.
const standardisedScale = "coefficients on the standardised scale: log-odds per standard deviation of each feature (on the data's scale below)"

// remedies are the command's advice for each warning; thin is the run's
// thinning (its chain files'), from which the ESS remedy says how much to
// raise it, 0 where unknown.
type remedies struct {
	Rhat, ESS, HeavyTail, Clamp, NoSwap, FewSwaps, NoAttempt, Stop, FlatInclusion string
	thin                                                                          int
}

// settings are the run's, as its chain files record them: a remedy the run
// already uses is not offered.
func remediesFor(command string, settings [][2]string) remedies {
	r := remedies{
		Rhat:      "the chains disagree: run longer (raise --keep and --burn) and look at trace.svg",
		ESS:       "the means and quantiles are imprecise: raise --keep (or --thin)",
		HeavyTail: "quote its quantiles, whose MCSEs hold, not its sd; raise --keep to see more of the tail, and check whether a wide prior is all that bounds it",
		Clamp:     "lower --eta",
		NoSwap:    "the levels' energies do not overlap: lower --tau2",
		FewSwaps:  "the ladder barely communicates there: add levels (--levels) or lower --tau2",
		NoAttempt: "raise the swap intensity",
		Stop:      "lower --eta",
	}
	switch command {
	case "logistic", "regress":
		r.FlatInclusion = "give --spike-sd and --slab-sd on the coefficients' scale"
		if slices.Contains(settings, [2]string{"no_standardize", "true"}) {
			r.FlatInclusion = "--no-standardize keeps the features' units, and --spike-sd is in them too: drop --no-standardize, or give --spike-sd and --slab-sd on the coefficients' scale"
		}
		r.Clamp = "lower --eta or raise --batch (cold level) or lower --hot-share (hot levels)"
		r.NoSwap += " or add levels (--levels)"
		if !slices.Contains(settings, [2]string{"swap_energies_used", "exact"}) && !slices.Contains(settings, [2]string{"swap_energies", "exact"}) {
			r.NoSwap += "; with minibatch swap energies, also --swap-energies exact"
		}
		r.NoAttempt = "raise --swap-rate"
	case "gmm":
		r.NoSwap += " or add levels (--levels)"
		r.NoAttempt = "raise --swap-a, or set it to 0 for an attempt every step"
	}
	return r
}

// Thresholds of the warnings: R̂ and ESS are the report's verdict's, the
// same for every command.
const (
	rhatMax        = report.RhatMax
	essPerChainMin = report.ESSPerChainMin
	essTotalMin    = report.ESSTotalMin
	clampMax       = 0.01
)

// stanDraws says that a run sampled a Stan model (sample --stan): its
// coordinates, the columns named "…_unc__", are left out of the table
// (their names end in "__"), and every row but lp__ is one of Stan's
// draws (a constrained parameter, a transformed parameter or a generated
// quantity). Such a row constant in every draw of every chain is a
// quantity the model fixes, not a stuck chain, which would show in lp__
// and in the chains' disagreeing values.
func stanDraws(settings [][2]string) bool {
	return slices.ContainsFunc(settings, func(kv [2]string) bool { return kv[0] == "stan" && kv[1] != "" })
}

// mixes says whether p's R̂ and ESS are judged. A generated quantity
// constant in every draw (an inclusion probability of 1 to the last bit, a
// Stan model's Viterbi state that never changes) has R̂ and ESS undefined,
// as in posterior, and nothing to mix. A constant parameter is judged: its
// chains are stuck.
func mixes(s Summary, p ParamRow, stan bool) bool {
	return p.SD != 0 || !generated(s.Command, p.Name) && !(stan && p.Name != "lp__")
}

// ESSGoal is the bulk ESS the verdict asks of every variable: ESSTotalMin
// in all and ESSPerChainMin a chain.
func (s Summary) ESSGoal() float64 {
	return max(essTotalMin, essPerChainMin*float64(len(s.DiagChains)))
}

// Shortfall says how many times its draws a chain a run must grow by for
// every judged variable to meet the verdict's bulk ESS and R̂ thresholds,
// if its chains mix (factor is +Inf or NaN where a variable's R̂ or ESS is
// not finite), and which variable asks most; settings are the run's, which
// say whether it sampled a Stan model (stanDraws). The ESS grows in proportion
// to the draws; so, for chains that mix, does 1/(R̂ − 1): the variance of
// the split chains' means about the pooled mean, which R̂² − 1 measures
// against the variance within them, falls as 1/draws.
func Shortfall(s Summary, settings [][2]string) (factor float64, worst ParamRow) {
	stan := stanDraws(settings)
	factor = 1
	for _, p := range s.Parameters {
		if !mixes(s, p, stan) {
			continue
		}
		f := s.ESSGoal() / p.ESSBulk
		if !(p.Rhat <= rhatMax) {
			// Only past the verdict's threshold: at R̂ = 1.01 the ratio
			// rounds to 1 + 1e-15, a shortfall the verdict does not see.
			f = max(f, (p.Rhat-1)/(rhatMax-1))
		}
		if !(f <= factor) {
			factor, worst = f, p
		}
		if math.IsNaN(f) {
			return f, p
		}
	}
	return factor, worst
}

// chainWarnings are the summary's warnings; stan says the run sampled a
// Stan model (stanDraws).
func chainWarnings(s Summary, r remedies, stan bool) []Warning {
	var w []Warning
	var badR, badE, badK, flat []ParamRow
	for _, p := range s.Parameters {
		if p.SD == 0 && p.Mean > 0 && p.Mean < 1 && (s.Command == "regress" || s.Command == "logistic") && strings.HasPrefix(p.Name, "inclusion_") {
			// P(slab | β) is one number in every draw only where every
			// draw of β is so far inside the spike that both densities
			// are at their peaks to the last bit: the inclusion is the
			// prior's, whatever the data say (issue 51: features ×1e100
			// under --no-standardize, every inclusion 0.0196, trusted).
			flat = append(flat, p)
		}
		if !mixes(s, p, stan) {
			continue
		}
		if !(p.Rhat <= rhatMax) {
			badR = append(badR, p)
		}
		if !(p.ESSBulk >= s.ESSGoal()) {
			badE = append(badE, p)
		}
		// Tails are judged on the models others write (sample): the other
		// commands' posteriors have every moment (Gaussian and logistic
		// likelihoods under Gaussian, spike-and-slab or conjugate priors),
		// where k̂'s fit reads a spike-and-slab coefficient's two scales as
		// a heavy tail (regress on data/diabetes.csv: s3's k̂ 0.65–0.67,
		// the exact comparison passing). A NaN k̂ is posterior's NA (a
		// constant tail): not judged.
		if p.SD != 0 && p.KHat > report.KHatMax && s.Command == "sample" {
			badK = append(badK, p)
		}
	}
	if len(flat) > 0 {
		names := make([]string, len(flat))
		for i, p := range flat {
			names[i] = strings.TrimPrefix(p.Name, "inclusion_")
		}
		w = append(w, Warning{Code: "inclusion-flat", Number: flat[0].Mean, Remedy: r.FlatInclusion, Message: fmt.Sprintf("the inclusion probability of %d coefficient(s) (%s) is %.4g in every draw: each draw of them lies so far inside the spike that the spike's and the slab's densities keep one ratio, so the inclusion is the prior's, not the data's: %s", len(flat), strings.Join(names, ", "), flat[0].Mean, r.FlatInclusion)})
	}
	if len(badR) > 0 {
		worst := badR[0]
		for _, p := range badR {
			if p.Rhat > worst.Rhat || math.IsNaN(p.Rhat) {
				worst = p
			}
		}
		w = append(w, Warning{Code: "rhat", Number: worst.Rhat, Remedy: r.Rhat, Message: fmt.Sprintf("R̂ > %g for %d of %d variables (largest: %s, %.3f): %s", rhatMax, len(badR), len(s.Parameters), worst.Name, worst.Rhat, r.Rhat)})
	}
	if len(badE) > 0 {
		worst := badE[0]
		for _, p := range badE {
			if p.ESSBulk < worst.ESSBulk || math.IsNaN(p.ESSBulk) {
				worst = p
			}
		}
		remedy := r.ESS
		goal := s.ESSGoal()
		if f := goal / worst.ESSBulk; r.thin > 0 && s.Draws > 0 && f > 1 && !math.IsInf(f, 0) {
			// The ESS grows in proportion to the steps a chain keeps draws
			// over, whether more draws or more steps between them.
			remedy = fmt.Sprintf("the means and quantiles are imprecise: %.3g times the steps would bring %s's to %.0f: --thin %d (from %d), or --keep %d (from %d draws a chain)",
				f, worst.Name, goal, int(math.Ceil(f*float64(r.thin))), r.thin, int(math.Ceil(f*float64(s.Draws))), s.Draws)
		}
		w = append(w, Warning{Code: "ess", Number: worst.ESSBulk, Remedy: remedy, Message: fmt.Sprintf("bulk ESS < %d in all or < %d per chain for %d of %d variables (smallest: %s, %.0f from %d chain(s)): %s", essTotalMin, essPerChainMin, len(badE), len(s.Parameters), worst.Name, worst.ESSBulk, len(s.DiagChains), remedy)})
	}
	if len(badK) > 0 {
		worst := slices.MaxFunc(badK, func(a, b ParamRow) int { return cmp.Compare(a.KHat, b.KHat) })
		w = append(w, Warning{Code: "heavy-tail", Number: worst.KHat, Remedy: r.HeavyTail, Message: fmt.Sprintf("heavy tails for %d of %d variables (heaviest: %s, Pareto k̂ %.2f > %g): a tail of shape k has finite moments only below order 1/k, so the sd and the MCSE of the mean are unreliable, and a sampler can miss part of such a tail with R̂ and ESS clean: %s", len(badK), len(s.Parameters), worst.Name, worst.KHat, report.KHatMax, r.HeavyTail)})
	}
	for _, l := range s.Clamped {
		if l.Share > clampMax && s.Counted > 0 {
			w = append(w, Warning{Code: "clamped", Number: l.Share, Remedy: r.Clamp, Message: fmt.Sprintf("level %d: %.1f%% of steps clamped (the gradient noise exceeded the noise budget 2τη, so those steps injected no noise there and ran hotter; the sds' net change, which the noise's covariances between coordinates can make negative, is forecast before sampling): %s", l.Level, 100*l.Share, r.Clamp)})
		}
	}
	for _, p := range s.Swaps {
		switch {
		case s.Counted == 0: // every chain was killed: nothing is known of its swaps
		case p.Attempts == 0:
			w = append(w, Warning{Code: "no-swap-attempt", Remedy: r.NoAttempt, Message: fmt.Sprintf("levels %d and %d: no swap attempted: %s", p.Levels[0], p.Levels[1], r.NoAttempt)})
		case p.NoSwap > 0:
			w = append(w, Warning{Code: "no-swap", Number: float64(p.NoSwap), Remedy: r.NoSwap, Message: fmt.Sprintf("levels %d and %d: no swap accepted in %d of %d chains (%d accepted of %d attempts in all): %s", p.Levels[0], p.Levels[1], p.NoSwap, s.Counted, p.Accepts, p.Attempts, r.NoSwap)})
		case s.Command != "gmm" && float64(p.Accepts) < report.SwapAcceptMin*float64(p.Attempts):
			// The report's verdict's floor; gmm's ladder report warns at
			// the same one, chain by chain.
			rate := float64(p.Accepts) / float64(p.Attempts)
			w = append(w, Warning{Code: "few-swaps", Number: rate, Remedy: r.FewSwaps, Message: fmt.Sprintf("levels %d and %d: %.1f%% of swap attempts accepted (%d of %d), below %g%%: %s", p.Levels[0], p.Levels[1], 100*rate, p.Accepts, p.Attempts, 100*report.SwapAcceptMin, r.FewSwaps)})
		}
	}
	for _, c := range s.PerChain {
		switch c.Status {
		case StatusInterrupted:
			w = append(w, Warning{Code: "interrupted", Chain: c.Chain, Number: float64(c.Steps), Message: fmt.Sprintf("chain %d was interrupted after %d steps (%d draws, all in the table): the table holds only what was sampled", c.Chain, c.Steps, c.Draws)})
		case StatusNeverStarted:
			w = append(w, Warning{Code: "never-started", Chain: c.Chain, Message: fmt.Sprintf("chain %d never started: the run was interrupted before its first step (with more chains than cores, a chain waits for a free one)", c.Chain)})
		case StatusKilled:
			w = append(w, Warning{Code: "killed", Chain: c.Chain, Number: float64(c.Draws), Message: fmt.Sprintf("chain %d was killed after %d draws (all in the table): its swap, clamp and cost counters were lost with the process", c.Chain, c.Draws)})
		case StatusStopped:
			for _, st := range s.Stopped {
				if st.Chain == c.Chain {
					w = append(w, Warning{Code: "stopped", Chain: c.Chain, Number: float64(c.Steps), Remedy: r.Stop, Message: fmt.Sprintf("chain %d stopped after %d steps: %s: %s", c.Chain, c.Steps, st.Error, r.Stop)})
				}
			}
		}
	}
	return w
}

// WriteTable prints the summary as a table, the same for a run and for a
// merge of its chains.
func WriteTable(w io.Writer, s Summary) {
	writeDraws(w, s)
	if s.Scale != "" {
		fmt.Fprintln(w, s.Scale)
	}
	writeRows(w, s.Parameters)
	if len(s.DataScale) > 0 {
		fmt.Fprintln(w, s.DataScaleHeading)
		writeRows(w, s.DataScale)
	}
	if s.Counted == 0 {
		fmt.Fprintln(w, "swap acceptance, clamped steps and cost: unknown (every chain was killed before writing them)")
		writeNotes(w, s)
		return
	}
	for _, p := range s.Swaps {
		if p.Rate == nil {
			fmt.Fprintf(w, "swap acceptance, levels %d–%d: no attempts\n", p.Levels[0], p.Levels[1])
		} else {
			fmt.Fprintf(w, "swap acceptance, levels %d–%d: %.3f (%d of %d attempts)\n", p.Levels[0], p.Levels[1], *p.Rate, p.Accepts, p.Attempts)
		}
	}
	// A Metropolis-adjusted level injects its noise whole and clamps
	// nothing: its acceptance is what says how it went.
	var cl, acc, jumps []string
	for _, l := range s.Clamped {
		if l.AcceptRate != nil {
			acc = append(acc, fmt.Sprintf("level %d %.3f (%d of %d proposals)", l.Level, *l.AcceptRate, *l.Accepted, l.Steps))
		} else {
			cl = append(cl, fmt.Sprintf("level %d %.2f%%", l.Level, 100*l.Share))
		}
		if l.JumpRate != nil {
			jumps = append(jumps, fmt.Sprintf("level %d %.3f (%d of %d jumps)", l.Level, *l.JumpRate, *l.JumpsAccepted, *l.Jumps))
		}
	}
	if len(acc) > 0 {
		fmt.Fprintf(w, "Metropolis acceptance: %s\n", strings.Join(acc, ", "))
	}
	if len(jumps) > 0 {
		fmt.Fprintf(w, "jumps between the modes, share accepted: %s\n", strings.Join(jumps, ", "))
	}
	if len(cl) > 0 {
		fmt.Fprintf(w, "clamped steps: %s\n", strings.Join(cl, ", "))
	}
	fmt.Fprintf(w, "total cost: %.4g %s\n", s.Cost, s.CostUnit)
	writeNotes(w, s)
}

func writeNotes(w io.Writer, s Summary) {
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeDraws prints the table's first line: how many chains and draws it
// pools, and, when a run was cut short, what each chain contributed.
func writeDraws(w io.Writer, s Summary) {
	if s.PooledDraws == s.Draws*len(s.Chains) {
		fmt.Fprintf(w, "%d chains × %d draws", len(s.Chains), s.Draws)
	} else {
		fmt.Fprintf(w, "%d chains, %d draws", len(s.Chains), s.PooledDraws)
	}
	var per []string
	for _, c := range s.PerChain {
		if c.Status != StatusFinished {
			per = append(per, fmt.Sprintf("chain %d: %s", c.Chain, c.describe()))
		}
	}
	if len(per) > 0 {
		// Every chain is listed once one ended early, so that the line
		// says what each contributed.
		per = per[:0]
		for _, c := range s.PerChain {
			per = append(per, fmt.Sprintf("chain %d: %s", c.Chain, c.describe()))
		}
		fmt.Fprintf(w, " (%s)", strings.Join(per, "; "))
	}
	fmt.Fprintln(w)
}

// describe is what chain c contributed, for the table's first line.
func (c ChainDraws) describe() string {
	switch {
	case c.Status == StatusNeverStarted:
		return "never started"
	case !c.Pooled && c.Draws > 0:
		return fmt.Sprintf("%d draws, %s, left out", c.Draws, c.Status)
	case c.Status == StatusFinished:
		return fmt.Sprintf("%d draws", c.Draws)
	}
	return fmt.Sprintf("%d draws, %s", c.Draws, c.Status)
}

// writeRows prints the variables' rows under their heading.
func writeRows(w io.Writer, rows []ParamRow) {
	width := len("variable")
	for _, p := range rows {
		width = max(width, len(p.Name))
	}
	fmt.Fprintf(w, "%-*s %10s %9s %9s %10s %10s %10s %8s %8s %6s\n", width, "variable", "mean", "mcse", "sd", "5%", "50%", "95%", "ess_bulk", "ess_tail", "rhat")
	for _, p := range rows {
		fmt.Fprintf(w, "%-*s %10.4g %9.2g %9.3g %10.4g %10.4g %10.4g %8.0f %8.0f %6.3f\n", width, p.Name, p.Mean, p.MCSEMean, p.SD, p.Q5, p.Q50, p.Q95, p.ESSBulk, p.ESSTail, p.Rhat)
	}
}

// writeWarnings prints the warnings, one a line.
func writeWarnings(w io.Writer, s Summary) {
	for _, x := range s.Warnings {
		fmt.Fprintln(w, "warning:", x)
	}
}

// interrupted reports whether a chain's stopping error was an interrupt.
func interrupted(stopped string) bool { return strings.HasSuffix(stopped, ErrInterrupted.Error()) }

// generated reports whether a command's chain column is a generated
// quantity (a function of a draw) rather than a parameter the sampler
// moves: the inclusion columns of regress and of logistic's spike-and-slab
// (a logistic feature of the normal prior named inclusion_… would be taken
// for one: its figures say "probability", and if constant it is not
// warned about), and mixture's probabilities of each number of clusters.
func generated(command, column string) bool {
	return (command == "regress" || command == "logistic") && strings.HasPrefix(column, "inclusion_") ||
		command == "mixture" && strings.HasPrefix(column, "p_clusters_")
}

// InclusionCol names coefficient name's inclusion column.
func InclusionCol(name string) string { return "inclusion_" + name }

// SetExactDensity gives variable name's exact marginal density, where the
// command knows it: the marginals figure draws it over the chains'.
func (s *Summary) SetExactDensity(name string, pdf func(float64) float64) {
	if s.exact == nil {
		s.exact = map[string]func(float64) float64{}
	}
	s.exact[name] = pdf
}
