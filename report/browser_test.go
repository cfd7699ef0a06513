package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/servesim/servesim/report/chart"
)

var updateScreenshot = flag.Bool("update", false, "write the browser test's screenshot to docs/report.png")

// screenshotPath is the screenshot the README shows.
const screenshotPath = "../docs/report.png"

// chromiumPath finds a Chromium: $SERVESIM_CHROMIUM, or one on $PATH. It
// skips the test when there is none, unless $CI is set: CI must run it
// (.ci/chromium installs Debian's chromium).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SERVESIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium on $PATH and $CI is set: install Debian's chromium (.ci/chromium does) or set $SERVESIM_CHROMIUM")
	}
	t.Skip("no Chromium on $PATH: apt-get install chromium (or set $SERVESIM_CHROMIUM) to run the browser test")
	return ""
}

// screenshotRuns are the runs of the page in docs/report.png: a simulated
// bench run beside vLLM's reference result of the same setup, a rate
// sweep and a capacity search.
func screenshotRuns(t *testing.T) []*Run {
	t.Helper()
	runs, err := ReadRuns(benchFile, vllmFile, rateSweepFile, capacityFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []string{"servesim bench (simulated)", "vllm bench serve (reference fixture)", "rate sweep", "capacity search"} {
		runs[i].Label = l
	}
	return runs
}

// TestBrowser opens the report in headless Chromium from a file:// URL:
// no console errors, no failed loads, no request outside the file; every
// chart is laid out; the full-page screenshot is not blank. With -update
// it is written to docs/report.png. It runs beside the package's other
// tests, which do not wait for Chromium.
func TestBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the browser test does not run with -short")
	}
	exe := chromiumPath(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	runs := screenshotRuns(t)
	if err := WriteFile(path, runs, Options{Title: "servesim report: llama-3.1-8b on one H100"}); err != nil {
		t.Fatal(err)
	}
	wantCharts := len(Charts(runs...))

	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1280, 900))
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// Start the browser and open the tab without a deadline (a deadline on
	// the first run would end the browser); later steps have one.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	var mu sync.Mutex
	var problems []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				report("console %s", e.Type)
			}
		case *runtime.EventExceptionThrown:
			report("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				report("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventLoadingFailed:
			report("failed load: %s %s", e.ErrorText, e.BlockedReason)
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				report("request for %s", u)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}

	tctx, cancelT := context.WithTimeout(ctx, 30*time.Second)
	defer cancelT()
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible("figure svg.chart")); err != nil {
		t.Fatal(err)
	}
	// Every chart is laid out with a size, and the title is the page's.
	heights, err := chromedp.Run(tctx, chromedp.Evaluate[[]float64](
		`Array.from(document.querySelectorAll("svg.chart")).map(s => s.getBoundingClientRect().height)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(heights) != wantCharts {
		t.Errorf("%d charts in the browser, want %d", len(heights), wantCharts)
	}
	for i, h := range heights {
		if h < 200 {
			t.Errorf("chart %d is %g px high", i, h)
		}
	}
	if title, err := chromedp.Run(tctx, chromedp.Title()); err != nil || !strings.HasPrefix(title, "servesim report") {
		t.Errorf("title %q, %v", title, err)
	}
	shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	checkNotBlank(t, shot)
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()
	if *updateScreenshot && !t.Failed() {
		if err := os.WriteFile(screenshotPath, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkNotBlank decodes a screenshot and checks it shows a page: long,
// with ink on a good share of it, many colours, and the palette's first
// two colours (the two runs overlaid).
func checkNotBlank(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 2000 {
		t.Errorf("screenshot is %dx%d: not the full page", b.Dx(), b.Dy())
	}
	var ink, samples int
	colours := map[uint32]bool{}
	palette := make([]int, 2)
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			samples++
			if r < 235 || g < 235 || bl < 235 {
				ink++
			}
			colours[r>>4<<8|g>>4<<4|bl>>4] = true
			for i := range palette {
				c := chart.Palette[i]
				if near(r, c.R) && near(g, c.G) && near(bl, c.B) {
					palette[i]++
				}
			}
		}
	}
	if ink < samples/20 {
		t.Errorf("only %d of %d sampled pixels are not white", ink, samples)
	}
	if len(colours) < 40 {
		t.Errorf("only %d distinct colours", len(colours))
	}
	for i, n := range palette {
		if n < 100 {
			t.Errorf("palette colour %d on %d sampled pixels only", i, n)
		}
	}
}

func near(a uint32, b uint8) bool { return a+6 >= uint32(b) && a <= uint32(b)+6 }
