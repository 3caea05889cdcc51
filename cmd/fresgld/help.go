package main

import "embed"

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

// swapModeRule is the documented rule of --swap-energies auto, with the
// glossary of the output's terms.
var swapModeRule = help("swap-energies") + help("glossary")
