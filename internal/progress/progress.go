// Package progress shows how long work is taking on stderr: a bar with
// n/N done and an ETA (or a spinner with the elapsed time when the size
// is unknown) on a terminal, or, on a file or a pipe, a line now and then.
// Nothing is drawn for work that ends within a second.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Progress timing: nothing is drawn for work that ends within
// progressDelay; after that the bar is redrawn every progressTick. Where
// stderr is a file or a pipe rather than a terminal, work of a known size
// writes one line after progressLineDelay and then every
// progressLineEvery instead. (Vars so that tests can shorten them.)
var (
	progressDelay     = time.Second
	progressTick      = 200 * time.Millisecond
	progressLineDelay = 10 * time.Second
	progressLineEvery = 30 * time.Second
)

// progressWidth is the bar's width in characters.
const progressWidth = 30

// A Bar draws a bar with n/N done and an ETA (or, with total 0, a
// spinner with the elapsed time) on a terminal while work runs, or, in
// lines mode, writes "label: n/N done, ELAPSED elapsed, ETA ETA" now and
// then. Its zero value and a nil *Bar draw nothing. Add may be
// called from several goroutines.
type Bar struct {
	w     io.Writer
	label string
	total int
	lines bool
	done  atomic.Int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

// Start starts a progress bar on w when enabled (w is a terminal and
// --quiet is off); otherwise it returns nil.
func Start(w io.Writer, enabled bool, label string, total int) *Bar {
	if !enabled {
		return nil
	}
	return newProgress(w, label, total, false)
}

// Show starts what a command shows on w of work of total units (0:
// unknown) unless quiet: a bar when w is a terminal (tty); on a file or a
// pipe, a line now and then when the total is known; else nothing (nil).
func Show(w io.Writer, tty, quiet bool, label string, total int) *Bar {
	switch {
	case quiet:
		return nil
	case tty:
		return newProgress(w, label, total, false)
	case total > 0 && isFile(w):
		return newProgress(w, label, total, true)
	}
	return nil
}

func newProgress(w io.Writer, label string, total int, lines bool) *Bar {
	p := &Bar{w: w, label: label, total: total, lines: lines, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// isFile reports whether w is an open file (a terminal, a pipe, a
// redirect), not an in-memory writer.
func isFile(w io.Writer) bool {
	_, ok := w.(*os.File)
	return ok
}

// Add records n more units of work done.
func (p *Bar) Add(n int) {
	if p != nil {
		p.done.Add(int64(n))
	}
}

// Stop ends the display and clears its line.
func (p *Bar) Stop() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if p.drawn && !p.lines {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *Bar) loop() {
	defer p.wg.Done()
	delay, tick := progressDelay, progressTick
	if p.lines {
		delay, tick = progressLineDelay, progressLineEvery
	}
	select {
	case <-p.stop:
		return
	case <-time.After(delay):
	}
	t := time.NewTicker(tick)
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

func (p *Bar) draw() {
	p.drawn = true
	el := time.Since(p.start).Truncate(100 * time.Millisecond)
	if p.total <= 0 {
		i := int(el/progressTick) % len(spinner)
		fmt.Fprintf(p.w, "\r%s %s %v\033[K", p.label, spinner[i], el)
		return
	}
	done := min(int(p.done.Load()), p.total)
	eta := ""
	if done > 0 {
		left := time.Duration(float64(el) * float64(p.total-done) / float64(done))
		eta = ", ETA " + left.Truncate(time.Second).String()
	}
	if p.lines {
		fmt.Fprintf(p.w, "servesim: %s: %d/%d done, %v elapsed%s\n", p.label, done, p.total, el.Truncate(time.Second), eta)
		return
	}
	fill := done * progressWidth / p.total
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", progressWidth-fill)
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d %v%s\033[K", p.label, bar, done, p.total, el, eta)
}
