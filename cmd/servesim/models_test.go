package main

import (
	"strings"
	"testing"
)

func TestModelsCommand(t *testing.T) {
	t.Parallel()
	r := runCLI("models", "--grep", "qwen2.5-7b-instruct")
	if r.code != 0 || !strings.Contains(r.stdout, "Qwen/Qwen2.5-7B-Instruct  7.62B   28      32768    bf16") {
		t.Errorf("models --grep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("models", "--grep", "no-such-model"); r.code != 2 || !strings.Contains(r.stderr, `no id contains "no-such-model"`) {
		t.Errorf("an empty listing: exit %d, %q", r.code, r.stderr)
	}
}
