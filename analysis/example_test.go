package analysis_test

import (
	"context"
	"fmt"
	"os"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
)

// gaussMean is a user's own model: the mean θ of examples x_i ~ N(θ, 1)
// under the prior θ ~ N(0, 10²), one energy term per example.
type gaussMean struct{ x []float64 }

func (g gaussMean) Dim() int { return 1 }
func (g gaussMean) Len() int { return len(g.x) }

func (g gaussMean) Term(grad, theta []float64, i int) float64 {
	r := theta[0] - g.x[i]
	if grad != nil {
		grad[0] = r
	}
	return r * r / 2
}

func (g gaussMean) Prior(grad, theta []float64) float64 {
	if grad != nil {
		grad[0] = theta[0] / 100
	}
	return theta[0] * theta[0] / 200
}

// A program runs an analysis of its own model and reads the result: the
// table's rows and the warnings, each with its code, number and remedy.
func Example() {
	x := make([]float64, 500)
	for i := range x {
		x[i] = 2 + float64(i%5-2)/2 // mean 2
	}
	dir, _ := os.MkdirTemp("", "analysis")
	defer os.RemoveAll(dir)
	o := analysis.DefaultOptions()
	o.Method, o.Keep, o.Out = exchange.SGLDMethod, 500, dir
	res, err := analysis.Run(context.Background(), plan.Model{Terms: gaussMean{x}, Names: []string{"mu"}}, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Summary.Parameters {
		if p.Name == "mu" {
			fmt.Printf("mu: posterior mean within 0.1 of 2: %v\n", p.Mean > 1.9 && p.Mean < 2.1)
		}
	}
	for _, w := range res.Warnings {
		fmt.Printf("warning %s (%.3g): %s\n", w.Code, w.Number, w.Remedy)
	}
	// Output:
	// mu: posterior mean within 0.1 of 2: true
}
