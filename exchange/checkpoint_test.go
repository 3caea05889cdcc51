package exchange

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// resumeCase builds the same ladder afresh at every call.
type resumeCase struct {
	name string
	new  func(t *testing.T) *Sampler
}

func resumeCases() []resumeCase {
	mix := models.PaperMixture()
	drawMode := func(t *testing.T, vars string, scheme Scheme) *Sampler {
		cold, hot := models.PaperFixedNoise(mix)
		setup := Setup{Tau1: 1, Tau2: 10, Levels: 4, Eta: langevin.Constant{Step: 0.03}, Cold: cold, Hot: hot, PerStep: true, Seed: 7, Scheme: scheme}
		switch vars {
		case "running":
			setup.Cold, setup.Hot = energy.Hidden{Estimator: cold}, energy.Hidden{Estimator: hot}
			mk := func() variance.Model { r, _ := variance.NewRunning(5, 3); return r }
			setup.ColdVar, setup.HotVar = mk, mk
		case "krr":
			setup.Cold, setup.Hot = energy.Hidden{Estimator: cold}, energy.Hidden{Estimator: hot}
			lead, _ := variance.NewKRR(20, 4, 2)
			n := 0
			mk := func() variance.Model {
				n++
				if n == 1 {
					return lead
				}
				return lead.Follower()
			}
			setup.ColdVar, setup.HotVar = mk, mk
		}
		cfg, err := FReSGLDMethod.Config(setup)
		if err != nil {
			t.Fatal(err)
		}
		s := mustNew(t, cfg, [][]float64{{0}, {0}, {0}, {0}})
		return s
	}
	dataMode := func(t *testing.T, m Method, mode EnergyMode) *Sampler {
		lr := smallLogistic(t)
		cold, _ := energy.NewMinibatch(lr, 60) // 4n > N: swap draws shuffle too
		hot, _ := energy.NewMinibatch(lr, 120) // 4n > N: the shuffled draws
		eta := langevin.Constant{Step: 0.002}
		setup := Setup{Tau1: 1, Tau2: 8, Levels: 3, Eta: eta, Cold: cold, Hot: hot, PerStep: true, A1: 0.5, Seed: 11,
			Energies: Energies{Mode: mode, Terms: lr, AnchorEvery: 50}}
		setup.HotVarAt = func(est energy.Estimator, tau float64) (variance.Model, error) {
			return variance.NewAutoBatch(est.(*energy.Minibatch), tau, eta, variance.AutoOptions{Every: 5, Smooth: true})
		}
		cfg, err := m.Config(setup)
		if err != nil {
			t.Fatal(err)
		}
		p := lr.Dim()
		s := mustNew(t, cfg, [][]float64{make([]float64, p), make([]float64, p), make([]float64, p)})
		return s
	}
	cvGrad := func(t *testing.T) *Sampler {
		lr := smallLogistic(t)
		p := lr.Dim()
		cold, err := energy.NewCVGrad(lr, make([]float64, p), 60) // 4n > N: shuffled draws
		if err != nil {
			t.Fatal(err)
		}
		hot, _ := energy.NewMinibatch(lr, 20)
		cfg, err := FReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 8, Eta: langevin.Constant{Step: 0.002}, Cold: cold, Hot: hot, PerStep: true, Seed: 5, Energies: Energies{Gaussian: true}})
		if err != nil {
			t.Fatal(err)
		}
		s := mustNew(t, cfg, [][]float64{make([]float64, p), make([]float64, p)})
		return s
	}
	malaLevel := func(t *testing.T) *Sampler {
		lr := smallLogistic(t)
		p := lr.Dim()
		d := make([]float64, p)
		for j := range d {
			d[j] = 1 + float64(j)
		}
		pc, err := langevin.NewDiagPrecond(d)
		if err != nil {
			t.Fatal(err)
		}
		lv := Level{Tau: 1, Est: energy.Exact{E: lr}, Eta: langevin.Constant{Step: 0.05}, Precond: pc, Metropolis: true}
		s := mustNew(t, Config{Levels: []Level{lv}, Seed: 3}, [][]float64{make([]float64, p)})
		return s
	}
	return []resumeCase{
		{"draw/known", func(t *testing.T) *Sampler { return drawMode(t, "known", Sweep) }},
		{"draw/running/deo", func(t *testing.T) *Sampler { return drawMode(t, "running", DEO) }},
		{"draw/krr", func(t *testing.T) *Sampler { return drawMode(t, "krr", Sweep) }},
		{"pair-taylor/fresgld/autobatch", func(t *testing.T) *Sampler { return dataMode(t, FReSGLDMethod, PairTaylorEnergies) }},
		{"cv/resgld", func(t *testing.T) *Sampler { return dataMode(t, ReSGLDMethod, CVEnergies) }},
		{"draw/cvgrad", cvGrad},
		{"mala/precond", malaLevel},
	}
}

// snapshot is everything observable of a sampler, as bits.
func snapshot(t *testing.T, s *Sampler) []byte {
	t.Helper()
	var b bytes.Buffer
	for l := range s.Levels() {
		binary.Write(&b, binary.LittleEndian, s.State(l))
		binary.Write(&b, binary.LittleEndian, int64(s.Replica(l)))
	}
	st := s.Stats()
	for _, p := range st.Pairs {
		binary.Write(&b, binary.LittleEndian, []float64{p.ProbSum, p.Noise, float64(p.Attempts), float64(p.Accepts), float64(p.Capped), float64(p.Confirmed), float64(p.Screened)})
	}
	for _, l := range st.Levels {
		c := l.Cost
		binary.Write(&b, binary.LittleEndian, []float64{c.Grad.Units, c.Energy.Units, c.VarGrad.Units, c.VarEnergy.Units, c.Anchor.Units, float64(l.Clamped), float64(l.ClampedSteps)})
	}
	for _, r := range st.Replicas {
		binary.Write(&b, binary.LittleEndian, []int64{int64(r.RoundTrips), int64(r.Restarts)})
	}
	binary.Write(&b, binary.LittleEndian, int64(st.Steps))
	return b.Bytes()
}

// A sampler saved at step k and restored into a fresh one takes the same
// steps to 2k as the saved one, bit for bit: states, replicas, every
// statistic, and the saved state itself. The states must differ between k
// and 2k, and the fresh sampler's without the restore, or the test sees
// nothing.
func TestMarshalResumesBitForBit(t *testing.T) {
	const k = 153 // not a multiple of the models' periods: restored state is used before it is renewed
	for _, c := range resumeCases() {
		t.Run(c.name, func(t *testing.T) {
			a := c.new(t)
			stepN(t, a, k)
			saved, err := a.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			atK := snapshot(t, a)
			b := c.new(t)
			if err := b.UnmarshalBinary(saved); err != nil {
				t.Fatal(err)
			}
			if got := snapshot(t, b); !bytes.Equal(got, atK) {
				t.Fatal("restored sampler differs from the saved one at step k")
			}
			fresh := c.new(t)
			for range k {
				for _, s := range []*Sampler{a, b, fresh} {
					if err := s.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
			end := snapshot(t, a)
			if got := snapshot(t, b); !bytes.Equal(got, end) {
				t.Errorf("at step 2k the restored sampler differs from the saved one")
			}
			if bytes.Equal(end, atK) || bytes.Equal(snapshot(t, fresh), end) {
				t.Errorf("the check sees nothing: the run did not move, or a fresh sampler matches it")
			}
			sa, _ := a.MarshalBinary()
			sb, _ := b.MarshalBinary()
			if !bytes.Equal(sa, sb) {
				t.Errorf("at step 2k the saved states differ")
			}
		})
	}
}

// Each piece of state matters: restoring with one piece dropped changes
// the run, so the test above would catch a marshaller that forgot it.
func TestMarshalEveryPieceMatters(t *testing.T) {
	const k = 153 // not a multiple of the models' periods: restored state is used before it is renewed
	cases := resumeCases()
	breakers := []struct {
		name   string
		c      int // the case it applies to
		break_ func(st, fresh *samplerState)
	}{
		{"replica stream", 0, func(st, fresh *samplerState) { st.Reps[0].RNG = st.Reps[1].RNG }},
		{"swap stream", 0, func(st, fresh *samplerState) { st.Swap = st.Reps[2].RNG }},
		{"level map", 0, func(st, fresh *samplerState) { st.At[0], st.At[1] = st.At[1], st.At[0] }},
		{"running variance", 1, func(st, fresh *samplerState) { st.Lv[1].Var = fresh.Lv[1].Var }},
		{"krr points", 2, func(st, fresh *samplerState) { st.Lv[0].Var = st.Lv[3].Var }},
		{"minibatch shuffle and size", 3, func(st, fresh *samplerState) { st.Lv[1].Est = st.Lv[0].Est }},
		{"autobatch", 3, func(st, fresh *samplerState) { st.Lv[2].Var = st.Lv[1].Var }},
		{"anchors", 3, func(st, fresh *samplerState) {
			st.AnchorTheta[0], st.AnchorTheta[1] = st.AnchorTheta[1], st.AnchorTheta[0]
		}},
		{"cvgrad shuffle", 5, func(st, fresh *samplerState) { st.Lv[0].Est = fresh.Lv[0].Est }},
		{"drawer shuffle", 4, func(st, fresh *samplerState) { st.Idx = fresh.Idx }},
		// Without its cached U and ∇U the level recomputes them: the same
		// draws, one pass more in its cost.
		{"metropolis cache", 6, func(st, fresh *samplerState) { st.Lv[0].MH = nil }},
		{"pending probabilities", 0, func(st, fresh *samplerState) { st.Probs[0] = nil }},
	}
	for _, br := range breakers {
		t.Run(br.name, func(t *testing.T) {
			a := cases[br.c].new(t)
			stepN(t, a, k)
			saved, _ := a.MarshalBinary()
			var st samplerState
			if err := energy.DecodeState(saved, &st, "test"); err != nil {
				t.Fatal(err)
			}
			var fresh samplerState
			f, _ := cases[br.c].new(t).MarshalBinary()
			if err := energy.DecodeState(f, &fresh, "test"); err != nil {
				t.Fatal(err)
			}
			br.break_(&st, &fresh)
			bad, _ := energy.EncodeState(st)
			b := cases[br.c].new(t)
			if err := b.UnmarshalBinary(bad); err != nil {
				t.Fatal(err)
			}
			for range k {
				a.Step()
				b.Step()
			}
			if bytes.Equal(snapshot(t, a), snapshot(t, b)) {
				t.Errorf("with the %s not restored the run is unchanged", br.name)
			}
		})
	}
}

// A checkpoint from another ladder is refused, naming what differs; an
// estimator that keeps state it cannot save is refused by name.
func TestMarshalRefuses(t *testing.T) {
	a := resumeCases()[0].new(t)
	saved, _ := a.MarshalBinary()
	cold, hot := models.PaperFixedNoise(models.PaperMixture())
	cfg, _ := FReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 12, Levels: 4, Eta: langevin.Constant{Step: 0.03}, Cold: cold, Hot: hot, PerStep: true, Seed: 7})
	other := mustNew(t, cfg, [][]float64{{0}, {0}, {0}, {0}})
	if err := other.UnmarshalBinary(saved); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("another ladder's checkpoint: %v, want a refusal naming the temperature", err)
	}
	if err := other.UnmarshalBinary(saved[:len(saved)/2]); err == nil {
		t.Error("a truncated checkpoint was accepted")
	}
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: opaque{energy.Exact{E: gauss1{}}}, Eta: langevin.Constant{Step: 0.01}}}}, [][]float64{{0}})
	if _, err := s.MarshalBinary(); err == nil || !strings.Contains(err.Error(), "exchange.opaque") || !strings.Contains(err.Error(), "level 0") {
		t.Errorf("an estimator without state methods: %v, want a refusal naming it and its level", err)
	}
}

// opaque is an estimator that says nothing about its state.
type opaque struct{ e energy.Exact }

func (o opaque) Dim() int                                              { return o.e.Dim() }
func (o opaque) Grad(g, v, x []float64, rng *rand.Rand)                { o.e.Grad(g, v, x, rng) }
func (o opaque) Energy(x []float64, rng *rand.Rand) (float64, float64) { return o.e.Energy(x, rng) }
func (opaque) KnowsVariance() bool                                     { return true }
