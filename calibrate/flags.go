package calibrate

import (
	"flag"
	"io"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/vllmbench"
)

// Flags are servesim calibrate's flags: the Config's, and the vllm serve
// (engine) flags of servesim bench that give the deployment the result
// files were measured on (serveFlags).
type Flags struct {
	Config
	serve vllmbench.Flags
}

// serveFlags are the flags of servesim bench (vllm serve's) that
// calibrate takes for the deployment its result files were measured on;
// --gpu and --tensor-parallel-size are calibrate's own, and the model is
// each file's model_id (or --model).
var serveFlags = []string{"max-num-seqs", "max-num-batched-tokens", "enable-chunked-prefill", "no-enable-chunked-prefill",
	"enable-prefix-caching", "no-enable-prefix-caching", "async-scheduling", "no-async-scheduling", "block-size", "gpu-memory-utilization", "kv-cache-memory", "kv-cache-memory-bytes",
	"num-gpu-blocks-override", "max-model-len", "dtype", "kv-cache-dtype", "quantization", "q", "data-parallel-size", "dp", "enable-expert-parallel"}

// Define puts the flags on fs and returns their help groups.
func (f *Flags) Define(fs *flag.FlagSet) []cliflag.Group {
	c := &f.Config
	fs.StringVar(&c.CSV, "csv", "", "aiconfigurator silicon CSV `FILE` whose rows to fit (with the filters below)")
	fs.StringVar(&c.Model, "model", "", "keep CSV rows of this Hugging Face `id`; for result files, the model when the file names none")
	fs.StringVar(&c.GPU, "gpu", "", "the `GPU` the runs were measured on (catalog name); CSV rows: keep this GPU")
	fs.Var(cliflag.Int{P: &c.TP, Min: 0, Max: 1024}, "tensor-parallel-size", "the TP degree of result files; CSV rows: keep this TP (0: every TP)")
	fs.StringVar(&c.Precision, "precision", "", "CSV rows: keep this weight `precision` (bf16, fp8, ...; empty: every precision)")
	fs.StringVar(&c.ModelDir, "model-configs", "", "`DIR` of Hugging Face config.json files named <org>--<name>.json (as ../shared/data/model_configs) for models outside the catalog")
	fs.StringVar(&c.Start, "start", "", "starting profile `FILE` (default: the GPU's built-in profile)")
	fs.StringVar(&c.Out, "o", "profile.yaml", "write the fitted profile to `FILE`")
	fs.Var(cliflag.Int{P: &c.MaxEvaluations, Min: 0, Max: 100000}, "max-evaluations", "loss evaluations per fitting stage (0: the default)")
	fs.Var(cliflag.Int{P: &c.Workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
	fs.BoolVar(&c.Quiet, "quiet", false, "no progress spinner")
	fs.BoolVar(&c.Joint, "joint", false, "fit nothing into -o: one joint fit over every run the audit keeps (calibrate.FitJoint: kernel terms per GPU, CPU-side terms per vLLM version band), printing each term's prior, fitted value and move")
	fs.Var(cliflag.NonNegativeFloat{P: &c.JointNoise, Zero: "estimated from the runs"}, "joint-noise", "with --joint: the relative error each run is taken to have on its own, which weighs the terms' priors against the runs (0: estimated from the runs' spread at the priors, at least 0.1)")
	fs.BoolVar(&c.Audit, "audit", false, "fit nothing: print each source's runs that need more compute or bandwidth than their GPU has (calibrate.Audit), and why")
	bfs := cliflag.NewFlagSet("calibrate")
	f.serve.Define(bfs)
	for _, name := range serveFlags {
		bf := bfs.Lookup(name)
		usage := bf.Usage
		if name == "data-parallel-size" {
			usage = "data-parallel size D of a mixture-of-experts model: D groups of --tensor-parallel-size GPUs that share the experts and step together, as vLLM runs them (a dense model's D engines are separate runs: calibrate one)"
		}
		fs.Var(bf.Value, name, usage)
	}
	return []cliflag.Group{{Title: "flags", Names: []string{"csv", "model", "gpu", "tensor-parallel-size", "precision", "model-configs", "start", "o", "max-evaluations", "workers", "quiet", "joint", "joint-noise", "audit"}},
		{Title: "vllm serve (engine) flags of the result files' deployment, as servesim bench takes them", Names: serveFlags}}
}

// Resolve sets the Config's Server, and ServerSet to the serve flags
// given, once fs is parsed; its notes on old flag names go to stderr.
func (f *Flags) Resolve(fs *flag.FlagSet, stderr io.Writer) error {
	if err := f.serve.Resolve(fs, stderr); err != nil {
		return err
	}
	f.Server = f.serve.Server
	for _, name := range serveFlags {
		if f.serve.Given[name] {
			f.ServerSet = append(f.ServerSet, name)
		}
	}
	return nil
}
