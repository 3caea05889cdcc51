package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/output"
)

// minibatchSDFlags are the settings of the sd follow-up.
type minibatchSDFlags struct {
	minibatchRuns
	Results  string // set from the output flags
	Summary  string
	Variants string
}

func init() {
	f := &minibatchSDFlags{}
	var o outFlags
	long := strings.TrimRight(help("reproduce-minibatch-sd"), "\n") +
		"\n\nThe variants (--variants; a subset writes breast-cancer-sd-<keys>.md):\n  " + sdVariantKeys() +
		"\n--summary, the main study's, gives reSGLD's final sd error (skipped if missing)."
	cmd := studyCommand("minibatch-sd", "Why f-reSGLD's and corrected-sgld's sd error levels off on breast cancer", long, func(cmd *cobra.Command) error {
		var err error
		if f.Results, _, err = o.dirs(cmd, "minibatch"); err != nil {
			return err
		}
		return runMinibatchSD(f)
	})
	fl := cmd.Flags()
	f.bind(fl, "seeds per variant")
	fl.StringVar(&f.Summary, "summary", "docs/results/minibatch/summary.json", "the main study's summary (optional)")
	fl.StringVar(&f.Variants, "variants", "all", "comma-separated variants to run (listed above), or all")
	o.bind(cmd)
	reproduceCmd.AddCommand(cmd)
}

func runMinibatchSD(f *minibatchSDFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	keys := strings.Split(f.Variants, ",")
	variants, err := minibatch.SelectSDVariants(keys)
	if err != nil {
		return fmt.Errorf("--variants: %w", err)
	}
	file := "breast-cancer-sd.md"
	if f.Variants != "all" {
		file = "breast-cancer-sd-" + strings.Join(keys, "+") + ".md"
	}
	if _, err := output.Prepare(f.Results, file); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	l, _, err := minibatch.BreastCancer()
	if err != nil {
		return err
	}
	ref, err := minibatch.LoadReference(f.Reference, l.Dim())
	if err != nil {
		return fmt.Errorf("--reference: %w (compute it with %s)", err, refCommand)
	}
	sz := f.size()
	start := time.Now()
	total := f.Seeds * len(variants)
	md, err := minibatch.SDFollowUp(ref, sz, variants, f.Seeds, f.Workers, f.Summary, progressFunc("breast-cancer sd", total))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "breast-cancer sd follow-up: %d runs in %.1fs\n", total, time.Since(start).Seconds())
	fmt.Print(md)
	return output.WriteBytes(filepath.Join(f.Results, file), []byte(md))
}

// sdVariantKeys lists the follow-up's variant keys for the help text.
func sdVariantKeys() string {
	keys := make([]string, len(minibatch.SDVariants))
	for i, v := range minibatch.SDVariants {
		keys[i] = v.Key
	}
	return strings.Join(keys, ", ")
}
