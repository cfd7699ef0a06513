package main

import (
	"strings"
	"testing"
)

// Flags with no effect in a simulation get one note on stderr; --quiet
// drops it, --disable-tqdm does not.
func TestNoEffectNote(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench", "--num-prompts", "5", "--port", "8000", "--host", "h", "--temperature=0", "--disable-tqdm")
	if r.stderr != "servesim: note: --host, --port, --temperature: no effect in a simulation (see servesim bench -h)\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if r := mustRun(t, "bench", "--num-prompts", "5", "--port", "8000", "--quiet"); r.stderr != "" {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
	r = mustRun(t, "bench", "--num-prompts", "5", "--endpoint-type", "openai-chat")
	if !strings.Contains(r.stderr, "--endpoint-type is the old name of --backend") {
		t.Errorf("--endpoint-type: stderr %q", r.stderr)
	}
}
