package main

import (
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/exchange"
)

// swapModeRule is the documented rule of --swap-energies auto.
const swapModeRule = `auto picks the swap energies from N, the cold minibatch n and the measured swap
noise: if exact energies at every attempt cost at most a quarter of the cold
chain's gradients (2N·rate ≤ n/4), exact at every attempt; otherwise a pilot
run of --swap-pilot steps with control-variate energies (anchors refreshed
every m = ⌈8N/n⌉ steps, a quarter of the cold gradient cost) measures the swap
noise τδ²V/2; below 1 nat it keeps cv, otherwise it takes exact energies every
W = ⌈8N/n⌉ steps (again a quarter of the cold gradient cost). The pilot's
evaluations are reported apart and not part of the run.`

// swapPeriod is ⌈8N/n⌉: the anchor or exact-swap period whose full passes
// (2N per period for two levels) cost a quarter of n per step.
func swapPeriod(N, n int) int { return (8*N + n - 1) / n }

// swapChoice is the resolved swap-energy setting and how it was chosen.
type swapChoice struct {
	Energies    exchange.Energies `json:"-"`
	Mode        string            `json:"mode"`
	Rule        string            `json:"rule"`
	PilotNoise  float64           `json:"pilot_noise,omitempty"`
	PilotAccept float64           `json:"pilot_acceptance,omitempty"`
	PilotCost   float64           `json:"pilot_evaluations,omitempty"`
}

// chooseSwapEnergies resolves mode ("auto" or an exchange.EnergyMode name).
// pilot runs a short ladder under the given energies and returns its mean
// swap noise, acceptance and cost; it is called only by auto when exact
// energies at every attempt are too dear.
func chooseSwapEnergies(mode string, N, n, every int, rate float64, pilot func(exchange.Energies) (noise, accept, cost float64, err error)) (swapChoice, error) {
	period := swapPeriod(N, n)
	if every == 0 {
		every = period
	}
	e := exchange.Energies{AnchorEvery: period, ExactEvery: every}
	if mode != "auto" {
		m, err := exchange.ParseEnergyMode(mode)
		if err != nil {
			return swapChoice{}, fmt.Errorf("--swap-energies: %w", err)
		}
		e.Mode = m
		return swapChoice{Energies: e, Mode: m.String(), Rule: "set by --swap-energies"}, nil
	}
	if 2*float64(N)*rate <= float64(n)/4 {
		e.Mode, e.ExactEvery = exchange.ExactEnergies, max(1, int(math.Round(1/rate)))
		return swapChoice{Energies: e, Mode: "exact", Rule: fmt.Sprintf("auto: exact energies at every attempt cost 2N·rate = %.3g ≤ n/4 = %.3g per step", 2*float64(N)*rate, float64(n)/4)}, nil
	}
	e.Mode = exchange.CVEnergies
	noise, acc, cost, err := pilot(e)
	if err != nil {
		return swapChoice{}, fmt.Errorf("swap-energy pilot: %w", err)
	}
	c := swapChoice{PilotNoise: noise, PilotAccept: acc, PilotCost: cost}
	if noise < 1 {
		c.Energies, c.Mode = e, "cv"
		c.Rule = fmt.Sprintf("auto: control-variate swap noise %.3g nats < 1 in the pilot", noise)
		return c, nil
	}
	e.Mode = exchange.ExactEnergies
	c.Energies, c.Mode = e, "exact"
	c.Rule = fmt.Sprintf("auto: control-variate swap noise %.3g nats ≥ 1 in the pilot (acceptance %.3g): exact energies every W = %d steps", noise, acc, e.ExactEvery)
	return c, nil
}

// reportSwaps prints each pair's swaps and noise to out, and to warn a
// warning with the numbers and the remedies where swaps are impossible or
// the noise governs them.
func reportSwaps(out, warn io.Writer, st exchange.Stats, mode string) {
	for l, p := range st.Pairs {
		if p.Attempts == 0 {
			fmt.Fprintf(out, "swaps %d↔%d: no attempt\n", l, l+1)
			continue
		}
		fmt.Fprintf(out, "swaps %d↔%d (%s energies): %d of %d accepted (%.4f), mean swap noise τδ²V/2 = %.3g nats\n",
			l, l+1, mode, p.Accepts, p.Attempts, p.Rate(), p.Noise)
		remedy := "remedies: a larger energy batch (--swap-batch), control variates (--swap-energies cv), more levels (--levels), or exact swaps every W steps (--swap-energies exact --exact-every W)"
		switch {
		case p.Noise > 1:
			fmt.Fprintf(warn, "warning: swaps %d↔%d are governed by noise: mean τδ²V/2 = %.3g nats > 1, so acceptance is at most about %.3g whatever the states; %s\n", l, l+1, p.Noise, math.Exp(-p.Noise), remedy)
		case p.Accepts == 0 && p.Attempts >= 20:
			fmt.Fprintf(warn, "warning: no swap %d↔%d accepted in %d attempts, with swap noise only %.3g nats: the levels' energies do not overlap (in p dimensions their means differ by about (τ2 − τ1)·p/2); lower --tau2, or use more levels (--levels)\n", l, l+1, p.Attempts, p.Noise)
		}
	}
}
