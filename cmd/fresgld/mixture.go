package main

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/output"
)

// mixtureFlags are the settings of a mixture run.
type mixtureFlags struct {
	Data         string  `json:"data"`
	Column       string  `json:"column"`
	NoHeader     bool    `json:"no_header"`
	Components   int     `json:"components"`
	Dirichlet    float64 `json:"dirichlet"`
	Reference    bool    `json:"reference"`
	Method       string  `json:"method"`
	Seed         uint64  `json:"seed"`
	Tau2         float64 `json:"tau2"`
	Levels       int     `json:"levels"`
	LevelsAuto   bool    `json:"levels_automatic"`
	Eta          float64 `json:"eta"`
	EtaAuto      bool    `json:"eta_automatic"`
	Batch        int     `json:"batch"`
	BatchAuto    bool    `json:"batch_automatic"`
	HotBatch     int     `json:"hot_batch"`
	HotBatchAuto bool    `json:"hot_batch_automatic"`
	SwapEnergies string  `json:"swap_energies"`
	SwapGaussian bool    `json:"swap_gaussian"`
	Burn         int     `json:"burn"`
	BurnAuto     bool    `json:"burn_automatic"`
	Keep         int     `json:"keep"`
	Thin         int     `json:"thin"`
	ThinAuto     bool    `json:"thin_automatic"`
	chainFlags
	Out string `json:"-"`
}

// mixtureSummary is summary.json of a mixture run.
type mixtureSummary struct {
	Settings    *mixtureFlags         `json:"settings"`
	N           int                   `json:"values"`
	ColumnName  string                `json:"column_name"`
	K           int                   `json:"components_k"`
	E0          float64               `json:"dirichlet_e0"`
	DataMean    float64               `json:"data_mean"`
	DataSD      float64               `json:"data_sd"`
	Clusters    []clusterRow          `json:"number_of_clusters"`
	Comps       []compRow             `json:"component_table"`
	Ref         *mixRefInfo           `json:"reference,omitempty"`
	WallSeconds float64               `json:"wall_seconds"`
	StepRule    string                `json:"step_rule,omitempty"`
	BatchRule   string                `json:"batch_rule,omitempty"`
	RunRule     string                `json:"run_length_rule,omitempty"`
	Plan        *analysis.PlanSummary `json:"plan,omitempty"`
	analysis.SwapSummary
	// LadderTuning is the ladder's tuning under --levels auto.
	LadderTuning *exchange.Adapted `json:"ladder_tuning,omitempty"`
	analysis.Summary
}

func init() {
	f := &mixtureFlags{}
	cmd := &cobra.Command{
		Use:   "mixture",
		Short: "a mixture of K normals for one column of your CSV data, with the posterior number of clusters",
		Long:  help("mixture"),
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runMixture(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Data, "data", "", "CSV file holding the values (required)")
	fl.StringVar(&f.Column, "column", "", "the values' column: header name or column number from 1 (required)")
	fl.BoolVar(&f.NoHeader, "no-header", false, "the first line is data, not column names")
	fl.IntVar(&f.Components, "components", 4, "components K of the mixture, 2 to 8")
	fl.Float64Var(&f.Dirichlet, "dirichlet", 1, "Dirichlet weight e0 of the mixture weights (1: uniform; below 1: sparse)")
	fl.BoolVar(&f.Reference, "reference", false, "first run an exact reference sampler (8 chains × 100,000 sweeps), print it beside")
	fl.StringVar(&f.Method, "method", string(analysis.AutoMethod), "auto, or "+methodHelp)
	fl.Uint64Var(&f.Seed, "seed", 1, "random seed (of the run and of --reference)")
	fl.Float64Var(&f.Tau2, "tau2", 4, "hot temperature τ2")
	f.Levels = 2
	fl.Var(autoValue[int]{&f.Levels, &f.LevelsAuto}, "levels", "levels, geometric from 1 to --tau2; auto: tuned first (4 to 16 levels)")
	f.EtaAuto, f.BatchAuto, f.HotBatchAuto, f.BurnAuto, f.ThinAuto = true, true, true, true, true
	fl.Var(autoValue[float64]{&f.Eta, &f.EtaAuto}, "eta", "step size η (auto: 0.2/λ_max)")
	fl.Var(autoValue[int]{&f.Batch, &f.BatchAuto}, "batch", "cold minibatch size (auto: its noise takes half the budget)")
	fl.Var(autoValue[int]{&f.HotBatch, &f.HotBatchAuto}, "hot-batch", "hot minibatch size (auto: sized in burn-in; the number of values: exact)")
	fl.StringVar(&f.SwapEnergies, "swap-energies", "auto", "auto, draw, minibatch, cv, pair, pair-cv, exact, taylor or pair-taylor")
	fl.BoolVar(&f.SwapGaussian, "swap-gaussian", false, "let --swap-energies draw take the energy noise for Gaussian (else refused)")
	fl.Var(autoValue[int]{&f.Burn, &f.BurnAuto}, "burn", "steps discarded first (auto: from the slowest direction's relaxation)")
	fl.IntVar(&f.Keep, "keep", 5000, "draws kept a chain (--method auto: 1000 unless given)")
	fl.Var(autoValue[int]{&f.Thin, &f.ThinAuto}, "thin", "steps between kept draws (auto)")
	addChainFlags(fl, &f.chainFlags)
	fl.StringVar(&f.Out, "out", "out/mixture", "output directory")
	rootCmd.AddCommand(cmd)
}

// mixtureLadderFlags are mixture's flags that only a ladder of levels reads.
var mixtureLadderFlags = []string{"levels", "tau2", "hot-batch", "swap-energies", "swap-gaussian"}

// validate checks every flag before the data are read.
func (f *mixtureFlags) validate(cmd *cobra.Command) (exchange.Method, error) {
	if f.Data == "" {
		return "", errors.New("--data: no CSV file given")
	}
	if f.Column == "" {
		return "", errors.New("--column: no column given (a header name or a column number from 1)")
	}
	if f.Components < 2 || f.Components > 8 {
		return "", fmt.Errorf("--components = %d: must lie in 2..8", f.Components)
	}
	if err := positive("--dirichlet", f.Dirichlet); err != nil {
		return "", err
	}
	m := analysis.AutoMethod
	if f.Method != string(m) {
		var err error
		if m, err = exchange.ParseMethod(f.Method); err != nil {
			return "", fmt.Errorf("--method: %w; or auto, the default", err)
		}
	} else if !cmd.Flags().Changed("keep") {
		f.Keep = analysis.PlanKeep
	}
	applicable := notApplicable(cmd.Flags(), m, mixtureLadderFlags)
	if m == analysis.AutoMethod {
		applicable = checkAuto(cmd)
	}
	if err := firstError(applicable, checkChainCount(f.chainFlags), checkChainFlag(cmd.Flags(), f.chainFlags),
		runSizeAuto(f.Burn, f.Keep, f.Thin, 0, f.BurnAuto, f.ThinAuto), explicit("--eta", f.Eta, f.EtaAuto), explicit("--batch", f.Batch, f.BatchAuto), explicit("--hot-batch", f.HotBatch, f.HotBatchAuto)); err != nil {
		return "", err
	}
	if err := f.options(cmd, m).Validate(); err != nil {
		return "", err
	}
	if err := output.Check(f.Out); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	return m, nil
}

// model reads the column and builds the mixture.
func (f *mixtureFlags) model() (*models.FiniteMixture, *dataset.Column, error) {
	c, err := dataset.ReadColumn(f.Data, f.Column, f.NoHeader)
	if err != nil {
		return nil, nil, fmt.Errorf("--data: %w", err)
	}
	m, err := models.NewFiniteMixture(c.Values, f.Components, f.Dirichlet)
	if err != nil {
		return nil, nil, fmt.Errorf("--data: %s: column %d (%q): %w", f.Data, c.Index, c.Name, err)
	}
	return m, c, nil
}

func runMixture(cmd *cobra.Command, f *mixtureFlags) error {
	method, err := f.validate(cmd)
	if err != nil {
		return err
	}
	defer debug.SetGCPercent(debug.SetGCPercent(analysis.RunGCPercent))
	mix, col, err := f.model()
	if err != nil {
		return err
	}
	var ref *models.MixReference
	if f.Reference {
		if ref, err = mixtureReference(cmd.ErrOrStderr(), mix, f.Seed); err != nil {
			return err
		}
	}
	model := analysis.MixtureModel(mix)
	o := f.options(cmd, method)
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	res, err := analysis.Run(ctx, model, o)
	stop()
	if err != nil {
		return err
	}
	if w := refWarning(ref); w != nil {
		res.AddWarnings(w...)
	}
	ro := res.Options
	f.Eta, f.Batch, f.Burn, f.Thin = ro.Eta, ro.Batch, ro.Burn, ro.Thin
	sum := mixtureSummary{Settings: f, N: mix.Len(), ColumnName: col.Name, K: mix.K, E0: mix.E0, DataMean: mix.Mean, DataSD: mix.SD,
		WallSeconds: res.Wall.Seconds(), StepRule: res.StepRule, BatchRule: res.BatchRule, RunRule: res.RunRule, Plan: res.Plan, LadderTuning: res.Tuning, Summary: res.Summary}
	if res.Swap != nil {
		sum.SwapSummary = *res.Swap
	}
	name := f.Method
	if method == analysis.AutoMethod {
		name = "mixture"
	}
	fmt.Printf("%s on %s (%d values, K = %d components, %d coordinates), %d chain(s) in %.1fs:\n", name, f.Data, mix.Len(), mix.K, mix.Dim(), len(o.Chains), sum.WallSeconds)
	printLines(res.Notes)
	printLines(res.SwapLines)
	if res.Summary.Draws > 0 {
		sum.Clusters, sum.Comps = mixtureTables(res.Summary, mix.K, ref)
		sum.Ref = refInfo(ref)
		writeMixtureTables(sum.Clusters, sum.Comps, ref)
		if w := offWarning(ref, sum.Clusters, sum.Comps, mix.SD); w != nil {
			res.AddWarnings(w...) // prepends: the run's own are kept
			sum.Summary = res.Summary
		}
	}
	return report(cmd, res, &sum)
}

// options are the analysis options the flags set (0 or analysis.Auto where
// automatic).
func (f *mixtureFlags) options(cmd *cobra.Command, m exchange.Method) analysis.Options {
	o := analysis.DefaultOptions()
	o.Command, o.Method, o.Seed, o.Tau2, o.Levels, o.SwapEnergies = "mixture", m, f.Seed, f.Tau2, f.Levels, f.SwapEnergies
	zeroIf(&o.Levels, f.LevelsAuto)
	o.Keep, o.Out, o.Log, o.Progress = f.Keep, f.Out, cmd.ErrOrStderr(), progressTo(cmd)
	o.SwapGaussian = f.SwapGaussian
	o.Chains, _ = f.chainFlags.ids()
	o.Single, o.CheckpointEvery = f.Chain > 0, f.Every
	o.Args, o.Cwd, o.Version, o.Resume = runArgs(cmd), workingDir(), buildVersion(), resuming
	o.Inputs = runInputs(cmd)
	if !f.EtaAuto {
		o.Eta = f.Eta
	}
	if !f.BatchAuto {
		o.Batch = f.Batch
	}
	if !f.HotBatchAuto {
		o.HotBatch = f.HotBatch
	}
	if !f.BurnAuto {
		o.Burn = f.Burn
	}
	if !f.ThinAuto {
		o.Thin = f.Thin
	}
	o.Settings = func(o analysis.Options) [][2]string {
		g := *f
		g.Eta, g.Batch, g.HotBatch, g.Burn, g.Thin = o.Eta, o.Batch, o.HotBatch, o.Burn, o.Thin
		s, _ := settingsOf(&g)
		if mode := o.SwapMode(); mode != "" {
			s = append(s, [2]string{"swap_energies_used", mode})
		}
		return s
	}
	return o
}
