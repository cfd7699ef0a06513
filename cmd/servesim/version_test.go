package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVersionText: the version line names the module version, the commit
// and its time, a modified tree, and the toolchain.
func TestVersionText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "01702d4"}, {Key: "vcs.time", Value: "2026-12-01T23:36:50Z"}, {Key: "vcs.modified", Value: "true"}}},
			"servesim (devel) (commit 01702d4, 2026-12-01T23:36:50Z, modified) go1.26.0"},
		{"tag", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}}, "servesim v0.3.0 go1.26.0"},
		{"test binary", debug.BuildInfo{GoVersion: "go1.26.0"}, "servesim (devel) go1.26.0"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, versionText(&tt.info), tt.name)
	}
}

// TestVersionCommand: servesim version prints one line and takes no
// arguments.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "version")
	assert.Regexp(t, `^servesim \S+.* go1\.\d+`, r.stdout)
	bad := servesim(t, "version", "now")
	assert.Equal(t, 2, bad.code)
	assert.Contains(t, bad.stderr, `version: takes no arguments, got "now"`)
}
