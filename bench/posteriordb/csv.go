package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// readChains reads CmdStan CSV files, one chain each (comment lines start
// with #, then a header of names, then a draw a line), into draws[name]
// = [chain][draw].
func readChains(files []string) (map[string][][]float64, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no chain files")
	}
	draws := map[string][][]float64{}
	for c, path := range files {
		names, cols, err := readCSV(path)
		if err != nil {
			return nil, err
		}
		for j, n := range names {
			if c > 0 && len(draws[n]) != c {
				return nil, fmt.Errorf("%s: column %s is not in every chain before it", path, n)
			}
			draws[n] = append(draws[n], cols[j])
		}
	}
	for n, ch := range draws {
		if len(ch) != len(files) {
			return nil, fmt.Errorf("column %s is in %d of %d chain files", n, len(ch), len(files))
		}
	}
	return draws, nil
}

// readCSV reads one CmdStan CSV file by columns.
func readCSV(path string) ([]string, [][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	var names []string
	var cols [][]float64
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		fields := strings.Split(t, ",")
		if names == nil {
			for _, n := range fields {
				names = append(names, strings.Trim(n, `"`))
			}
			cols = make([][]float64, len(names))
			continue
		}
		if len(fields) != len(names) {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, the header has %d", path, line, len(fields), len(names))
		}
		for j, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			cols[j] = append(cols[j], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if names == nil {
		return nil, nil, fmt.Errorf("%s: no header", path)
	}
	return names, cols, nil
}
