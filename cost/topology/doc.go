// Package topology is the multi-node layer of the cost model: a catalog of
// measured multi-node layouts (Topology, ByName, Names), the hierarchical
// all-reduce across nodes (MultiNode, set as cost.Deployment.Comm) and the
// fit of its inter-node α–β to published NCCL all-reduce runs (Fit), and
// the catalog of links between instances or pipeline stages that a KV
// transfer or an activation hand-off crosses (Link, LinkByName, LinkNames,
// DefaultLinkName). Its errors read as cost's ("cost: ...") and match
// cost's sentinels.
package topology
