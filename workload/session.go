package workload

import (
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/distribution"
)

// Sessions is multi-turn traffic, as chat and agent clients send it.
// Sessions start as an open loop: Workload.Arrivals gives their start
// times (sessions per second), independent of the server. Each session is
// one user in a closed loop: it sends its first turn when it starts and
// each later turn Think seconds after the previous turn's response ended.
//
// Turn k's prompt is the whole conversation so far — SystemPrompt tokens
// every session shares, then each earlier turn's new tokens and its
// response — followed by the turn's new tokens; so it starts with
// everything turn k−1 read and wrote, and a prefix cache that kept turn
// k−1's blocks skips that part of its prefill. Workload.Lengths draws each
// turn's (new input tokens, output tokens).
//
// A session is drawn whole when it starts (turn count, lengths, think
// times), from the run's streams in session order: two configurations run
// with one seed see the same sessions whatever the server does.
type Sessions struct {
	// Turns is the number of turns of a session, rounded to the nearest
	// integer and at least 1 (distribution.Deterministic for a fixed
	// count).
	Turns distribution.Dist `json:"turns" yaml:"turns"`
	// Think is the time between a response and the session's next turn,
	// seconds; nil means none.
	Think distribution.Dist `json:"think,omitempty" yaml:"think,omitempty"`
	// SystemPrompt is the number of tokens every prompt of every session
	// starts with (a system prompt common to all sessions); 0 for none.
	SystemPrompt int `json:"system_prompt,omitempty" yaml:"system_prompt,omitempty"`
}

// Validate requires Turns, a valid Think if set, and SystemPrompt ≥ 0.
func (s Sessions) Validate() error {
	if s.Turns == nil {
		return fieldErr("sessions.turns", nil, "is not set")
	}
	if err := s.Turns.Validate(); err != nil {
		return fieldIn("sessions.turns", err)
	}
	if s.Think != nil {
		if err := s.Think.Validate(); err != nil {
			return fieldIn("sessions.think", err)
		}
	}
	if s.SystemPrompt < 0 {
		return fieldErr("sessions.system_prompt", s.SystemPrompt, "must be >= 0")
	}
	return nil
}

// MeanTurns returns the mean number of turns per session, E[max(1,
// round(Turns))] approximated by max(1, E[Turns]).
func (s Sessions) MeanTurns() float64 { return max(1, s.Turns.Mean()) }

// SessionStreams are the random streams a run draws sessions from: turn
// counts, lengths (one Lengths draw per turn) and think times.
type SessionStreams struct {
	Turns, Lengths, Think *rand.Rand
}

// Start draws session number index (0-based, in start order): its turn
// count, each turn's lengths from lengths — turn j of the whole run's
// sessions, counted in start order, is its request index first+j — and
// its think times. The Session it returns sends the turns in order.
func (s Sessions) Start(index, first int, lengths Lengths, r SessionStreams) *Session {
	n := max(1, int(math.Round(s.Turns.Sample(r.Turns))))
	ss := &Session{index: uint64(index), turns: make([]turn, n), system: s.SystemPrompt}
	for k := range ss.turns {
		in, out := lengths.Sample(r.Lengths, first+k)
		ss.turns[k] = turn{input: in, output: out}
		if k > 0 && s.Think != nil {
			ss.turns[k].think = max(0, s.Think.Sample(r.Think))
		}
	}
	if s.SystemPrompt > 0 {
		ss.history = append(ss.history, Segment{ID: ContentID(spaceSystemPrompt, uint64(s.SystemPrompt), 0), Tokens: s.SystemPrompt})
		ss.tokens = s.SystemPrompt
	}
	return ss
}

// A Session is one drawn session: its turns, sent in order. It is not
// safe for concurrent use.
type Session struct {
	index   uint64
	turns   []turn
	next    int
	system  int
	history []Segment // the conversation so far
	tokens  int       // tokens in history
}

type turn struct {
	input, output int
	think         float64 // before this turn, seconds
}

// Turns returns the session's turn count.
func (s *Session) Turns() int { return len(s.turns) }

// Done reports whether every turn has been sent.
func (s *Session) Done() bool { return s.next >= len(s.turns) }

// Think returns the think time before the next turn, seconds (0 before
// the first).
func (s *Session) Think() float64 {
	if s.Done() {
		return 0
	}
	return s.turns[s.next].think
}

// Next returns the next turn's lengths — input is the conversation so far
// plus the turn's new tokens — and appends its content to buf: the
// conversation so far, the new tokens, then the response, which the
// following turn repeats. It panics when the session is done.
func (s *Session) Next(buf []Segment) (input, output int, content []Segment) {
	t := s.turns[s.next]
	k := uint64(s.next)
	s.next++
	user := Segment{ID: ContentID(spaceSessionUser, s.index, k), Tokens: t.input}
	reply := Segment{ID: ContentID(spaceSessionAssistant, s.index, k), Tokens: t.output}
	input = s.tokens + t.input
	buf = append(append(buf, s.history...), user, reply)
	if !s.Done() {
		s.history = append(s.history, user, reply)
		s.tokens += t.input + t.output
	}
	return input, t.output, buf
}
