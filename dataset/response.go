package dataset

import "fmt"

// StandardizeResponse centres the response Y and divides it by its
// population standard deviation, as the features are standardised, and
// returns the mean and sd it used (read with Options.Response). On the
// standardised scale a regression coefficient is the change in the
// response, in its sds, per sd of its feature, and the intercept is 0.
func (d *Data) StandardizeResponse() (mean, sd float64, err error) {
	m, sd, scale := meanSD(d.Y)
	if !(sd > 0) {
		return 0, 0, fmt.Errorf("the response %q is constant (%v): there is nothing to regress", d.Label, m)
	}
	for i, v := range d.Y {
		if scale == 1 {
			d.Y[i] = (v - m) / sd
		} else {
			d.Y[i] = (v/scale - m/scale) / (sd / scale)
		}
	}
	return m, sd, nil
}
