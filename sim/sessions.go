package sim

import (
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// sessions drives a workload of multi-turn sessions (workload.Sessions):
// the open-loop arrivals start sessions, and each session sends its next
// turn a think time after its previous turn completed. A session's turn
// requests carry its slot in Request.Client. Memory is O(active sessions).
type sessions struct {
	e       *run
	w       workload.Sessions
	streams workload.SessionStreams
	slots   []*workload.Session // nil: free
	free    []int
	started int // sessions started
	turns   int // turns drawn (the lengths index of the next session's first turn)
	active  int
	done    bool // no more session starts
	onTurn  event.Handler
}

func newSessions(e *run) *sessions {
	s := &sessions{e: e, w: *e.cfg.Workload.Sessions}
	s.streams = workload.SessionStreams{
		Turns:   event.NewStream(e.cfg.Seed, "turns"),
		Lengths: e.lenRng,
		Think:   e.thinkRng,
	}
	s.onTurn = s.turn
	return s
}

// start begins a session at an arrival and sends its first turn.
func (s *sessions) start() {
	if s.e.noMore {
		return
	}
	ss := s.w.Start(s.started, s.turns, s.e.lengths, s.streams)
	s.started++
	s.turns += ss.Turns()
	slot := len(s.slots)
	if k := len(s.free); k > 0 {
		slot = s.free[k-1]
		s.free = s.free[:k-1]
		s.slots[slot] = ss
	} else {
		s.slots = append(s.slots, ss)
	}
	s.active++
	s.turn(int64(slot))
}

// turn sends the next turn of the session in slot.
func (s *sessions) turn(slot int64) {
	e := s.e
	if e.noMore {
		s.end(int(slot))
		return
	}
	r := e.newRequest(s.slots[slot])
	r.Client = int(slot)
	if e.cfg.Requests > 0 && e.injected >= e.cfg.Requests {
		e.noMore = true
	}
	if e.cfg.Horizon > 0 && e.eng.Now() > e.cfg.Horizon {
		e.noMore = true
	}
	e.inFlight++
	e.send(r)
}

// ended continues r's session after r ended: its next turn after the think
// time if r completed, else (or after the last turn) the session ends.
func (s *sessions) ended(r *metrics.Request) {
	ss := s.slots[r.Client]
	if r.Status != metrics.Completed || ss.Done() || s.e.noMore {
		s.end(r.Client)
		return
	}
	s.e.eng.After(ss.Think(), event.Normal, s.onTurn, int64(r.Client))
}

func (s *sessions) end(slot int) {
	s.slots[slot] = nil
	s.free = append(s.free, slot)
	s.active--
	if s.done && s.active == 0 {
		s.e.noMore = true
	}
}

// startsEnded records that no more sessions will start.
func (s *sessions) startsEnded() {
	s.done = true
	if s.active == 0 {
		s.e.noMore = true
	}
}
