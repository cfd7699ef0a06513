// Package topology is the multi-node layer of the cost model: a catalog of
// measured multi-node layouts (Topology, ByName, Names), the hierarchical
// all-reduce across nodes (MultiNode, set as cost.Deployment.Comm) and the
// fit of its inter-node α–β to published NCCL all-reduce runs (Fit), a
// measured NCCL all-reduce profile read as a cost.AllReduce
// (LoadNCCLTable, NCCLOptions), and the catalog of links between instances
// or pipeline stages that a KV transfer or an activation hand-off crosses
// (Link, LinkByName, LinkNames, DefaultLinkName). Its errors match cost's
// sentinels, or ErrFit when Fit's measurements cannot determine the fit:
// those of Link.Validate and MultiNode.Validate are *fielderr.Errors
// naming the field, the others read as cost's ("cost: ...").
package topology
