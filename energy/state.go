package energy

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
)

// A checkpoint must carry everything that decides a sampler's next draws.
// Estimators and variance models that keep such state between calls (a
// minibatch's size and its partial shuffle, a running average) implement
// StateSaver; those that keep none say so with Stateless. A sampler refuses
// to checkpoint a level whose estimator or model does neither, rather than
// write a checkpoint that would resume on different draws.

// StateSaver is an estimator or variance model whose state between calls
// can be saved and restored: RestoreState on a value built with the same
// settings makes its next draws those the saved one would have made.
type StateSaver interface {
	SaveState() ([]byte, error)
	RestoreState([]byte) error
}

// Stateless marks an estimator or variance model that keeps nothing between
// calls that changes its later draws.
type Stateless interface{ Stateless() }

// SaveStateOf saves x's state: nil for a Stateless x, an error naming x's
// type when x keeps state it cannot save.
func SaveStateOf(x any) ([]byte, error) {
	switch v := x.(type) {
	case StateSaver:
		return v.SaveState()
	case Stateless:
		return nil, nil
	}
	return nil, fmt.Errorf("%T can neither save its state (energy.StateSaver) nor declares it keeps none (energy.Stateless): its draws after a resume could differ", x)
}

// RestoreStateOf restores what SaveStateOf saved.
func RestoreStateOf(x any, b []byte) error {
	switch v := x.(type) {
	case StateSaver:
		return v.RestoreState(b)
	case Stateless:
		if len(b) != 0 {
			return fmt.Errorf("%T keeps no state, but the checkpoint holds %d bytes of it", x, len(b))
		}
		return nil
	}
	return fmt.Errorf("%T can neither restore its state (energy.StateSaver) nor declares it keeps none (energy.Stateless)", x)
}

// EncodeState and DecodeState are the gob encoding the savers here use;
// gob writes a float64's bits, so values come back exactly (NaN and ±Inf
// included).
func EncodeState(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DecodeState reads what EncodeState wrote into v (a pointer); what names
// the value for the error.
func DecodeState(b []byte, v any, what string) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s state: %w", what, err)
	}
	return nil
}

func (Exact) Stateless()  {}
func (*Noisy) Stateless() {}

// SaveState saves the wrapped estimator's state.
func (h Hidden) SaveState() ([]byte, error) { return SaveStateOf(h.Estimator) }

// RestoreState restores the wrapped estimator's state.
func (h Hidden) RestoreState(b []byte) error { return RestoreStateOf(h.Estimator, b) }

// drawState is a sampler's state that changes later draws: the partial
// Fisher–Yates shuffle continues from the last permutation. (The hashed
// draws' stamps change no draw.)
type drawState struct {
	Perm []int32
}

func (s *sampler) state() drawState { return drawState{Perm: s.perm} }

func (s *sampler) restore(d drawState) error {
	if d.Perm == nil {
		// Never shuffled: a permutation allocated since is the identity,
		// as the saved sampler's would be when first needed.
		for i := range s.perm {
			s.perm[i] = int32(i)
		}
		return nil
	}
	if len(d.Perm) != s.N {
		return fmt.Errorf("a permutation of %d examples, the data have %d", len(d.Perm), s.N)
	}
	s.perm = append(s.perm[:0], d.Perm...)
	return nil
}

type minibatchState struct {
	N, NE       int
	Draw        drawState
	Spread      []float64
	Draws       int
	Track, Keep bool
}

// SaveState saves the minibatch's size, energy size, shuffle and spread.
func (m *Minibatch) SaveState() ([]byte, error) {
	return EncodeState(minibatchState{N: m.n, NE: m.ne, Draw: m.s.state(), Spread: m.spread, Draws: m.draws, Track: m.track, Keep: m.keep})
}

// RestoreState restores what SaveState saved into a minibatch on the same
// data.
func (m *Minibatch) RestoreState(b []byte) error {
	var st minibatchState
	if err := DecodeState(b, &st, "minibatch"); err != nil {
		return err
	}
	if len(st.Spread) != len(m.spread) {
		return fmt.Errorf("minibatch state: dimension %d, this estimator's %d", len(st.Spread), len(m.spread))
	}
	if err := m.SetSize(st.N); err != nil {
		return fmt.Errorf("minibatch state: %w", err)
	}
	if err := m.SetEnergySize(st.NE); err != nil {
		return fmt.Errorf("minibatch state: %w", err)
	}
	if st.Keep {
		m.KeepRows()
	}
	m.track = st.Track
	if err := m.s.restore(st.Draw); err != nil {
		return fmt.Errorf("minibatch state: %w", err)
	}
	copy(m.spread, st.Spread)
	m.draws = st.Draws
	return nil
}

// SaveState saves the drawer's shuffle.
func (d *Indices) SaveState() ([]byte, error) { return EncodeState(d.s.state()) }

// RestoreState restores what SaveState saved into a drawer over as many
// examples.
func (d *Indices) RestoreState(b []byte) error {
	var st drawState
	if err := DecodeState(b, &st, "index drawer"); err != nil {
		return err
	}
	if st.Perm != nil {
		d.s.reserve(d.s.N) // allocates perm
	}
	if err := d.s.restore(st); err != nil {
		return fmt.Errorf("index drawer state: %w", err)
	}
	return nil
}

// Restore places a restored anchor at theta, where the saved one stood, by
// a full pass (N per-example evaluations: the cost of not saving its N or
// N·p per-example values), and sets its pass count to the saved one. The
// pass is deterministic, so the anchor's values are the saved anchor's.
func (a *Anchor) Restore(theta []float64, passes int) error {
	if len(theta) != len(a.theta) {
		return fmt.Errorf("anchor of dimension %d, the data's is %d", len(theta), len(a.theta))
	}
	if err := a.Refresh(theta); err != nil {
		return err
	}
	a.passes = passes
	return nil
}

type cvGradState struct {
	N      int
	Anchor []float64
	Draw   drawState
}

// SaveState saves the estimator's size and shuffle; its anchor, fixed at
// construction, is saved only to refuse a restore about another one.
func (c *CVGrad) SaveState() ([]byte, error) {
	return EncodeState(cvGradState{N: c.n, Anchor: c.anchor, Draw: c.s.state()})
}

// RestoreState restores what SaveState saved into an estimator on the same
// data and anchor.
func (c *CVGrad) RestoreState(b []byte) error {
	var st cvGradState
	if err := DecodeState(b, &st, "control-variate gradient"); err != nil {
		return err
	}
	if len(st.Anchor) != len(c.anchor) {
		return fmt.Errorf("control-variate gradient state: anchor of dimension %d, this estimator's %d", len(st.Anchor), len(c.anchor))
	}
	for j, x := range st.Anchor {
		if math.Float64bits(x) != math.Float64bits(c.anchor[j]) {
			return fmt.Errorf("control-variate gradient state: anchor coordinate %d is %v, this estimator's %v", j, x, c.anchor[j])
		}
	}
	if err := c.SetSize(st.N); err != nil {
		return fmt.Errorf("control-variate gradient state: %w", err)
	}
	if err := c.s.restore(st.Draw); err != nil {
		return fmt.Errorf("control-variate gradient state: %w", err)
	}
	return nil
}
