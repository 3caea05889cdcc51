package nuts

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// slowGauss is a standard Gaussian whose every evaluation takes delay, as
// a model in another process at tens of milliseconds a request would.
type slowGauss struct {
	*gauss
	delay time.Duration
	evals atomic.Int64
}

func (s *slowGauss) UGrad(g, x []float64) float64 {
	time.Sleep(s.delay)
	s.evals.Add(1)
	return s.gauss.UGrad(g, x)
}
func (s *slowGauss) U(x []float64) float64 { return s.UGrad(nil, x) }
func (s *slowGauss) Grad(g, x []float64)   { s.UGrad(g, x) }
func (s *slowGauss) Dim() int              { return s.gauss.Dim() }
func stopAfter(d time.Duration) <-chan struct{} {
	c := make(chan struct{})
	time.AfterFunc(d, func() { close(c) })
	return c
}

// A stop ends Warmup within a leapfrog step (here 5 ms), with ErrStopped:
// 1000 transitions at this pace take tens of seconds, and Warmup used to
// run them all. The limit, 200 ms after the stop, is 40 evaluations; the
// last evaluation under way when the stop comes is the most a stop waits
// for.
func TestWarmupStops(t *testing.T) {
	e := &slowGauss{gauss: newGauss(make([]float64, 5), identity(5)), delay: 5 * time.Millisecond}
	cfg := DefaultConfig()
	cfg.Stop = stopAfter(300 * time.Millisecond)
	start := time.Now()
	_, _, st, err := Warmup(e, make([]float64, 5), 1000, rand.New(rand.NewPCG(1, 2)), cfg)
	took := time.Since(start)
	if !errors.Is(err, ErrStopped) || took > 500*time.Millisecond {
		t.Fatalf("Warmup returned %v after %v (%d transitions); want ErrStopped within 200 ms of the stop at 300 ms", err, took, len(st.Trace))
	}
	t.Logf("stopped after %v, %d transitions, %d evaluations", took, len(st.Trace), e.evals.Load())
}

// A stop cuts a transition short between leapfrog steps: on a trajectory
// that would run to the largest depth (a step size of 10⁻³ on a standard
// Gaussian: 1023 steps, 5 s here) the kernel returns within a few steps of
// the stop, reports the transition stopped, and leaves the state where it
// began, as no transition ran.
func TestKernelTransitionStops(t *testing.T) {
	e := &slowGauss{gauss: newGauss(make([]float64, 2), identity(2)), delay: 5 * time.Millisecond}
	cfg := DefaultConfig()
	cfg.Stop = stopAfter(100 * time.Millisecond)
	k, err := NewKernel(e, Tuned{StepSize: 1e-3, InvMetric: []float64{1, 1}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -0.2}
	start := time.Now()
	moved, _ := k.Step(theta, rand.New(rand.NewPCG(3, 4)))
	took := time.Since(start)
	if moved || theta[0] != 0.3 || theta[1] != -0.2 || !k.Last().Stopped || took > 300*time.Millisecond {
		t.Errorf("after %v: moved %v to %v, last %+v; want the state kept and the transition stopped within 200 ms of the stop", took, moved, theta, k.Last())
	}
}
