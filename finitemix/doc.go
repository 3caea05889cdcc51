// Package finitemix holds the finite mixture of normals for one column of
// data (FiniteMixture): its energy and gradient for the gradient samplers,
// the data-augmentation Gibbs kernel with split–merge moves that the
// default mixture plan runs (MixDA), and the collapsed Gibbs sampler that
// serves as its independent reference (MixGibbs, Reference).
package finitemix
