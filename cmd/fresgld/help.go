package main

// swapModeRule is the documented rule of --swap-energies auto.
const swapModeRule = `auto picks the swap energies from N, the cold minibatch n and a pilot: if
exact energies at every attempt cost at most a quarter of the cold chain's
gradients (2N·rate ≤ n/4), exact at every attempt; otherwise a pilot run of
--swap-pilot steps with first-order control-variate pair differences
(pair-taylor: anchors refreshed every m = ⌈8N/n⌉ steps, a quarter of the
cold gradient cost) measures every pair's screen noise τδ²V/2 and the swap
cost per step (anchor passes, screens and the full passes that confirm
them); if the largest noise is below 1 nat and the cost at most half the
cold gradient cost (n/2), it keeps pair-taylor, otherwise it takes exact
energies every W = ⌈8N/n⌉ steps (a quarter of the cold gradient cost). The
pilot's evaluations are reported apart and not part of the run.

` + glossary

// glossary explains the terms of the command's output that a user cannot
// look up elsewhere (issue 20).
const glossary = `Terms in the output:
  τδ        1/τ_l − 1/τ_{l+1}, the difference of a pair of levels' inverse
            temperatures.
  D̂, V      the estimated energy difference U(x) − U(y) of the two states a
            swap would exchange, and the variance of that estimate (0 with
            exact energies).
  τδ²V/2    the swap noise, in nats. Under --swap-energies draw the ratio is
            exp(τδ·D̂ − τδ²V/2), and noise of k nats lowers the acceptance
            to about e^-k whatever the states. Under the other modes a swap
            is screened on D̂ and confirmed on the full data, so the noise
            costs acceptance and full passes but never the law; above 1
            nat the command warns.
  confirmed the attempts whose screen passed and that went to the full data
            (2N evaluations each) to be decided on the exact energies.
  W         the period, in steps, of exact swap attempts with
            --swap-energies exact: every W-th step (⌈8N/n⌉ by default).
  anchor passes
            full passes over the data that refresh the control-variate
            anchors of the cv, pair-cv, taylor and pair-taylor swap
            energies, every ⌈8N/n⌉ steps; counted in the swap cost.
  clamped steps
            steps at which a level's gradient noise exceeded its whole noise
            budget 2τη, so that it ran hotter than its temperature.
  per-example evaluations
            the cost unit: one example's gradient or energy term.`
