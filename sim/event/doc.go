// Package event is servesim's discrete-event engine: a clock, a typed heap
// of value events, and the small tools a queueing model needs around them.
// It knows nothing of LLMs, workloads, servers or metrics, and any
// queueing model can run on it alone.
//
//   - Engine fires events in (time, priority, insertion sequence) order:
//     same-time ties are FIFO within a priority, the clock never goes back,
//     and firing an event allocates nothing. Events are callbacks
//     (Handler) with an int64 argument, not goroutines.
//   - A Timer is an event slot beside the heap for a source that has one
//     event pending at a time (an arrival process): it fires in the same
//     order as a scheduled event, without a heap push and pop.
//   - Heap is the binary heap under the Engine, for a model's own
//     orderings.
//   - Ring is a FIFO line that stops allocating at its working size.
//   - NewStream and ReplicationSeed are the project's one seeding rule:
//     named, independent random streams under a run's seed (common random
//     numbers across compared configurations), and pre-declared seeds for
//     independent replications.
//
// A run is single-threaded: one Engine belongs to one goroutine.
package event
