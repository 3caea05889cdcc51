package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/diag"
)

// chainsSummary is what a multi-chain run (or a merge of single-chain runs)
// reports: computed from the chains' CSVs alone, so that both print the
// same table.
type chainsSummary struct {
	Command string `json:"command"`
	Chains  []int  `json:"chains"`          // the chains pooled
	Ran     int    `json:"chains_run"`      // the chains run, pooled or not
	Draws   int    `json:"draws_per_chain"` // draws of each, after truncation to the shortest
	// Scale says on what scale the coefficients are, when not the data's
	// own: a user comparing with another tool's raw-scale estimates
	// must not read standardised ones as those.
	Scale string `json:"scale,omitempty"`
	// DataScale are the coefficients on the data's scale (rawScaleDraws),
	// with the heading that says how they were found.
	DataScale        []paramRow  `json:"parameters_data_scale,omitempty"`
	DataScaleHeading string      `json:"data_scale,omitempty"`
	Parameters       []paramRow  `json:"parameters"`
	Swaps            []pairRow   `json:"swap_acceptance"`
	Clamped          []levelRow  `json:"clamped"`
	Cost             float64     `json:"total_cost"`
	CostUnit         string      `json:"cost_unit"`
	Stopped          []chainStop `json:"stopped_chains,omitempty"`
	// Interrupted is set when a chain was stopped by SIGINT or SIGTERM.
	Interrupted bool     `json:"interrupted"`
	Notes       []string `json:"notes,omitempty"`
	Warnings    []string `json:"warnings"`
}

// paramRow is one variable's row of the table.
type paramRow struct {
	Name string
	diag.Summary
}

// MarshalJSON writes the row as {"variable": name, ...the Summary's fields}.
func (p paramRow) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Summary)
	if err != nil {
		return nil, err
	}
	n, _ := json.Marshal(p.Name)
	return append(append(append([]byte(`{"variable":`), n...), ','), b[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *paramRow) UnmarshalJSON(b []byte) error {
	var v struct {
		Variable string `json:"variable"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p.Name = v.Variable
	return json.Unmarshal(b, &p.Summary)
}

type pairRow struct {
	Levels   [2]int   `json:"levels"` // numbered from 1, the coldest
	Attempts int      `json:"attempts"`
	Accepts  int      `json:"accepts"`
	Rate     *float64 `json:"rate"` // null without attempts
	// NoSwap counts the chains that attempted swaps on this pair and
	// accepted none.
	NoSwap int `json:"chains_without_swaps"`
}

type levelRow struct {
	Level        int     `json:"level"`
	Steps        int     `json:"steps"`
	ClampedSteps int64   `json:"clamped_steps"`
	Share        float64 `json:"share"`
}

type chainStop struct {
	Chain int    `json:"chain"`
	Steps int    `json:"steps"`
	Error string `json:"error"`
}

// summarizeChains pools the chains. Chains that stopped early are left out
// of the table when any chain finished (and reported); the rest are cut to
// the shortest, so that every chain contributes equally, as R̂ requires.
func summarizeChains(chains []*stanChain) (chainsSummary, error) {
	if len(chains) == 0 {
		return chainsSummary{}, fmt.Errorf("no chains")
	}
	c0 := chains[0]
	s := chainsSummary{Command: c0.Header.Command, CostUnit: costUnit(c0.Header.Command), Ran: len(chains)}
	if s.Command == "logistic" && slices.Contains(c0.Header.Settings, [2]string{"no_standardize", "false"}) {
		s.Scale = standardisedScale
	}
	K := len(c0.Stats.Clamped)
	s.Swaps = make([]pairRow, max(K-1, 0))
	s.Clamped = make([]levelRow, K)
	var used []*stanChain
	finished := 0
	for _, c := range chains {
		if c.Stats.Stopped == "" {
			finished++
		}
	}
	for _, c := range chains {
		if len(c.Stats.Clamped) != K || len(c.Stats.Attempts) != len(s.Swaps) {
			return s, fmt.Errorf("%s: %d levels, %s has %d", c.Path, len(c.Stats.Clamped), c0.Path, K)
		}
		s.Cost += c.Stats.Cost
		// A step that failed moved its levels (and may have clamped)
		// before the error: it counts as a step of each level.
		failed := 0
		if c.Stats.Stopped != "" && !interrupted(c.Stats.Stopped) {
			failed = 1
		}
		for l := range s.Clamped {
			s.Clamped[l].Steps += c.Stats.Steps + failed
			s.Clamped[l].ClampedSteps += c.Stats.Clamped[l]
		}
		for l := range s.Swaps {
			s.Swaps[l].Attempts += c.Stats.Attempts[l]
			s.Swaps[l].Accepts += c.Stats.Accepts[l]
			if c.Stats.Attempts[l] > 0 && c.Stats.Accepts[l] == 0 {
				s.Swaps[l].NoSwap++
			}
		}
		if c.Stats.Stopped != "" {
			s.Interrupted = s.Interrupted || interrupted(c.Stats.Stopped)
			s.Stopped = append(s.Stopped, chainStop{Chain: c.Header.ID, Steps: c.Stats.Steps, Error: c.Stats.Stopped})
			if finished > 0 {
				continue
			}
		}
		used = append(used, c)
	}
	for l := range s.Clamped {
		s.Clamped[l].Level = l + 1
		s.Clamped[l].Share = float64(s.Clamped[l].ClampedSteps) / float64(max(s.Clamped[l].Steps, 1))
	}
	for l := range s.Swaps {
		s.Swaps[l].Levels = [2]int{l + 1, l + 2}
		if s.Swaps[l].Attempts > 0 {
			r := float64(s.Swaps[l].Accepts) / float64(s.Swaps[l].Attempts)
			s.Swaps[l].Rate = &r
		}
	}
	if len(s.Stopped) > 0 && finished > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("the table pools the %d chains that finished; %d stopped early", finished, len(s.Stopped)))
	}
	n := math.MaxInt
	for _, c := range used {
		s.Chains = append(s.Chains, c.Header.ID)
		n = min(n, len(c.Cols[0]))
	}
	for _, c := range used {
		if len(c.Cols[0]) > n {
			s.Notes = append(s.Notes, fmt.Sprintf("chains cut to the shortest, %d draws", n))
			break
		}
	}
	s.Draws = n
	if n == 0 {
		return s, nil
	}
	var names []string
	var params [][][]float64
	for j, name := range c0.Columns {
		if j > 0 && strings.HasSuffix(name, "__") {
			continue // sampler columns other than lp__
		}
		xs := make([][]float64, len(used))
		for i, c := range used {
			xs[i] = c.Cols[j][:n]
		}
		names, params = append(names, name), append(params, xs)
	}
	for i, d := range diag.SummarizeAll(params) {
		s.Parameters = append(s.Parameters, paramRow{Name: names[i], Summary: d})
	}
	if means, sds, intercept, ok := standardisation(c0.Header.Settings); ok && s.Command == "logistic" {
		p := len(means)
		if intercept {
			p++
		}
		if p < len(params) { // the coefficients are the last p variables
			raw := rawScaleDraws(params[len(params)-p:], intercept, means, sds)
			for i, d := range diag.SummarizeAll(raw) {
				s.DataScale = append(s.DataScale, paramRow{Name: names[len(names)-p+i], Summary: d})
			}
			s.DataScaleHeading = rawScaleHeading(intercept)
		}
	}
	s.Warnings = chainWarnings(s, remediesFor(s.Command, c0.Header.Settings))
	return s, nil
}

func costUnit(command string) string {
	if command == "logistic" {
		return "per-example evaluations"
	}
	return "energy and gradient draws"
}

// standardisedScale heads the table of a logistic run on standardised
// features.
const standardisedScale = "coefficients on the standardised scale: log-odds per standard deviation of each feature (on the data's scale below)"

// remedies are the command's advice for each warning.
type remedies struct{ Rhat, ESS, Clamp, NoSwap, NoAttempt, Stop string }

// settings are the run's, as its chain files record them: a remedy the run
// already uses is not offered.
func remediesFor(command string, settings [][2]string) remedies {
	r := remedies{
		Rhat:      "the chains disagree: run longer (raise --keep and --burn) and look at trace.svg",
		ESS:       "the means and quantiles are imprecise: raise --keep (or --thin)",
		Clamp:     "lower --eta",
		NoSwap:    "the levels' energies do not overlap: lower --tau2",
		NoAttempt: "raise the swap intensity",
		Stop:      "lower --eta",
	}
	switch command {
	case "logistic":
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

// Thresholds of the warnings, as Stan's and posterior's guidance has them.
const (
	rhatMax        = 1.01
	essPerChainMin = 100
	clampMax       = 0.01
)

func chainWarnings(s chainsSummary, r remedies) []string {
	var w []string
	var badR, badE []paramRow
	for _, p := range s.Parameters {
		if !(p.Rhat <= rhatMax) {
			badR = append(badR, p)
		}
		if !(p.ESSBulk >= essPerChainMin*float64(len(s.Chains))) {
			badE = append(badE, p)
		}
	}
	if len(badR) > 0 {
		worst := badR[0]
		for _, p := range badR {
			if p.Rhat > worst.Rhat || math.IsNaN(p.Rhat) {
				worst = p
			}
		}
		w = append(w, fmt.Sprintf("R̂ > %g for %d of %d variables (largest: %s, %.3f): %s", rhatMax, len(badR), len(s.Parameters), worst.Name, worst.Rhat, r.Rhat))
	}
	if len(badE) > 0 {
		worst := badE[0]
		for _, p := range badE {
			if p.ESSBulk < worst.ESSBulk || math.IsNaN(p.ESSBulk) {
				worst = p
			}
		}
		w = append(w, fmt.Sprintf("bulk ESS < %d per chain for %d of %d variables (smallest: %s, %.0f from %d chain(s)): %s", essPerChainMin, len(badE), len(s.Parameters), worst.Name, worst.ESSBulk, len(s.Chains), r.ESS))
	}
	for _, l := range s.Clamped {
		if l.Share > clampMax {
			w = append(w, fmt.Sprintf("level %d: %.1f%% of steps clamped (the gradient noise exceeded the noise budget 2τη, so the chain ran hotter than its temperature): %s", l.Level, 100*l.Share, r.Clamp))
		}
	}
	for _, p := range s.Swaps {
		switch {
		case p.Attempts == 0:
			w = append(w, fmt.Sprintf("levels %d and %d: no swap attempted: %s", p.Levels[0], p.Levels[1], r.NoAttempt))
		case p.NoSwap > 0:
			w = append(w, fmt.Sprintf("levels %d and %d: no swap accepted in %d of %d chains (%d accepted of %d attempts in all): %s", p.Levels[0], p.Levels[1], p.NoSwap, s.Ran, p.Accepts, p.Attempts, r.NoSwap))
		}
	}
	for _, c := range s.Stopped {
		if interrupted(c.Error) {
			w = append(w, fmt.Sprintf("chain %d was interrupted after %d steps: the table holds only what was sampled", c.Chain, c.Steps))
		} else {
			w = append(w, fmt.Sprintf("chain %d stopped after %d steps: %s: %s", c.Chain, c.Steps, c.Error, r.Stop))
		}
	}
	return w
}

// writeTable prints the summary as a table, the same for a run and for a
// merge of its chains.
func writeTable(w io.Writer, s chainsSummary) {
	fmt.Fprintf(w, "%d chains × %d draws\n", len(s.Chains), s.Draws)
	if s.Scale != "" {
		fmt.Fprintln(w, s.Scale)
	}
	writeRows(w, s.Parameters)
	if len(s.DataScale) > 0 {
		fmt.Fprintln(w, s.DataScaleHeading)
		writeRows(w, s.DataScale)
	}
	for _, p := range s.Swaps {
		if p.Rate == nil {
			fmt.Fprintf(w, "swap acceptance, levels %d–%d: no attempts\n", p.Levels[0], p.Levels[1])
		} else {
			fmt.Fprintf(w, "swap acceptance, levels %d–%d: %.3f (%d of %d attempts)\n", p.Levels[0], p.Levels[1], *p.Rate, p.Accepts, p.Attempts)
		}
	}
	var cl []string
	for _, l := range s.Clamped {
		cl = append(cl, fmt.Sprintf("level %d %.2f%%", l.Level, 100*l.Share))
	}
	fmt.Fprintf(w, "clamped steps: %s\n", strings.Join(cl, ", "))
	fmt.Fprintf(w, "total cost: %.4g %s\n", s.Cost, s.CostUnit)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeRows prints the variables' rows under their heading.
func writeRows(w io.Writer, rows []paramRow) {
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
func writeWarnings(w io.Writer, s chainsSummary) {
	for _, x := range s.Warnings {
		fmt.Fprintln(w, "warning:", x)
	}
}

// interrupted reports whether a chain's stopping error was an interrupt.
func interrupted(stopped string) bool { return strings.HasSuffix(stopped, errInterrupted.Error()) }
