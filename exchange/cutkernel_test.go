package exchange_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// cutKernel is a random walk whose step cutAt (from 1) a stop cuts short
// after it drew from the stream, as a NUTS transition stopped between
// leapfrog steps does.
type cutKernel struct {
	n, cutAt int
	cut      bool
}

func (k *cutKernel) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	k.n++
	k.cut = k.n == k.cutAt
	if k.cut {
		rng.Float64()
		rng.Float64()
		return false, 1
	}
	theta[0] += rng.NormFloat64()
	return true, 1
}

func (k *cutKernel) Cut() bool { return k.cut }

// A step its StoppableKernel cut short is not a step: the sampler returns
// ErrStopped with the steps before it, writes no draw, and its saved state
// resumes on the stream the uninterrupted chain draws. It fails where the
// cut step counts (the draw before it written again, issue 51's
// interrupted NUTS chains: draw 750 = draw 749) or the replica's stream
// stays advanced (the resumed chain's draws differ from there).
func TestCutKernelStepIsNotTaken(t *testing.T) {
	mix := models.PaperMixture()
	sampler := func(k exchange.Kernel) *exchange.Sampler {
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: energy.Exact{E: mix}, Eta: langevin.Constant{Step: 1}, Kernel: k}}, Seed: 5}, [][]float64{{0}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const steps, cutAt = 40, 13
	draws := func(s *exchange.Sampler, p exchange.Plan) ([]float64, error) {
		var d []float64
		err := exchange.Run(s, p, exchange.SinkFunc(func(_ int, s *exchange.Sampler) error {
			d = append(d, s.State(0)[0])
			return nil
		}))
		return d, err
	}
	whole, err := draws(sampler(&cutKernel{}), exchange.Plan{Keep: steps, Thin: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := sampler(&cutKernel{cutAt: cutAt})
	first, err := draws(s, exchange.Plan{Keep: steps, Thin: 1})
	if !errors.Is(err, exchange.ErrStopped) || s.Steps() != cutAt-1 || len(first) != cutAt-1 {
		t.Fatalf("cut at step %d: error %v, %d steps, %d draws; want ErrStopped after %d", cutAt, err, s.Steps(), len(first), cutAt-1)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r := sampler(&cutKernel{})
	if err := r.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	rest, err := draws(r, exchange.Plan{Keep: steps, Thin: 1, Done: r.Steps()})
	if err != nil {
		t.Fatal(err)
	}
	if got := append(first, rest...); !slices.Equal(got, whole) {
		t.Errorf("cut at step %d and resumed: draws %v\nthe uninterrupted chain's %v", cutAt, got, whole)
	}
}
