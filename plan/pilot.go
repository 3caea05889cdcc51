package plan

import (
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/fresgld/fresgld/diag"
)

// The pilots (ModePlan's of its ladder, MixturePlan's of its Gibbs
// kernel) run PilotChains short chains side by side and read the same
// things from them: every quantity's trace, the slowest one's ESS, a
// pooled acceptance and, while they run, the time left.

// pilotParallel runs chain(c) for the pilot's chains c < PilotChains, on
// as many goroutines as there are cores, and returns each chain's error.
func pilotParallel(chain func(c int) error) []error {
	errs := make([]error, PilotChains)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(PilotChains, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for c := range next {
				errs[c] = chain(c)
			}
		})
	}
	for c := range PilotChains {
		next <- c
	}
	close(next)
	wg.Wait()
	return errs
}

// pilotTraces[q][c] is quantity q's pilot trace in chain c: the
// parameters, then the model's generated quantities.
type pilotTraces [][][]float64

func newPilotTraces(quantities int) pilotTraces {
	d := make(pilotTraces, quantities)
	for q := range d {
		d[q] = make([][]float64, PilotChains)
	}
	return d
}

// keep appends the draw x to chain c's traces and, when out has room for
// them, the quantities m generates from it (written into out).
func (d pilotTraces) keep(c int, m Model, x, out []float64) {
	for j, v := range x {
		d[j][c] = append(d[j][c], v)
	}
	if len(out) > 0 {
		m.Generate(out, x)
		for j, v := range out {
			d[len(x)+j][c] = append(d[len(x)+j][c], v)
		}
	}
}

// slowestESS is the smallest bulk ESS over the quantities, a constant one
// (ESS NaN) passed over; +Inf when every one is constant.
func (d pilotTraces) slowestESS() float64 {
	ess := math.Inf(1)
	for _, q := range d {
		if e := diag.ESSBulk(q); !math.IsNaN(e) {
			ess = min(ess, e)
		}
	}
	return ess
}

// pooledRate is the chains' accepts over their attempts, NaN without
// attempts.
func pooledRate(accepts, attempts []int) float64 {
	var a, n int
	for c := range accepts {
		a, n = a+accepts[c], n+attempts[c]
	}
	if n > 0 {
		return float64(a) / float64(n)
	}
	return math.NaN()
}

// timeLeft extrapolates the time since start, n of total done, to the
// rest.
func timeLeft(start time.Time, n, total int64) time.Duration {
	return time.Duration(float64(time.Since(start)) * float64(total-n) / float64(n))
}
