package analysis

import "github.com/fresgld/fresgld/results"

// Merge reads the chain CSVs of separate runs (such as the tasks of an
// array job, each running one chain) and pools them as a single run of all
// those chains would: the same table, byte for byte. The chains must come
// from the same command and settings and carry distinct ids. Files killed
// before their first draw are left out and named in skipped.
func Merge(files []string) (res *Result, skipped []string, err error) {
	chains, skipped, err := results.ReadChains(files)
	if err != nil {
		return nil, skipped, err
	}
	if err := results.EmptyChains(chains); err != nil {
		return nil, skipped, err
	}
	s, err := results.SummarizeChains(chains)
	if err != nil {
		return nil, skipped, err
	}
	res = &Result{Chains: chains, Summary: s, Warnings: s.Details}
	// A chain apart is warned about as a run of all these chains would
	// warn (Run): the tasks of an array job are no less over-dispersed.
	res.AddWarnings(results.ApartWarnings(chains, nil, "")...)
	return res, skipped, nil
}
