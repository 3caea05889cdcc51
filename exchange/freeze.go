package exchange

import (
	"slices"

	"github.com/fresgld/fresgld/variance"
)

// Frozen is what the sampler's adaptation settled on when it ended, at the
// end of burn-in (Sampler.FreezeAfter): the values every later step uses.
type Frozen struct {
	Step int `json:"step"` // the last step that adapted (0: none did)
	// Batch[l] is level l's gradient minibatch size and EnergySize[l] its
	// swap-energy size, 0 for an estimator without one.
	Batch      []int `json:"batch"`
	EnergySize []int `json:"energy_size"`
	// Anchors[r] is replica r's swap anchor under the anchored energy
	// modes (cv, pair-cv, taylor, pair-taylor); it travels with the
	// replica.
	Anchors [][]float64 `json:"anchors,omitempty"`
}

// batchSizer is an estimator with a gradient minibatch size.
type batchSizer interface{ Size() int }

// FreezeAfter makes step burn the last at which the sampler adapts: the
// swap anchors are refreshed every AnchorEvery steps and once more at step
// burn, and the levels' variance models that adapt (variance.Freezer:
// variance.AutoBatch's minibatch size, variance.Running's averages) stop
// at step burn. Every later step is then one fixed kernel, which keeps the
// tempered laws; an anchor refreshed during sampling would make the swap's
// noise depend on the replica's recent path, and the screens' forward and
// reverse noise laws would differ (TestAnchorRefreshDuringSampling).
//
// Run calls it with its plan's Burn. A caller that steps the sampler itself
// calls it before sampling; without it the sampler adapts throughout, which
// suits burn-in and tuning (Adapt, pilots) but not sampling. Calling it at
// or after step burn freezes at once. Stats().Frozen records the frozen
// values.
func (s *Sampler) FreezeAfter(burn int) {
	s.burn = max(burn, 0)
	if s.k >= s.burn {
		s.freeze()
	}
}

// adapting reports whether the step after step k (counted from 0) still
// adapts.
func (s *Sampler) adapting(k int) bool { return s.burn < 0 || k+1 <= s.burn }

// refreshDue reports whether the anchors are refreshed after step k.
func (s *Sampler) refreshDue(k int) bool {
	if s.data == nil || !s.data.Mode.cv() || !s.adapting(k) {
		return false
	}
	return (k+1)%s.data.AnchorEvery == 0 || k+1 == s.burn
}

// freeze ends the variance models' adaptation and records the frozen
// values, once.
func (s *Sampler) freeze() {
	if s.frozen != nil {
		return
	}
	f := &Frozen{Step: s.k}
	for l := range s.lv {
		lv := &s.lv[l]
		if m, ok := lv.Var.(variance.Freezer); ok {
			m.Freeze()
		}
		b, e := 0, 0
		if m, ok := lv.Est.(batchSizer); ok {
			b = m.Size()
		}
		if m, ok := lv.Est.(EnergySizer); ok {
			e = m.EnergySize()
		}
		if s.data != nil && !s.data.Mode.exact() {
			e = s.energySize(l)
		}
		f.Batch, f.EnergySize = append(f.Batch, b), append(f.EnergySize, e)
	}
	if s.data != nil {
		for _, a := range s.data.anchors {
			f.Anchors = append(f.Anchors, slices.Clone(a.Theta()))
		}
	}
	s.frozen = f
}

func (f *Frozen) clone() *Frozen {
	if f == nil {
		return nil
	}
	c := *f
	c.Batch, c.EnergySize = slices.Clone(f.Batch), slices.Clone(f.EnergySize)
	c.Anchors = nil
	for _, a := range f.Anchors {
		c.Anchors = append(c.Anchors, slices.Clone(a))
	}
	return &c
}
