package energy_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// A minibatch gradient of logistic regression with its free variance
// estimate, and what it cost.
func ExampleNewMinibatch() {
	data, truth, err := models.SyntheticLogistic(10_000, 5, 1, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	mb, err := energy.NewMinibatch(data, 50)
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(1, 1))
	grad, gradVar := make([]float64, 5), make([]float64, 5)
	mb.Grad(grad, gradVar, truth, rng)
	for j := range grad {
		fmt.Printf("∂_%dÛ = %8.1f ± %5.1f\n", j, grad[j], math.Sqrt(gradVar[j]))
	}
	fmt.Println("per-example gradients evaluated:", mb.GradCost())
	// Output:
	// ∂_0Û =    698.8 ± 610.7
	// ∂_1Û =   -262.3 ± 513.8
	// ∂_2Û =     37.4 ± 544.9
	// ∂_3Û =    914.5 ± 299.4
	// ∂_4Û =    888.6 ± 502.6
	// per-example gradients evaluated: 50
}
