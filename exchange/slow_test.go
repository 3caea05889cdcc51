//go:build !mutation

package exchange

// runSlow says whether the long statistical tests run. The mutation run
// (go test -tags mutation; see docs/mutation.md) skips them, so that each
// mutant's test run takes seconds; the fast, exact tests must kill the
// mutants on their own.
const runSlow = true
