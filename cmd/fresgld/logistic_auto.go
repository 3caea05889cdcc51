package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// autoRefused are the flags --method auto chooses itself or has no use
// for: the ladder's, and the step, minibatch and correction of the
// minibatch methods.
var autoRefused = append([]string{"eta", "batch", "correction"}, ladderOnlyFlags...)

// checkAuto refuses, under --method auto, flags the plan would ignore.
// --levels 1 it takes: the plan's sampler on one level, no ladder.
func checkAuto(cmd *cobra.Command) error {
	var set []string
	for _, name := range autoRefused {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || !fl.Changed || fl.Value.String() == "auto" || name == "levels" && fl.Value.String() == "1" {
			continue
		}
		set = append(set, "--"+name+" "+fl.Value.String())
	}
	if len(set) == 0 {
		return nil
	}
	return fmt.Errorf("--method auto (the default) chooses its own sampler, step, gradients and ladder for this posterior, so it would ignore %s: drop them (--levels 1 it takes: one level, no ladder), or give a --method that takes them (sgld, corrected, resgld, mresgld, fresgld)", strings.Join(set, ", "))
}
