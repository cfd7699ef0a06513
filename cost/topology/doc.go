// Package topology is the multi-node layer of the cost model: a catalog of
// measured multi-node layouts (Topology, ByName, Names), the hierarchical
// all-reduce across nodes (MultiNode, set as cost.Deployment.Comm) and the
// fit of its inter-node α–β to published NCCL all-reduce runs (Fit). Its
// errors read as cost's ("cost: ...") and match cost's sentinels.
package topology
