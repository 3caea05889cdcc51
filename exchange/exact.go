package exchange

import (
	"fmt"
	"math"
	"slices"
)

// exactLogRatio is log S for swapping x (at level l) with y (at level l+1)
// on noise-free energies:
//
//	log S = [U_l(x) − U_l(y)]/τ_l − [U_{l+1}(x) − U_{l+1}(y)]/τ_{l+1},
//
// the ratio π_l(y)π_{l+1}(x) / π_l(x)π_{l+1}(y) whatever the two levels'
// energies. It takes four evaluations, each charged to the level whose
// estimator makes it. When both levels use one estimator object, their
// energies are one U and it reduces to τδ[U(x) − U(y)]: two evaluations, by
// level l's estimator at x and level l+1's at y (as f-reSGLD charges them).
// Estimators that are distinct objects may still share one energy (the
// presets clone a minibatch for each level); nothing cheap tells, so they
// pay the four evaluations: the exact rule is a reference to check the
// noisy ones against, not a way to save cost.
//
// Two levels whose kernels are PowerKernels decide the swap by the colder
// one's SwapLogRatio, its cost charged half to each.
func (s *Sampler) exactLogRatio(l int, x, y []float64) (float64, error) {
	if kl, ok := s.lv[l].Kernel.(PowerKernel); ok {
		if kh, ok := s.lv[l+1].Kernel.(PowerKernel); ok {
			lr, c, err := kl.SwapLogRatio(s.srng, kh.Lambda(), x, y)
			s.spend(l, c/2)
			s.spend(l+1, c/2)
			if err != nil {
				return 0, fmt.Errorf("levels %d and %d: swap at step %d: %w", l, l+1, s.k, err)
			}
			if math.IsNaN(lr) || math.IsInf(lr, 1) {
				return 0, fmt.Errorf("levels %d and %d: swap log-ratio %v at step %d", l, l+1, lr, s.k)
			}
			return lr, nil
		}
	}
	tl, th := s.lv[l].Tau, s.lv[l+1].Tau
	shared := sameEstimator(s.lv[l].Est, s.lv[l+1].Est)
	if shared {
		// A Metropolis-adjusted level holds U of its own state already
		// (Level.Metropolis): a ladder of them on one estimator swaps at
		// no cost.
		ux, okx := s.lv[l].held(x)
		uy, oky := s.lv[l+1].held(y)
		if okx && oky {
			return (1/tl - 1/th) * (ux - uy), nil
		}
	}
	ux, vx, err := s.energy(l, x)
	if err != nil {
		return 0, err
	}
	var uy, vy float64
	if shared {
		uy, vy, err = s.energy(l+1, y)
	} else {
		uy, vy, err = s.energy(l, y)
	}
	if err != nil {
		return 0, err
	}
	if v := vx + vy; v > 0 {
		return 0, exactNoisy(l, v)
	}
	if shared {
		return (1/tl - 1/th) * (ux - uy), nil
	}
	hx, vx, err := s.energy(l+1, x)
	if err != nil {
		return 0, err
	}
	hy, vy, err := s.energy(l+1, y)
	if err != nil {
		return 0, err
	}
	if v := vx + vy; v > 0 {
		return 0, exactNoisy(l+1, v)
	}
	return (ux-uy)/tl - (hx-hy)/th, nil
}

func exactNoisy(l int, v float64) error {
	return fmt.Errorf("level %d: the exact swap rule needs noise-free energies, but the energy variance is %v", l, v)
}

// held is U at theta when the level is Metropolis-adjusted and holds it
// for theta, its own state.
func (lv *level) held(theta []float64) (float64, bool) {
	m := lv.mh
	if m == nil || !m.valid || !slices.Equal(m.x, theta) {
		return 0, false
	}
	return m.ux, true
}
