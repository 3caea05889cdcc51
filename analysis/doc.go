// Package analysis runs a whole replica-exchange SGLD analysis of a model,
// as the fresgld commands do, for any Go program.
//
// A model (plan.Model) is an energy.Terms (a prior term and one term per
// example, each with its gradient) with its parameters' names. Run takes
// it with Options, fills in the automatic values in one place (Defaults: the step
// size from the curvature at the posterior mode, the minibatch sizes from
// the gradients' spread, the run length from the slowest direction, the
// swap energies from a pilot run), runs the chains in parallel, streams
// each chain to chain-<c>.csv in CmdStan's layout, and returns a Result:
// the summary table (means, sds, quantiles, ESS and R̂ as R's posterior
// package computes them), the swap and clamp statistics, the cost, and
// the warnings as values, each with its number and remedy. Result.Write
// adds summary.txt, summary.json and the figures.
//
// Minibatches, control-variate and exact-energy swaps work from the Terms
// alone; a model may add fast paths (Model.Curvature for its mode and
// Hessian, Model.Check for its own warnings), as LogisticModel does.
//
// analysis is the run layer: Options, their validation and automatic
// values, the chains, checkpoints and progress. The sampler's choice under
// --method auto is package plan's (with the mode search in package modes),
// and what is read and written of finished chains (the CSVs, the summary,
// merge) is package results's.
package analysis
