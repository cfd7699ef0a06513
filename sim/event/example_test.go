package event_test

import (
	"fmt"

	"github.com/servesim/servesim/sim/event"
)

// An M/D/1 queue by hand: arrivals every 1.0 s, service 1.5 s for the
// first request and 0.5 s for the others; the engine orders the events
// and the Ring holds the waiting line.
func ExampleEngine() {
	var eng event.Engine
	var line event.Ring[int]
	busy := false
	service := func(id int) float64 {
		if id == 0 {
			return 1.5
		}
		return 0.5
	}
	var depart event.Handler
	start := func(id int) {
		busy = true
		fmt.Printf("t=%.1f start %d\n", eng.Now(), id)
		eng.After(service(id), event.Normal, depart, int64(id))
	}
	depart = func(id int64) {
		fmt.Printf("t=%.1f done  %d\n", eng.Now(), id)
		busy = false
		if line.Len() > 0 {
			start(line.Pop())
		}
	}
	arrive := func(id int64) {
		if busy {
			line.Push(int(id))
			return
		}
		start(int(id))
	}
	for i := range 3 {
		eng.Schedule(float64(i), event.Normal, arrive, int64(i))
	}
	for eng.Step() {
	}
	// Output:
	// t=0.0 start 0
	// t=1.5 done  0
	// t=1.5 start 1
	// t=2.0 done  1
	// t=2.0 start 2
	// t=2.5 done  2
}
