package analysis

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/models"
)

// --swap-energies draw is refused on minibatch energies without
// --swap-gaussian, with the noise's measured excess kurtosis in the error;
// with it, a run whose energies are far from Gaussian is warned with the
// number, and one whose energies do not vary (n = N) is not.
func TestDrawNoiseRefused(t *testing.T) {
	data, _, err := models.SyntheticLogistic(2000, 3, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Batch, o.HotBatch, o.Seed = 2, 2, 1
	mode := []float64{2, -1, 0.5} // a state where the examples' terms are skewed
	if _, err := checkDrawNoise(data, o, mode); err == nil || !strings.Contains(err.Error(), "--swap-gaussian") || !strings.Contains(err.Error(), "excess kurtosis") {
		t.Fatalf("draw mode without --swap-gaussian: error %v, want a refusal naming --swap-gaussian with the kurtosis", err)
	}
	o.SwapGaussian = true
	w, err := checkDrawNoise(data, o, mode)
	if err != nil || w == nil || w.Code != "swap-gaussian" || !(w.Number > 3*0.11) {
		t.Fatalf("draw mode with --swap-gaussian at n = 2: warning %+v, error %v; want a warning with an excess kurtosis beyond 3 standard errors", w, err)
	}
	t.Logf("%s", w.Message)
	o.SwapBatch = data.Len()
	if w, err := checkDrawNoise(data, o, mode); err != nil || w != nil {
		t.Errorf("exact energies (n = N): warning %+v, error %v; want neither", w, err)
	}
}
