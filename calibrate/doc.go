// Package calibrate fits servesim's efficiency profiles (cost.Profile) to
// real vLLM measurements and reports how well servesim predicts them.
//
// A Point is one measured run and its setup: read rows of aiconfigurator's
// silicon CSV with ReadSiliconCSV, aiperf's and genai-perf's aggregated
// exports with ReadAIPerfExport (IsAIPerfExport tells them apart; aiperf's
// per-request records with ReadAIPerfRecords), or
// result JSONs of `vllm bench serve --save-result` with ReadVLLMResult
// or ReadVLLMResults (the caller fills in GPU and TP, which
// the file does not carry, or the whole engine, Point.Engine; with
// --save-detailed the file's per-request lengths, and an open loop's start
// times, are kept). A Simulator re-simulates points under a
// profile. Config builds each run: the point's engine, or its model, read
// from its Hugging Face config.json in Simulator.ModelDir by LoadModel and
// served in the point's precision by Served, with its GPU, TP (and DP, EP,
// with the point's data-parallel router, Point.DPRouter) and scheduler
// limits; fixed lengths, or each request's (Point.Lengths); and its load
// as the benchmark ran it: a closed loop whose clients all start together
// on an idle engine, every one of its NumPrompts requests measured (the
// first Point.WarmupRepeats of them repeating warm-up prompts the engine
// starts with cached, as genai-perf's do, and every one past the first
// Point.DatasetEntries repeating an earlier prompt; vLLM 0.14 and later scheduling
// asynchronously, their default), an
// open loop at its rate and burstiness, or the requests replayed at their
// recorded times (Point.Arrivals). Predict
// and Residuals compare, Fit frees some of the profile's knobs (Knob) and
// minimises the mean squared log error with gonum's Nelder–Mead, FitStaged
// fits each knob on the metric that identifies it (the bandwidth fraction,
// a per-operator value, stays as the start has it), and CrossValidate holds
// out one group of points at a time. Table, Summary, Worst and Reason write
// the Markdown of docs/fidelity.md; Contradicted and VersionGaps name the
// rows whose measurements disagree with their own setup's (more clients
// decoding faster, two vLLM versions far apart), which no model can match.
// ReadPublicServingCSV reads shared/data/public_serving_runs.csv (IsSGLang
// marks the SGLang rows, kept apart). Simulator.Audit checks each run
// against physics before it is fitted: the prefill FLOP/s its TTFT and
// request rate imply and the bandwidth its TPOT implies, as fractions of
// the GPU's datasheet peaks, flagging a run above AuditLimit with its
// likely cause (prefix-cache hits, lengths not as recorded, the client),
// and a closed loop that ran fewer requests at once than
// AuditAdmissionLimit of what its engine holds (a cap the row does not
// record). It also bounds the CPU-side time per sequence a profile may add
// to every step: AuditRow.PerSeqRoom is the time per running sequence a
// run's decode steps leave beyond their reads at peak bandwidth, and
// AuditRoom tabulates it by version band and batch against a yardstick
// such as CatalogPerSeq.
// Simulator.RegimeOf and RegimeTable write docs/fidelity.md's regime table
// (model class × TP × precision × load). Simulator.FitJoint is the one fit
// over every source at once: kernel terms per GPU (the GEMM fraction per
// weight-precision family, GEMMFamily), CPU-side terms (a + b·running,
// frontend) per vLLM version band (VersionBand), each bounded by a prior
// (TermPrior) and reporting its move (JointTerm.Moved), each move weighed
// against a per-run noise estimated from the runs' spread (EstimateNoise)
// unless JointOptions.Noise gives it. Simulator.CrossGPU
// checks, without a profile, one setup measured on two GPUs of which one
// has more of everything: the faster one's speed-up must reach the floor
// the slower run's utilisation allows, or a host held it back.
//
// Tests: TestFidelityDoc regenerates docs/fidelity.md (but for its
// full-study section) and fails when it differs or when the catalog
// profile does worse than it does now; with the other quick tests it runs
// in a few seconds. The full study (leave-one-TP-out cross-validation of
// FitStaged on all 90 calibration rows, the scan over the benchmark's
// rounds, the mixture-of-experts rows, two-point calibration of every
// sweep) runs with SERVESIM_FIDELITY_FULL=1, in one and a half to two minutes:
//
//	SERVESIM_FIDELITY_FULL=1 go test ./calibrate -run TestFidelityFull -v
//
// (TestRegimeFull, under the same variable, writes the regime section:
// the joint fit and its leave-one-source-out and leave-one-GPU-out
// predictions over every visible serving source, about half an hour on
// two busy cores; TestRegimeDoc checks its published-runs table in the
// normal suite)
// and -update rewrites the doc; SERVESIM_STUDY=1 (or fit) prints every
// row's error (and a staged refit) with TestStudy.
//
// Every run is deterministic and independent, so predictions and fits are
// reproducible at any parallelism (Simulator.Workers); a Simulator may be
// used from several goroutines.
//
// Run is the whole of `servesim calibrate` as one call: a Config names
// the inputs (result files, aiperf exports, LLMServingSim run directories,
// a CSV and its filters), the engine the result files ran on
// (Config.Server, as vllm serve's flags give it; ConfigPath finds a model
// outside the catalog in Config.ModelDir), the starting profile and the
// output file; Run reads the points, builds the starting profile
// (cost.DefaultProfile or cost.LoadProfile), fits it with FitStaged and
// writes Profile.MarshalYAMLBytes to Config.Out, and its Report writes the
// before and after tables (or, with Config.Audit, the audit) as the
// command prints them. `--efficiency-profile FILE` on bench,
// capacity and tp is cost.LoadProfile(FILE) stored in
// batching.Config.Deployment.Profile: the step model and the frontend
// overhead follow the deployment.
package calibrate
