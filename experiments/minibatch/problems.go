// Package minibatch measures what a cheap hot chain buys on posteriors
// backed by data: SGLD, reSGLD, m-reSGLD and f-reSGLD on minibatch
// gradients, their accuracy against exact answers as a function of the
// per-example evaluations they spend.
package minibatch

import (
	"bytes"

	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/models"
)

// PriorSD is the prior standard deviation σ₀ of every coefficient of the
// breast-cancer regression (features standardised, intercept included):
// a weakly informative N(0, 1), which keeps the nearly separable classes
// from sending the coefficients to infinity.
const PriorSD = 1.0

// BreastCancer is Bayesian logistic regression on the Wisconsin diagnostic
// breast-cancer data: 569 examples, an intercept and the 30 standardised
// features (p = 31), label 1 = benign, prior N(0, PriorSD² I).
func BreastCancer() (*models.Logistic, *dataset.Data, error) {
	d, err := dataset.Read(bytes.NewReader(data.WDBC), "wdbc.csv", dataset.Options{Label: "benign"})
	if err != nil {
		return nil, nil, err
	}
	x, p := d.WithIntercept()
	l, err := models.NewLogistic(x, d.Y, p, PriorSD)
	return l, d, err
}
