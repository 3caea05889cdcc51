package exchange

import "testing"

// skipSlow skips a long statistical test in the mutation run.
func skipSlow(t *testing.T) {
	t.Helper()
	if !runSlow {
		t.Skip("long statistical test: skipped under the mutation tag")
	}
}
