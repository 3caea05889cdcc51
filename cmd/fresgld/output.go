package main

import (
	"encoding/json"
	"io"
	"strconv"
)

// encodeJSON writes v to w as indented JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// names returns θ1, θ2, ... for p coordinates.
func coordNames(p int) []string {
	n := make([]string, p)
	for j := range n {
		n[j] = "theta" + strconv.Itoa(j+1)
	}
	return n
}
