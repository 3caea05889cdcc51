package main

import (
	"embed"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The commands' long help texts, one file each under help/.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help text help/name.txt.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a missing file is a bug of the build
	}
	return string(b)
}

// flagGroups sorts a command's flags into these groups, in this order, when
// it has at least groupFlagsFrom of them and each is named in a group (the
// sampling commands'; the reproduce studies' own flags keep one list). Each
// title is one line of the help.
var flagGroups = []struct {
	title string
	names []string
}{
	{"Input flags:", []string{"model-cmd", "stan", "data", "init", "label", "column", "no-header", "no-standardize",
		"drop-constant", "no-intercept", "model-timeout", "model-procs"}},
	{"Model flags:", []string{"prior", "prior-sd", "slab-sd", "slab-weight", "spike-sd", "noise-sd",
		"components", "dirichlet", "exact", "reference"}},
	{"Sampler flags:", []string{"method", "adapt-delta", "correction", "eta", "decay-b", "decay-gamma", "batch", "hot-batch", "hot-share",
		"a1", "variance", "repeats", "period", "cycle", "explore", "burn", "keep", "thin", "seed"}},
	{"Ladder and swap flags:", []string{"tau1", "tau2", "levels", "auto-levels", "auto-rounds", "auto-first", "auto-grow", "max-levels",
		"swaps", "window", "swap-a", "swap-rate", "swap-batch", "swap-energies", "swap-noise-cap", "swap-gaussian", "exact-every", "swap-pilot"}},
	{"Run and output flags:", []string{"chains", "chain", "concurrent", "checkpoint-every", "out", "overwrite", "help"}},
}

// groupFlagsFrom is the least number of flags a command groups: fewer read
// at a glance in one list.
const groupFlagsFrom = 12

// flagLine finds the flag a line of pflag's FlagUsages describes.
var flagLine = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)`)

// groupedFlags is the "Flags:" section of a command's help: pflag's own
// lines (one a flag, aligned as pflag aligns them), under the titles of
// flagGroups when the command has many flags.
func groupedFlags(fs *pflag.FlagSet) string {
	usage := fs.FlagUsages()
	lines := strings.Split(strings.TrimRight(usage, "\n"), "\n")
	if len(lines) < groupFlagsFrom {
		return "Flags:\n" + usage
	}
	// Each group lists its flags in its own order; a usage's second line
	// stays with the flag above it.
	type entry struct{ group, rank int }
	rank := map[string]entry{}
	for g, fg := range flagGroups {
		for i, n := range fg.names {
			rank[n] = entry{g, i}
		}
	}
	type line struct {
		rank int
		text string
	}
	byGroup := make([][]line, len(flagGroups))
	var e entry
	for _, l := range lines {
		if m := flagLine.FindStringSubmatch(l); m != nil {
			var ok bool
			if e, ok = rank[m[1]]; !ok {
				return "Flags:\n" + usage // a flag of no group: one list
			}
			byGroup[e.group] = append(byGroup[e.group], line{e.rank, l})
		} else if n := len(byGroup[e.group]); n > 0 {
			byGroup[e.group][n-1].text += "\n" + l
		}
	}
	var b strings.Builder
	for g, ls := range byGroup {
		if len(ls) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(flagGroups[g].title + "\n")
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].rank < ls[j].rank })
		for _, l := range ls {
			b.WriteString(l.text + "\n")
		}
	}
	return b.String()
}

// cobra's usage template, with its flag list grouped by groupedFlags.
func init() {
	const list = "Flags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}"
	tmpl := rootCmd.UsageTemplate()
	if !strings.Contains(tmpl, list) {
		panic("cobra's usage template has no flag list to group") // a cobra upgrade changed it
	}
	cobra.AddTemplateFunc("groupedFlags", groupedFlags)
	rootCmd.SetUsageTemplate(strings.Replace(tmpl, list, "{{groupedFlags .LocalFlags | trimTrailingWhitespaces}}", 1))
}
