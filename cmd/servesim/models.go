package main

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/servesim/servesim/hfmodels"
)

// runModels lists servesim's registry of Hugging Face checkpoints
// (hfmodels): the ids --model takes without a config.json.
func runModels(args []string, e *env) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	grep := fs.String("grep", "", "list only ids containing this text (case-insensitive)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: servesim models [--grep TEXT]\n\nLists the Hugging Face checkpoints servesim knows without a config.json:\nid, parameters, layers, context (vLLM's default --max-model-len), weight precision, source.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("models: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("models: unexpected argument %q (models takes only --grep)", fs.Arg(0))
	}
	rows, err := hfmodels.Summaries()
	if err != nil {
		return fmt.Errorf("models: %w", err)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "id\tparams\tlayers\tcontext\tprecision\tsource")
	n := 0
	for _, r := range rows {
		if *grep != "" && !strings.Contains(strings.ToLower(r.ID), strings.ToLower(*grep)) {
			continue
		}
		fmt.Fprintf(w, "%s\t%.2fB\t%d\t%d\t%s\t%s\n", r.ID, r.Params/1e9, r.Layers, r.Context, r.Precision, r.Source)
		n++
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("models: no id contains %q (of %d)", *grep, len(rows))
	}
	return nil
}
