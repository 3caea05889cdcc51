package analysis

import (
	"github.com/fresgld/fresgld/models"
)

// LogisticModel is a Bayesian logistic regression as an analysis model,
// with its fast paths: the Newton mode and Hessian for the curvature, and
// the separable-data check on the posterior means.
func LogisticModel(lr *models.Logistic, names []string) Model {
	featureSD := sampledScales(lr.X, lr.Len(), lr.Dim())
	return Model{
		Terms:     lr,
		Names:     names,
		Curvature: func(seed uint64) (Curvature, error) { return logisticCurvature(lr, seed) },
		Check: func(mean []float64) []string {
			return separable(names, mean, featureSD, lr.Sigma0)
		},
	}
}
