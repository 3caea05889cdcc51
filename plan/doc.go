// Package plan chooses the sampler of an analysis (--method auto): it takes
// a Model and returns a ChainPlan, each chain's sampler with its step, run
// length and the line that says why. For a log-concave posterior whose
// model finds its own mode (a PlanModel) that is preconditioned chains on
// the gradients GradRule picks (LogConcave); otherwise the modes the search
// finds (package modes) decide between MALA or NUTS at one mode and a
// ladder of MALA levels, or of the model's own kernel, across the barriers
// between several (ModePlan); a finite mixture plans its own Gibbs run
// (MixturePlan). It also holds the plan's inputs and checks: the Model and
// its Curvature, the run-length rule (RunLengthFor), the forecast of the
// gradient noise's clamp heat (ForecastNoise) and the gradient check.
//
// It is separate from analysis, which runs the chains, so that the plan
// depends on no run type: it reports what it is doing on a Status and
// stops on its context, and the run layer applies the ChainPlan it returns
// to the Options (analysis.Run).
package plan
