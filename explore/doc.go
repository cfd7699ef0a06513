// Package explore is the library behind the browser page (package ui):
// one Request holds the page's whole state (model, GPU, TP, replicas,
// engine caps; open-loop rate or closed-loop clients, lengths,
// burstiness; SLO), and each view is one call that runs the same library
// code as the CLI command it names:
//
//   - Bench: one `servesim bench` run (percentiles, throughput,
//     attainment) at a rate or a concurrency;
//   - Search: lambda*, as `servesim capacity --json`;
//   - TPvsReplicas: TP = p against p replicas, as `servesim tp`;
//   - Plan: the cheapest deployments, as `servesim plan --format json`;
//   - ProfileOf: which efficiency profile priced the GPU.
//
// Every result carries its servesim command line, and VLLMCommands gives
// the `vllm serve` and `vllm bench serve` lines of the same setup. The
// command's JSON equals the call's byte for byte
// (cmd/servesim's TestExploreMatchesCLI).
package explore
