// Package data holds the real data sets the studies use, embedded so that
// the commands run from anywhere. Their sources and licences are in
// README.md beside them.
package data

import _ "embed"

// WDBC is the Wisconsin diagnostic breast cancer data as CSV: a header, 30
// feature columns and the 0/1 label column "benign" (1 = benign).
//
//go:embed wdbc.csv
var WDBC []byte
