package pde_test

import (
	"fmt"

	"github.com/fresgld/fresgld/pde"
)

// A solve gives the sensor reading and, by the adjoint, its gradient with
// respect to the bump's centre; both approach the closed form as the grid
// is refined.
func ExampleSolver_ReadingGrad() {
	cfg := pde.Config{N: 79, Steps: 4, T: 0.03, Sensor: [2]float64{0.3, 0.5}, Bump: pde.PaperBump()}
	s, err := pde.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	x0 := [2]float64{0.42, 0.6}
	grad := make([]float64, 2)
	g := s.ReadingGrad(grad, x0)
	exact := make([]float64, 2)
	e := cfg.Bump.Reading(exact, cfg.Sensor, cfg.T, x0)
	fmt.Printf("reading  %.2f (exact %.2f)\n", g, e)
	fmt.Printf("gradient (%.0f, %.0f) (exact (%.0f, %.0f))\n", grad[0], grad[1], exact[0], exact[1])
	// Output:
	// reading  4.56 (exact 4.56)
	// gradient (-55, -46) (exact (-55, -46))
}
