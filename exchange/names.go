package exchange

import "fmt"

// The enumerations Rule, Scheme and EnergyMode are each named by a table;
// nameOf and parseName read such a table for their String and Parse.

// nameOf is v's name in names, or typ(v) outside the table.
func nameOf[T ~int](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseName is the value that names calls s; false when none is.
func parseName[T ~int](names []string, s string) (T, bool) {
	for i, n := range names {
		if n == s {
			return T(i), true
		}
	}
	return 0, false
}
