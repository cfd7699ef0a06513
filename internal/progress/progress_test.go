package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgress(t *testing.T) {
	delay, tick := progressDelay, progressTick
	defer func() { progressDelay, progressTick = delay, tick }()

	// Short work draws nothing.
	var quiet syncBuffer
	p := Start(&quiet, true, "jobs", 4)
	p.Add(4)
	p.Stop()
	if quiet.String() != "" {
		t.Errorf("work shorter than the delay drew %q", quiet.String())
	}

	// Longer work draws a bar and clears it.
	progressDelay, progressTick = time.Millisecond, time.Millisecond
	var out syncBuffer
	p = Start(&out, true, "jobs", 4)
	p.Add(2)
	time.Sleep(20 * time.Millisecond)
	p.Stop()
	s := out.String()
	if !strings.Contains(s, "jobs [===============               ] 2/4") || !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("progress drew %q", s)
	}

	// Disabled (not a terminal, or --quiet): nil, and its methods are no-ops.
	if p := Start(&out, false, "jobs", 4); p != nil {
		t.Error("disabled progress is not nil")
	} else {
		p.Add(1)
		p.Stop()
	}
}

// TestProgressLines: where stderr is a file or a pipe, work of a known
// size writes a line now and then with n/N and an ETA, and clears
// nothing; work of unknown size and --quiet write nothing.
func TestProgressLines(t *testing.T) {
	delay, every := progressLineDelay, progressLineEvery
	defer func() { progressLineDelay, progressLineEvery = delay, every }()
	progressLineDelay, progressLineEvery = time.Millisecond, time.Hour

	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Show(f, false, false, "simulating", 0) != nil || Show(f, false, true, "running", 4) != nil {
		t.Error("a progress for unknown work or --quiet on a file")
	}
	p := Show(f, false, false, "running x.yaml", 4)
	p.Add(2)
	time.Sleep(50 * time.Millisecond)
	p.Stop()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^servesim: running x\.yaml: 2/4 done, \d+s elapsed, ETA \d+s\n$`)
	if !want.Match(b) {
		t.Errorf("wrote %q, want one line matching %s", b, want)
	}
}
