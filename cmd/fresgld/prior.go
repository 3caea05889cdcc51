package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/models"
)

// slabFlags are the spike-and-slab prior's flags, which regress and
// logistic share: --slab-weight, --spike-sd and --slab-sd.
type slabFlags struct {
	SlabWeight float64 `json:"slab_weight"`
	SpikeSD    float64 `json:"spike_sd"`
	SlabSD     float64 `json:"slab_sd"`
}

// addSlabFlags declares them with regress's defaults; slabSD says what
// --slab-sd is under the normal prior.
func addSlabFlags(fl *pflag.FlagSet, f *slabFlags, slabSD string) {
	fl.Float64Var(&f.SlabWeight, "slab-weight", defaultSlabWeight, "spike-and-slab: prior probability w of the slab")
	fl.Float64Var(&f.SpikeSD, "spike-sd", defaultSpikeSD, "spike-and-slab: sd s0 of the spike")
	fl.Float64Var(&f.SlabSD, "slab-sd", defaultSlabSD, slabSD)
}

// checkPrior checks --prior and, under spike-slab, the prior's settings,
// each error naming its flag.
func (f slabFlags) check(prior string) error {
	if prior != "normal" && prior != "spike-slab" {
		return fmt.Errorf("--prior %q: want normal or spike-slab", prior)
	}
	if err := positive("--slab-sd", f.SlabSD); err != nil {
		return err
	}
	if prior == "spike-slab" {
		if !(f.SlabWeight > 0 && f.SlabWeight < 1) {
			return fmt.Errorf("--slab-weight = %v: must lie in (0, 1) (1 is --prior normal)", f.SlabWeight)
		}
		if err := positive("--spike-sd", f.SpikeSD); err != nil {
			return err
		}
		if !(f.SpikeSD < f.SlabSD) {
			return fmt.Errorf("--spike-sd = %v: must be below --slab-sd = %v", f.SpikeSD, f.SlabSD)
		}
	}
	return nil
}

// prior is the prior the flags set.
func (f slabFlags) prior(prior string) models.SlabPrior {
	if prior == "normal" {
		return models.SlabPrior{W: 1, Slab: f.SlabSD}
	}
	return models.SlabPrior{W: f.SlabWeight, Spike: f.SpikeSD, Slab: f.SlabSD}
}
