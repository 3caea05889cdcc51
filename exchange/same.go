package exchange

import (
	"fmt"
	"reflect"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/variance"
)

// same reports whether a and b are one object: the same pointer (or
// comparable value). Values that cannot be compared (a struct holding a
// slice, directly or through an interface) are taken as distinct: == on
// them would panic.
func same(a, b any) bool {
	if a == nil || b == nil {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || !va.Comparable() || !vb.Comparable() {
		return false
	}
	return a == b
}

func sameEstimator(a, b energy.Estimator) bool { return same(a, b) }

// checkModels refuses variance models that would serve the wrong level: a
// stateful model (a pointer) on two levels, which would mix their states
// and race when levels step concurrently, and a model bound to another
// level's estimator or to another temperature.
func checkModels(levels []Level) error {
	for l, L := range levels {
		if L.Var == nil {
			continue
		}
		if reflect.ValueOf(L.Var).Kind() != reflect.Pointer {
			continue
		}
		for k := l + 1; k < len(levels); k++ {
			if same(levels[k].Var, L.Var) {
				return fmt.Errorf("levels %d and %d share one variance model %T: it holds one level's state; give each level its own (Setup.HotVarAt)", l, k, L.Var)
			}
		}
	}
	for l, L := range levels {
		b, ok := L.Var.(variance.Bound)
		if !ok {
			continue
		}
		est, tau := b.Binding()
		for k, K := range levels {
			if k != l && same(est, K.Est) && !same(est, L.Est) {
				return fmt.Errorf("level %d: variance model %T is bound to level %d's estimator; give each level its own (Setup.HotVarAt)", l, L.Var, k)
			}
		}
		if tau != L.Tau {
			return fmt.Errorf("level %d: variance model %T is bound to τ = %v, the level's is %v", l, L.Var, tau, L.Tau)
		}
	}
	return nil
}

// checkConcurrent refuses, when levels step concurrently, one estimator
// that keeps per-draw state (a energy.Cloner, such as a minibatch) on two
// levels: both would write its buffers at once.
func checkConcurrent(levels []Level) error {
	for l, L := range levels {
		if _, ok := L.Est.(energy.Cloner); !ok {
			continue
		}
		for k := l + 1; k < len(levels); k++ {
			if sameEstimator(levels[k].Est, L.Est) {
				return fmt.Errorf("levels %d and %d share one estimator %T, which keeps per-draw state: stepping them concurrently would race; give level %d a Clone of it", l, k, L.Est, k)
			}
		}
	}
	return nil
}
