package main

import "runtime/debug"

// version is set at link time for releases:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/fresgld
var version string

// moduleVersion is the version of this source tree: what --version names
// when the build recorded none (a build from a checkout records "(devel)",
// and with VCS stamping off, as under GOFLAGS=-buildvcs=false, no
// revision either). It is raised with each release.
const moduleVersion = "v0.1.0"

// buildVersion is the version --version prints: the link-time version if
// set, else the module version Go recorded in the binary, else this
// tree's, with the VCS revision when Go recorded one.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return moduleVersion + "-dev (no build information recorded)"
	}
	return versionOf(bi)
}

// versionOf is the version bi records: a module version fetched from a
// proxy (go install …@v1.2.3) as is; a build from a checkout as
// moduleVersion-dev with its revision, or saying none was recorded.
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	v = moduleVersion + "-dev"
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev == "" {
		return v + " (built from source; no VCS revision recorded)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return v + " (revision " + rev + dirty + ")"
}
