package minibatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/fresgld/fresgld/mala"
)

// SDFollowUp runs the sd follow-up on the breast-cancer posterior at size sz:
// the variants over seeds against the MALA reference ref, beside the linear
// prediction of the sd bias at the posterior mode for the cold chain and the
// hot chain's usual sizes, and the main study's reSGLD read from mainPath
// (skipped when missing or of another size). It returns the Markdown tables.
func SDFollowUp(ref Reference, sz Size, variants []SDVariant, seeds, workers int, mainPath string, progress func(done, total int)) (string, error) {
	l, _, err := BreastCancer()
	if err != nil {
		return "", err
	}
	pr, err := BreastCancerProblem(ref, sz)
	if err != nil {
		return "", err
	}
	st := pr.Setting
	mode, _, err := mala.Laplace(l, st.Init)
	if err != nil {
		return "", err
	}
	lin, err := LinearSD(l, mode, st.Eta, st.Tau1, st.NCold)
	if err != nil {
		return "", err
	}
	// The hot chain's automatic n ends near 10 on average and reaches 2.
	hotSizes := []int{10, 5}
	hotLin := map[int][]LinearPrediction{}
	for _, n := range hotSizes {
		if hotLin[n], err = LinearSD(l, mode, st.Eta, st.Tau2, n); err != nil {
			return "", err
		}
	}
	main, err := mainSummary(mainPath, len(st.Budgets))
	if err != nil {
		return "", err
	}
	sums, err := SDStudy(pr, ref, variants, seeds, workers, progress)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	SDMarkdown(&b, pr, seeds, lin, hotLin, hotSizes, sums, main)
	return b.String(), nil
}

// mainSummary reads the main study's breast-cancer summary from path; it
// returns nil when the file is missing or was written at another size (a
// smoke run), since its budgets would not be this run's.
func mainSummary(path string, budgets int) (*Summary, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("main study's summary: %w", err)
	}
	var sums []Summary
	if err := json.Unmarshal(b, &sums); err != nil {
		return nil, fmt.Errorf("main study's summary %s: %w", path, err)
	}
	for i := range sums {
		if sums[i].Problem == "breast-cancer" && len(sums[i].Setting.Budgets) == budgets {
			return &sums[i], nil
		}
	}
	return nil, nil
}
