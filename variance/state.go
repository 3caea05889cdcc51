package variance

import (
	"fmt"

	"github.com/fresgld/fresgld/energy"
)

// The models' states for checkpoints (energy.StateSaver). Work space (one
// update's sample variances, the repeats' buffers, KRR's last prediction)
// is rewritten before it is read, and is not saved.

func (Known) Stateless() {}

type runningState struct {
	M      int
	Gvar   []float64
	Evar   float64
	Frozen bool
}

// SaveState saves the running averages.
func (r *Running) SaveState() ([]byte, error) {
	return energy.EncodeState(runningState{M: r.m, Gvar: r.gvar, Evar: r.evar, Frozen: r.frozen})
}

// RestoreState restores what SaveState saved.
func (r *Running) RestoreState(b []byte) error {
	var st runningState
	if err := energy.DecodeState(b, &st, "running variance"); err != nil {
		return err
	}
	r.m, r.evar, r.frozen = st.M, st.Evar, st.Frozen
	r.gvar, r.gv = nil, nil
	if st.Gvar != nil {
		r.gvar, r.gv = st.Gvar, make([]float64, len(st.Gvar))
	}
	return nil
}

type krrState struct {
	N       int
	Xs, Ys  []float64
	Gvar    []float64
	Evar    float64
	Fitted  bool
	FitStep int
	P       int
	Frozen  bool // burn-in is over (KRR.Freeze): nothing more is recorded
}

// SaveState saves the recorded points and running averages. A fit is not
// saved: it is a deterministic function of the points and is refitted on
// restore. A follower's adoption of its leader's fit is not saved either:
// a restored follower adopts it at its next Observe, which is before any
// use of it (see Observe), as the saved one had or would have.
func (k *KRR) SaveState() ([]byte, error) {
	st := krrState{N: k.n, Xs: k.xs, Ys: k.ys, Gvar: k.gvar, Evar: k.evar, Frozen: k.frozen}
	if k.leader == nil {
		if f := k.fitted.Load(); f != nil {
			st.Fitted, st.FitStep, st.P = true, f.step, f.p
		}
	}
	return energy.EncodeState(st)
}

// RestoreState restores what SaveState saved into a model of the same
// settings (and, for a follower, a leader restored in the same checkpoint).
func (k *KRR) RestoreState(b []byte) error {
	var st krrState
	if err := energy.DecodeState(b, &st, "kernel ridge variance"); err != nil {
		return err
	}
	if st.N > k.Points {
		return fmt.Errorf("kernel ridge variance state: %d points recorded, this model fits on %d", st.N, k.Points)
	}
	k.n, k.evar, k.frozen = st.N, st.Evar, st.Frozen
	k.gvar, k.gv = nil, nil
	if st.Gvar != nil {
		p := len(st.Gvar)
		k.gvar, k.gv = st.Gvar, make([]float64, p)
		if k.leader == nil {
			k.xs = append(make([]float64, 0, k.Points*p), st.Xs...)
			k.ys = append(make([]float64, 0, k.Points*(p+1)), st.Ys...)
		}
	}
	k.adopted, k.lastFit = nil, nil
	k.fitted.Store(nil)
	if st.Fitted {
		if k.leader != nil || st.P < 1 || len(k.xs) != st.N*st.P || len(k.ys) != st.N*(st.P+1) {
			return fmt.Errorf("kernel ridge variance state: a fit on %d points of dimension %d without their records", st.N, st.P)
		}
		f := fitKRR(k.xs, k.ys, st.P, st.N)
		f.step = st.FitStep
		k.fitted.Store(f)
	}
	return nil
}

type autoState struct {
	Smooth   []float64
	Smoothed bool
	Frozen   bool
	Stats    AutoStats
}

// SaveState saves the smoothed spread and the checks' record; the size
// itself is the minibatch's, saved with the minibatch.
func (a *AutoBatch) SaveState() ([]byte, error) {
	return energy.EncodeState(autoState{Smooth: a.smooth, Smoothed: a.smoothed, Frozen: a.frozen, Stats: a.stats})
}

// RestoreState restores what SaveState saved.
func (a *AutoBatch) RestoreState(b []byte) error {
	var st autoState
	if err := energy.DecodeState(b, &st, "automatic minibatch"); err != nil {
		return err
	}
	if len(st.Smooth) != len(a.smooth) {
		return fmt.Errorf("automatic minibatch state: dimension %d, this model's %d", len(st.Smooth), len(a.smooth))
	}
	copy(a.smooth, st.Smooth)
	a.smoothed, a.frozen, a.stats = st.Smoothed, st.Frozen, st.Stats
	return nil
}
