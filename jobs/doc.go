// Package jobs runs many simulations: the project's one numbering and
// seeding rule of an experiment's jobs (Job, At), the shards that split
// them between processes (Shard, ParseShard, and ShardFromEnv, the shard
// a Kubernetes Indexed Job or a Slurm job array assigned), and the one
// runner of parallel work (Pool, and Each over a fixed job list), on
// which RunAll and Replicate run lists of sim.Configs.
//
// Every run is single-threaded and a function of its job alone, so the
// results do not depend on the number of workers: the same seed gives
// byte-identical results whatever GOMAXPROCS. capacity's searches and
// sweeps, plan, calibrate and scenario's experiments go through it.
package jobs
