// Package nuts is Hamiltonian Monte Carlo with the No-U-Turn Sampler and
// Stan's windowed adaptation, in Go, on an energy.Energy: the target density
// is exp(−U).
//
// It follows Stan 2.2x (src/stan/mcmc/hmc/nuts/base_nuts.hpp and the
// adaptation classes beside it), read and rewritten, not translated:
//
//   - Multinomial NUTS: the trajectory doubles in a random direction; the
//     outer doubling samples by biased progressive sampling (the new
//     subtree's draw replaces the current one with probability
//     min(1, w_new/w_old)), the subtrees multinomially, each state weighing
//     e^{H0−H}.
//   - The generalised no-U-turn criterion on the summed momenta ρ and the
//     sharp momenta p♯ = M⁻¹p at the ends, checked on every subtree and, as
//     Stan does since 2.21, also across the two halves of each merge.
//   - A leapfrog step whose energy error H − H0 passes MaxDeltaH (1000),
//     or whose energy is +∞ or NaN (the model rejects the state), is
//     divergent and ends the trajectory.
//   - Euclidean metrics, diagonal or dense: p ~ N(0, M), kinetic energy
//     ½pᵀM⁻¹p.
//   - Warmup: Stan's initial step-size search, dual averaging of log ε
//     (δ = 0.8, γ = 0.05, κ = 0.75, t0 = 10, μ = log 10ε), and metric
//     windows (buffers 75 and 50, first window 25, doubling), each ending
//     with the Welford (co)variance of its draws shrunk as Stan does,
//     (n/(n+5))Σ̂ + 10⁻³(5/(n+5))I, a new step-size search and a restart of
//     the dual averaging. The frozen step size is e^{x̄}.
//
// Warmup adapts; NewKernel returns a fixed kernel (an exchange.Kernel) that
// does not allocate per transition.
//
// Where it departs from Stan: with 20 ≤ warmup < 150 (the default buffers
// and window overflow it) Stan announces a 15%/75%/10% split but, not
// restarting its window counter, never ends a metric window, so its metric
// stays the identity; here the split is carried out, one metric window over
// the middle 75%. A subtree's proposal is drawn leaf by leaf (each new state
// replaces it with probability w/W, W the subtree's weight so far) rather
// than at each merge as Stan does: the same law, fewer copies. There is no
// step-size jitter (Stan's default is none).
//
// Why by hand: no maintained Go module implements NUTS with Stan's
// adaptation (none of the Go modules this project can install offers NUTS
// or HMC), and the project needs one as a reference sampler that runs
// beside its own, with no C++ toolchain.
package nuts
