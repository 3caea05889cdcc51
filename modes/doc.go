// Package modes finds a posterior's modes before any sampling: the
// multi-start search (SearchModes), with Newton's method, the ray scan for
// far basins and the Laplace weights of the modes found, the barriers
// between them along the segment and along the lowest path (PathBarrier),
// the search's summary for the output, and afterwards each chain's share
// of draws at each mode (Occupancy).
//
// It is separate from plan, which decides what to run from what the search
// found, because the search needs nothing of the plan: it reports its
// progress and learns to stop through the small Status interface, which
// the plan's status satisfies.
package modes
