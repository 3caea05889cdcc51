package modes

// ModeWeight is the least Laplace weight of a mode whose barrier
// counts: a chain that never visited a lighter one would move an
// inclusion probability or a mode weight by less than the run's own
// error.
const ModeWeight = 0.005

// Barrier is the barrier the plan reads: between the heaviest mode and
// those of weight ≥ ModeWeight, in nats.
func (s *ModeSearch) Barrier() float64 { return s.BarrierAbove(ModeWeight) }

// BarrierAbove is the barrier between the heaviest mode and the others of
// weight at least w.
func (s *ModeSearch) BarrierAbove(w float64) float64 {
	var b float64
	for i, m := range s.Modes {
		if i > 0 && m.Weight >= w {
			b = max(b, m.barrier)
		}
	}
	return b
}
