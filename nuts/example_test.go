package nuts_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/nuts"
)

// The fixed kernel is a kernel of the replica-exchange sampler.
var _ exchange.Kernel = (*nuts.Kernel)(nil)

// Warm up on a Gaussian of standard deviations 0.1 and 10, then sample it
// with the frozen step size and metric.
func Example() {
	target := energy.Quadratic{Lambda: []float64{100, 0.01}} // U = ½Σλθ², sd 1/√λ
	rng := rand.New(rand.NewPCG(1, 2))
	tuned, theta, warm, err := nuts.Warmup(target, []float64{1, 1}, 1000, rng, nuts.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := nuts.NewKernel(target, tuned, nuts.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var sq [2]float64
	const n = 2000
	for range n {
		k.Step(theta, rng)
		sq[0] += theta[0] * theta[0] / n
		sq[1] += theta[1] * theta[1] / n
	}
	fmt.Println("metric windows ended after transitions", warm.WindowEnds)
	fmt.Printf("inverse metric near the variances 0.01 and 100: %v\n",
		math.Abs(math.Log(tuned.InvMetric[0]/0.01)) < 0.5 && math.Abs(math.Log(tuned.InvMetric[1]/100)) < 0.5)
	fmt.Printf("sd estimates within 10%%: %v\n",
		math.Abs(math.Sqrt(sq[0])/0.1-1) < 0.1 && math.Abs(math.Sqrt(sq[1])/10-1) < 0.1)
	fmt.Println("divergences after warmup:", k.Divergences())
	// Output:
	// metric windows ended after transitions [99 149 249 449 949]
	// inverse metric near the variances 0.01 and 100: true
	// sd estimates within 10%: true
	// divergences after warmup: 0
}
