package exchange

import (
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/models"
)

// lowBound is a Logistic whose third-derivative bound is understated by
// factor, so that some remainders exceed their thinning bounds.
type lowBound struct {
	*models.Logistic
	factor float64
}

func (l lowBound) ThirdBound() float64 { return l.factor * l.Logistic.ThirdBound() }

// ThinnedEnergies stops on a violated thinning bound, or a state that is
// not a number, with an error naming the levels and the value, where the
// attempt used to be rejected (the law silently wrong) or passed (a NaN
// intensity draws no event). On thinnedThree's model with its third
// derivative's bound understated a hundredfold, the first of 200 attempts
// at the mode ± 1.5 that meets such an example must
// return ThinAt's error; a NaN state's attempt returns the intensity's.
// With the error of ThinAt left unread in thinnedRatio, neither comes.
func TestThinnedSwapStopsOnAViolatedBound(t *testing.T) {
	lr, mode := thinnedModel(t)
	s := thinnedSampler(t, lr, lowBound{lr, 0.01}, mode, []float64{1, 2}, []float64{0.001 * 1, 0.001 * 2}, 3)
	defer s.Close()
	x, y := []float64{mode[0] - 1.5}, []float64{mode[0] + 1.5}
	var failed error
	for range 200 {
		if _, failed = s.thinnedRatio(0, x, y); failed != nil {
			break
		}
	}
	if s.pairs[0].Confirmed != 0 {
		t.Fatalf("%d attempts took the full pass: the thinning was not tried", s.pairs[0].Confirmed)
	}
	if failed == nil || !strings.Contains(failed.Error(), "levels 0 and 1") || !strings.Contains(failed.Error(), "exceeds its bound b =") {
		t.Fatalf("200 attempts with the bound understated a hundredfold: error %v, want ThinAt's naming the levels", failed)
	}
	t.Log(failed)
	if _, err := s.thinnedRatio(0, []float64{math.NaN()}, y); err == nil || !strings.Contains(err.Error(), "intensity NaN") {
		t.Errorf("a NaN state: error %v, want one naming the NaN intensity", err)
	}
}
