// Package results reads, writes and summarises finished chains: the chain
// CSVs in CmdStan's layout (Chain, ReadStanCSV, StanWriter), the summary
// table with its ESS, R̂ and warnings (SummarizeChains, Summary, Warning),
// the files a finished run leaves (Report: summary.txt, summary.json and
// the figures), the merge of separate runs' chains (ReadChains), the
// repair of torn CSVs, the ladder's report and the comparison with an
// exact posterior (CompareExact).
//
// It is separate from analysis, which plans and runs the chains, because
// everything here works from the chains' draws alone: fresgld merge and
// repair, and any program that reads the CSVs, need none of the sampler.
// ErrInterrupted lives here because a chain's summary says whether it was
// interrupted.
package results
