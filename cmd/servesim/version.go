package main

import (
	"errors"
	"fmt"
	"runtime/debug"
)

const versionUsage = `Usage: servesim version

Prints the module version of the binary (a tag, or "(devel)" for a build
from a checkout), its commit and commit time when the build recorded them
(-buildvcs, on by default in a git checkout), and the Go toolchain.
`

// runVersion is `servesim version`.
func runVersion(args []string, e *env) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(e.stdout, versionUsage)
		return errHelp
	}
	if len(args) > 0 {
		return fmt.Errorf("version: takes no arguments, got %q", args[0])
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("version: the binary holds no build information (built without module support)")
	}
	fmt.Fprintln(e.stdout, versionText(info))
	return nil
}

// versionText is "servesim VERSION (commit REV, TIME[, modified]) GO".
func versionText(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	out := "servesim " + v
	if rev := settings["vcs.revision"]; rev != "" {
		out += " (commit " + rev
		if t := settings["vcs.time"]; t != "" {
			out += ", " + t
		}
		if settings["vcs.modified"] == "true" {
			out += ", modified"
		}
		out += ")"
	}
	return out + " " + info.GoVersion
}
