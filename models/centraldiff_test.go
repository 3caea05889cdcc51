package models

// centralDiff is (f(θ + h·e_j) − f(θ − h·e_j))/(2h), the central
// difference the gradient tests hold the models' gradients to; theta is
// left as it was.
func centralDiff(f func([]float64) float64, theta []float64, j int, h float64) float64 {
	up, dn := append([]float64(nil), theta...), append([]float64(nil), theta...)
	up[j] += h
	dn[j] -= h
	return (f(up) - f(dn)) / (2 * h)
}
