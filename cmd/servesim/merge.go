package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/scenario"
)

const mergeUsage = `Usage: servesim merge SHARD.json... [flags]

Joins the JSON outputs of 'servesim run --shard i/n' (or any run outputs of
one scenario) into one result set, sorted by point and replication, and
prints it like an unsharded 'servesim run': the same table, CSV or JSON.
Every job must be present exactly once, and all files must come from the
same scenario file.
`

// runMerge is `servesim merge`.
func runMerge(args []string, e *env) error {
	var o report.RunFlags
	fs := cliflag.NewFlagSet("merge")
	groups := o.Define(fs, false)
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, mergeUsage)
		cliflag.Print(e.stdout, fs, groups)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return errors.New("merge: no files given (usage: servesim merge SHARD.json... [flags])")
	}
	if err := o.Check(); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	outs := make([]*scenario.RunFile, len(pos))
	for i, name := range pos {
		var err error
		if outs[i], err = report.ReadRunShard(name); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	merged, err := scenario.MergeRunFiles(outs, pos)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	rows, err := report.Rows(merged)
	if err != nil {
		return err
	}
	return o.Write(e.stdout, merged, rows)
}
