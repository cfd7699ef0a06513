package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Progress-bar timing: nothing is drawn for work that ends within
// progressDelay; after that the bar is redrawn every progressTick. (Vars
// so that tests can shorten them.)
var (
	progressDelay = time.Second
	progressTick  = 200 * time.Millisecond
)

// progressWidth is the bar's width in characters.
const progressWidth = 30

// A progress draws a bar (or, with total 0, a spinner with the elapsed
// time) on a terminal while work runs. Its zero value and a nil *progress
// draw nothing. Add may be called from several goroutines.
type progress struct {
	w     io.Writer
	label string
	total int
	done  atomic.Int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

// startProgress starts a progress display on w when enabled (stderr is a
// terminal and --quiet is off); otherwise it returns nil.
func startProgress(w io.Writer, enabled bool, label string, total int) *progress {
	if !enabled {
		return nil
	}
	p := &progress{w: w, label: label, total: total, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// Add records n more units of work done.
func (p *progress) Add(n int) {
	if p != nil {
		p.done.Add(int64(n))
	}
}

// Stop ends the display and clears its line.
func (p *progress) Stop() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) loop() {
	defer p.wg.Done()
	select {
	case <-p.stop:
		return
	case <-time.After(progressDelay):
	}
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

var spinner = []string{"|", "/", "-", `\`}

func (p *progress) draw() {
	p.drawn = true
	el := time.Since(p.start).Truncate(100 * time.Millisecond)
	if p.total <= 0 {
		i := int(el/progressTick) % len(spinner)
		fmt.Fprintf(p.w, "\r%s %s %v\033[K", p.label, spinner[i], el)
		return
	}
	done := min(int(p.done.Load()), p.total)
	fill := done * progressWidth / p.total
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", progressWidth-fill)
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d %v\033[K", p.label, bar, done, p.total, el)
}
