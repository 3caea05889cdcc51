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

// Diabetes is the diabetes progression data as CSV: a header, ten baseline
// variables and the response column "progression".
//
//go:embed diabetes.csv
var Diabetes []byte

// UScrime is the US crime data of MASS as CSV: a header, 15 predictors and
// the response column "y" (offences per 10⁶ population).
//
//go:embed uscrime.csv
var UScrime []byte

// Galaxies is the galaxies data of MASS as CSV: a header and the column
// "velocity" (km/s) of 82 galaxies.
//
//go:embed galaxies.csv
var Galaxies []byte

// Iris is the petal lengths (cm) of R's iris data as CSV: a header and the
// column "petal_length" of 150 flowers, 50 of each of three species.
//
//go:embed iris.csv
var Iris []byte

// JohnsonJohnson is R's quarterly earnings per Johnson & Johnson share
// (US dollars), 1960–1980, as CSV: a header, the column "quarter" (such as
// "1960 Q1") and the column "earnings", 84 rows in time order.
//
//go:embed johnsonjohnson.csv
var JohnsonJohnson []byte

// LakeHuron is R's annual level of Lake Huron (feet), 1875–1972, as CSV:
// a header, the column "year" and the column "level", 98 rows in time
// order.
//
//go:embed lakehuron.csv
var LakeHuron []byte
