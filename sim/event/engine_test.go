package event

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEngineOrder(t *testing.T) {
	t.Parallel()
	var e Engine
	var got []int64
	rec := func(arg int64) { got = append(got, arg) }
	e.Schedule(2, Normal, rec, 5)
	e.Schedule(1, Late, rec, 3)
	e.Schedule(1, Normal, rec, 1)
	e.Schedule(1, Normal, rec, 2) // same time and priority: FIFO
	e.Schedule(1, Early, rec, 0)
	e.Schedule(3, Normal, rec, 6)
	e.Schedule(2, Early, rec, 4)
	require.Equal(t, 1.0, e.NextTime())
	e.RunUntil(2.5, nil)
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5}, got)
	assert.Equal(t, 2.0, e.Now())
	assert.Equal(t, 1, e.Len())
	assert.Equal(t, uint64(6), e.Fired())
}

// TestEngineMonotone fires many random events, each scheduling more at
// random future offsets, and checks that the clock never goes back and
// same-time events keep FIFO order.
func TestEngineMonotone(t *testing.T) {
	t.Parallel()
	var e Engine
	r := rand.New(rand.NewPCG(1, 1))
	last := -1.0
	var lastSeqAtTime int64 = -1
	var seq int64
	var fire Handler
	fire = func(arg int64) {
		now := e.Now()
		// Plain comparisons, not testify: this runs for each of 100,000
		// events, and each require call walks the stack (t.Helper).
		if !(now >= last) {
			t.Fatalf("time went back from %v to %v", last, now)
		}
		if now == last && arg <= lastSeqAtTime {
			t.Fatalf("FIFO among same-time events: event %d fired after %d at time %v", arg, lastSeqAtTime, now)
		}
		last, lastSeqAtTime = now, arg
		if e.Fired() < 100_000 {
			for range 2 {
				seq++
				d := float64(r.IntN(4)) // many exact ties
				e.After(d, Normal, fire, seq)
			}
		}
	}
	e.Schedule(0, Normal, fire, 0)
	for e.Step() {
	}
	assert.GreaterOrEqual(t, e.Fired(), uint64(100_000))
}

func TestEnginePastPanics(t *testing.T) {
	t.Parallel()
	var e Engine
	e.Schedule(1, Normal, func(int64) {}, 0)
	e.Step()
	assert.Panics(t, func() { e.Schedule(0.5, Normal, func(int64) {}, 0) })
}

func TestEngineNoAllocSteadyState(t *testing.T) {
	var e Engine
	var h Handler
	h = func(int64) { e.After(1, Normal, h, 0) }
	for i := range 64 {
		e.Schedule(float64(i), Normal, h, 0)
	}
	for range 1000 { // grow to the working size
		e.Step()
	}
	allocs := testing.AllocsPerRun(1000, func() { e.Step() })
	assert.Zero(t, allocs)
}

func TestRing(t *testing.T) {
	t.Parallel()
	var q Ring[int]
	for i := range 40 {
		q.Push(i)
	}
	for i := range 20 {
		require.Equal(t, i, q.Pop())
	}
	for i := range 30 {
		q.PushFront(-i - 1)
	}
	require.Equal(t, 50, q.Len())
	assert.Equal(t, -30, q.Peek())
	assert.Equal(t, -29, q.At(1))
	for i := range 30 {
		require.Equal(t, -30+i, q.Pop())
	}
	for i := 20; i < 40; i++ {
		require.Equal(t, i, q.Pop())
	}
	assert.Panics(t, func() { q.Pop() })
}

// TestRingMatchesSlice runs random pushes at both ends and pops against a
// plain slice, so the ring grows with its head at every position and its
// contents wrap: the masked indices must agree with the slice at every step.
func TestRingMatchesSlice(t *testing.T) {
	t.Parallel()
	var q Ring[int]
	var want []int
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 20_000 {
		switch op := r.IntN(5); {
		case op < 2:
			q.Push(i)
			want = append(want, i)
		case op < 3:
			q.PushFront(i)
			want = append([]int{i}, want...)
		case len(want) > 0:
			require.Equal(t, want[0], q.Pop(), "step %d", i)
			want = want[1:]
		}
		require.Equal(t, len(want), q.Len(), "step %d", i)
		if n := len(q.buf); n&(n-1) != 0 {
			t.Fatalf("step %d: buffer length %d is not a power of two", i, n)
		}
		if len(want) > 0 {
			k := r.IntN(len(want))
			require.Equal(t, want[k], q.At(k), "step %d, At(%d)", i, k)
		}
	}
}

func BenchmarkEngine(b *testing.B) {
	var e Engine
	r := rand.New(rand.NewPCG(1, 1))
	var h Handler
	h = func(int64) { e.After(r.Float64(), Normal, h, 0) }
	for range 1024 {
		e.Schedule(r.Float64(), Normal, h, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestHeapSorts checks Heap against sort: pushing random values
// interleaved with pops yields every popped value no greater than the
// values still inside, and draining returns them in sorted order.
func TestHeapSorts(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var h Heap[int]
	var inside []int
	var popped []int
	for range 5000 {
		if r.IntN(3) > 0 || h.Len() == 0 {
			v := r.IntN(1000)
			h.Push(float64(v), 0, v)
			inside = append(inside, v)
			continue
		}
		_, v := h.Pop()
		slices.Sort(inside)
		require.Equal(t, inside[0], v, "Pop must return the minimum")
		inside = inside[1:]
		popped = append(popped, v)
	}
	var drained []int
	for h.Len() > 0 {
		_, v := h.Pop()
		drained = append(drained, v)
	}
	slices.Sort(inside)
	assert.Equal(t, inside, drained)
	assert.NotEmpty(t, popped)
}

// TestTimerOrder drives two engines with the same random program: three
// sources that each keep one event pending (re-armed from their own
// handlers, replaced or cancelled by the others) plus heap events; one
// engine runs the sources on timers, the other on Schedule (a replaced or
// cancelled event there is skipped by a generation check). Times fall on a
// coarse grid so ties are frequent. The firing order and times must be
// equal.
func TestTimerOrder(t *testing.T) {
	t.Parallel()
	type fired struct {
		t   float64
		arg int64
	}
	const events = 5000
	run := func(timers bool) []fired {
		var e Engine
		r := rand.New(rand.NewPCG(7, 7))
		var log []fired
		var ids [3]Timer
		var gen [3]int64 // Schedule mode: the live generation of each source
		var set func(k int, at float64, p Priority)
		cancel := func(k int) {
			if timers {
				e.StopTimer(ids[k])
			} else {
				gen[k]++
			}
		}
		var onHeap Handler
		onSource := func(k int) Handler {
			return func(arg int64) {
				if !timers && arg != gen[k] {
					return // replaced or cancelled
				}
				log = append(log, fired{e.Now(), int64(k)})
				if len(log) > events {
					return
				}
				if r.IntN(5) == 0 {
					e.Schedule(e.Now()+float64(r.IntN(4)), Priority(r.IntN(3)), onHeap, 100+int64(k))
				} else {
					set(k, e.Now()+float64(r.IntN(3)), Priority(r.IntN(3)))
				}
				if j := r.IntN(3); j != k && r.IntN(3) == 0 {
					if r.IntN(2) == 0 {
						cancel(j)
					} else {
						set(j, e.Now()+float64(r.IntN(3)), Priority(r.IntN(3)))
					}
				}
			}
		}
		handlers := [3]Handler{onSource(0), onSource(1), onSource(2)}
		set = func(k int, at float64, p Priority) {
			if timers {
				e.SetTimer(ids[k], at, p, 0)
				return
			}
			gen[k]++
			e.Schedule(at, p, handlers[k], gen[k])
		}
		onHeap = func(arg int64) {
			log = append(log, fired{e.Now(), arg})
			if len(log) <= events {
				set(int(arg-100), e.Now()+float64(r.IntN(2)), Priority(r.IntN(3)))
			}
		}
		if timers {
			for k := range ids {
				ids[k] = e.NewTimer(handlers[k])
			}
		}
		for k := range 3 {
			set(k, float64(k%2), Normal)
		}
		e.RunUntil(math.Inf(1), nil)
		return log
	}
	heap, timed := run(false), run(true)
	require.Greater(t, len(heap), events, "the program ran")
	assert.Equal(t, heap, timed)
}
