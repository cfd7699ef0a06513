package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/servesim/servesim/explore"
)

var update = flag.Bool("update", false, "write the browser test's screenshots to docs/ui-*.png")

// views are the page's sections, each screenshot to docs/ui-NAME.png.
var views = []string{"latency", "loops", "tp", "plan", "profile", "commands"}

// chromiumPath finds a Chromium as report's browser test does: skip
// without one, unless $CI is set.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("SERVESIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		tb.Fatal("no Chromium on $PATH and $CI is set: install Debian's chromium (.ci/chromium does) or set $SERVESIM_CHROMIUM")
	}
	tb.Skip("no Chromium on $PATH: apt-get install chromium (or set $SERVESIM_CHROMIUM) to run the browser test")
	return ""
}

// The folder is built once per test binary (the wasm link is the slow
// part) and removed by TestMain.
var (
	folderOnce sync.Once
	folderDir  string
	folderErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if folderDir != "" {
		os.RemoveAll(folderDir)
	}
	os.Exit(code)
}

func folder(tb testing.TB) string {
	tb.Helper()
	folderOnce.Do(func() {
		folderDir, folderErr = os.MkdirTemp("", "servesim-ui-test-")
		if folderErr != nil {
			return
		}
		// Read the wasm main here so that go test's cache, which tracks
		// the files a test opens (not those its go build reads), reruns
		// the test when it changes; its imports are this binary's too.
		if _, folderErr = os.ReadFile(filepath.Join("wasm", "main.go")); folderErr != nil {
			return
		}
		root, err := ModuleRoot(".")
		if err != nil {
			folderErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		folderErr = Folder(ctx, folderDir, root, "")
	})
	if folderErr != nil {
		tb.Fatal(folderErr)
	}
	return folderDir
}

// page is one headless Chromium tab on the served folder, collecting
// every console error, exception, failed load and outside request.
type page struct {
	ctx      context.Context
	url      string
	mu       sync.Mutex
	problems []string
}

func openPage(tb testing.TB, width, height int64) (*page, func()) {
	tb.Helper()
	exe := chromiumPath(tb)
	return openPageOn(tb, exe, folder(tb), width, height)
}

// openPageOn opens the page of the folder dir in the Chromium exe.
func openPageOn(tb testing.TB, exe, dir string, width, height int64) (*page, func()) {
	tb.Helper()
	srv := httptest.NewServer(Handler(dir))
	profile := tb.TempDir()
	actx, cancelA := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(profile, "profile")), chromedp.WindowSize(int(width), int(height)))
	ctx, cancelC := chromedp.NewContext(actx)
	closeAll := func() { cancelC(); cancelA(); srv.Close() }
	if err := chromedp.Do(ctx); err != nil {
		closeAll()
		tb.Fatalf("starting %s: %v", exe, err)
	}
	p := &page{ctx: ctx, url: srv.URL + "/"}
	report := func(format string, args ...any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.problems = append(p.problems, fmt.Sprintf(format, args...))
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				report("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			report("exception: %s %s", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		case *log.EventEntryAdded:
			if (e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning) && !strings.HasSuffix(e.Entry.URL, "/favicon.ico") {
				report("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL)
			}
		case *network.EventLoadingFailed:
			report("failed load: %s %s", e.ErrorText, e.BlockedReason)
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, srv.URL) && !strings.HasPrefix(u, "data:") {
				report("request for %s", u)
			}
		}
	}); err != nil {
		closeAll()
		tb.Fatal(err)
	}
	return p, closeAll
}

func (p *page) check(tb testing.TB) {
	tb.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.problems {
		tb.Error(s)
	}
}

func (p *page) do(tb testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Fatal(err)
	}
}

func eval[T any](tb testing.TB, p *page, expr string) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitDone waits until the page has finished n pipelines (every view
// drawn) and returns an error message when it shows one.
func (p *page) waitDone(tb testing.TB, n int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 120*time.Second)
	defer cancel()
	expr := fmt.Sprintf(`(window.servesimState && window.servesimState.done >= %d) || document.getElementById("error").textContent`, n)
	for try := 0; ; try++ {
		_, err := chromedp.Run(ctx, chromedp.Poll[any](expr, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(0)))
		if err == nil {
			break
		}
		// Right after a navigation the poll may start in the old page's
		// context; it is then run again in the new one.
		if !strings.Contains(err.Error(), "Cannot find context") || try == 3 {
			tb.Fatalf("waiting for the page's result %d: %v", n, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if msg := eval[string](tb, p, `document.getElementById("error").textContent`); msg != "" {
		tb.Fatalf("the page shows an error: %s", msg)
	}
}

// set changes a control as a person does (value, then a change event).
func (p *page) set(tb testing.TB, id, value string) {
	tb.Helper()
	js := fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, id, value)
	eval[bool](tb, p, js)
}

// last returns the request the page ran and the worker's raw JSON of each
// function.
func (p *page) last(tb testing.TB) (explore.Request, map[string][]string) {
	tb.Helper()
	reqJSON := eval[string](tb, p, `JSON.stringify(window.servesimLast.req)`)
	req, err := explore.Parse([]byte(reqJSON))
	if err != nil {
		tb.Fatalf("the page's request %s: %v", reqJSON, err)
	}
	raw := eval[map[string][]string](tb, p, `window.servesimLast.raw`)
	return req, raw
}

func marshal(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// checkAgainstLibrary recomputes, natively, what the page computed in
// WebAssembly for its request, and compares the JSON byte for byte: the
// lambda* search, every open- and closed-loop bench point, the TP screen
// and the plan. (cmd/servesim's TestExploreMatchesCLI shows the same
// calls print the CLI's JSON.) It returns the search.
func checkAgainstLibrary(t *testing.T, p *page) (explore.Request, *explore.Capacity) {
	t.Helper()
	req, raw := p.last(t)
	return req, compareWithLibrary(t, req, raw)
}

// compareWithLibrary compares raw, the JSON texts of the page's calls by
// tag (as the page keeps them), with the library's for req, byte for
// byte, and returns the search.
func compareWithLibrary(t *testing.T, req explore.Request, raw map[string][]string) *explore.Capacity {
	t.Helper()
	cap, err := explore.Search(req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first(raw["search"]), marshal(t, cap); got != want {
		t.Errorf("search: page %s\nnative %s", got, want)
	}
	lo, hi := 0.0, math.Inf(1)
	if cap.Lower != nil {
		lo = *cap.Lower
	}
	if cap.Upper != nil {
		hi = *cap.Upper
	}
	rates := explore.SweepRates(lo, hi, 8)
	levels := explore.ClientLevels(req)
	var want []string
	for _, r := range rates {
		pt, err := explore.Bench(req, r, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, marshal(t, pt))
	}
	for _, c := range levels {
		pt, err := explore.Bench(req, 0, c)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, marshal(t, pt))
	}
	if got := slices.Concat(raw["bench_open"], raw["bench_closed"]); !slices.Equal(got, want) {
		t.Errorf("bench points: the page's %d differ from the native %d:\npage   %v\nnative %v", len(got), len(want), got, want)
	}
	tp, err := explore.TPvsReplicas(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first(raw["tp"]), marshal(t, tp); got != want {
		t.Errorf("tp: page %s\nnative %s", got, want)
	}
	pl, err := explore.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first(raw["plan"]), marshal(t, pl); got != want {
		t.Errorf("plan: the page's JSON (%d bytes) differs from the native (%d bytes)", len(got), len(want))
	}
	return cap
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func bracket(c *explore.Capacity) string {
	f := func(p *float64) string {
		if p == nil {
			return "∞"
		}
		return fmt.Sprint(*p)
	}
	return "[" + f(c.Lower) + ", " + f(c.Upper) + ")"
}

// TestPage loads the page, changes TP, then the rate, then the loop mode,
// and checks after each that the page's numbers are the library's (and
// so the CLI's) and that lambda* moved as they say; then the URL round
// trip, each view's structure and screenshot, labels, keyboard use and a
// narrow window. Any console error fails it. It runs beside the
// package's other parallel tests (after TestFolderEmbedded, which sets
// embedded; Folder reads it only without a checkout).
func TestPage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the browser test does not run with -short")
	}
	p, closeAll := openPage(t, 1280, 900)
	defer closeAll()
	// Runs of 100 requests, not the default 300: the page's numbers are
	// compared with the library's for whatever request it runs, and every
	// update costs a third. The screenshots (-update) show the defaults.
	start := p.url + "?prompts=100&warmups=10"
	if *update {
		start = p.url
	}
	p.do(t, chromedp.Navigate(start))
	p.waitDone(t, 1)
	t.Logf("loaded: %s; time per function %v", eval[string](t, p, `document.getElementById("status-text").textContent`), eval[map[string]float64](t, p, `window.servesimState.callMs`))
	req0, cap0 := checkAgainstLibrary(t, p)
	_, raw0 := p.last(t)
	if req0.TP != 1 || req0.Loop != explore.Open || (!*update && req0.Prompts != 100) {
		t.Fatalf("first state %+v, want the defaults (100 prompts unless -update)", req0)
	}
	if pre := eval[bool](t, p, `window.servesimLast.precomputed`); pre != *update {
		t.Errorf("a first state of 100 prompts drew precomputed results: %v (want them only for the default state, -update's)", pre)
	}

	p.set(t, "f-tp", "2")
	p.waitDone(t, 2)
	req1, cap1 := checkAgainstLibrary(t, p)
	if _, raw1 := p.last(t); slices.Equal(raw0["bench_open"], raw1["bench_open"]) {
		t.Error("the latency curves did not change from TP 1 to TP 2")
	}
	if req1.TP != 2 {
		t.Fatalf("after setting TP 2 the page ran TP %d", req1.TP)
	}
	if bracket(cap1) == bracket(cap0) {
		t.Errorf("lambda* %s did not move from TP 1 to TP 2", bracket(cap1))
	}
	if loc := eval[string](t, p, `location.search`); !strings.Contains(loc, "tp=2") {
		t.Errorf("URL %q does not hold tp=2", loc)
	}

	p.set(t, "f-rate", "6")
	p.waitDone(t, 3)
	req2, _ := checkAgainstLibrary(t, p)
	if req2.Rate != 6 {
		t.Fatalf("after setting the rate 6 the page ran %v", req2.Rate)
	}

	shoot(t, p, "latency", "latency")
	eval[bool](t, p, `(() => { const e = document.getElementById("loop-closed"); e.click(); return true; })()`)
	p.waitDone(t, 4)
	req3, _ := checkAgainstLibrary(t, p)
	if req3.Loop != explore.Closed {
		t.Fatalf("after choosing the closed loop the page ran %q", req3.Loop)
	}
	if xl := eval[string](t, p, `document.querySelector("#charts-latency svg").textContent`); !strings.Contains(xl, "closed loop") {
		t.Errorf("the closed-loop latency chart does not say so: %q", xl)
	}
	shoot(t, p, "latency", "latency-closed")

	// Structure: every view has its charts, with data, and legends that
	// name the runs.
	for _, v := range []struct {
		view    string
		charts  int
		legends []string
	}{
		{"latency", 3, []string{"p50 closed loop", "p99 closed loop"}},
		{"loops", 3, []string{"open loop (Poisson at the rate)", "closed loop (fixed clients)", "open loop", "closed loop"}},
		{"tp", 1, []string{"TP=2 x 1", "TP=1 x 2"}},
		{"plan", 1, []string{"frontier"}},
	} {
		n := eval[int](t, p, fmt.Sprintf(`document.querySelectorAll("#view-%s svg").length`, v.view))
		pts := eval[[]int](t, p, fmt.Sprintf(`[...document.querySelectorAll("#view-%s svg")].map(s => s.querySelectorAll("circle.point").length)`, v.view))
		legends := eval[[]string](t, p, fmt.Sprintf(`[...document.querySelectorAll("#view-%s .legend-item")].map(e => e.textContent)`, v.view))
		if n != v.charts {
			t.Errorf("view %s: %d charts, want %d", v.view, n, v.charts)
		}
		for i, k := range pts {
			if k == 0 {
				t.Errorf("view %s: chart %d has no data", v.view, i)
			}
		}
		for _, l := range v.legends {
			if !slices.Contains(legends, l) {
				t.Errorf("view %s: legend %v does not name %q", v.view, legends, l)
			}
		}
		axes := eval[string](t, p, fmt.Sprintf(`[...document.querySelectorAll("#view-%s svg")].map(s => s.getAttribute("aria-label")).join("|")`, v.view))
		if !strings.Contains(axes, "(") {
			t.Errorf("view %s: axes without units: %s", v.view, axes)
		}
	}
	if cmd := eval[string](t, p, `document.getElementById("commands").textContent`); !strings.Contains(cmd, explore.CapacityCommand(req3)) || !strings.Contains(cmd, "vllm bench serve") {
		t.Errorf("the commands view lacks the capacity line %q or vllm's:\n%s", explore.CapacityCommand(req3), cmd)
	}

	// Every control is labelled, and the page is used by keyboard: Tab
	// reaches the TP field, and typing changes the run.
	if unlabelled := eval[[]string](t, p, `[...document.querySelectorAll("input, select, button")].filter(e => !(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.textContent.trim()).map(e => e.id || e.name)`); len(unlabelled) > 0 {
		t.Errorf("controls without a label: %v", unlabelled)
	}
	tabs := eval[int](t, p, `(() => { const all = [...document.querySelectorAll("input, select, button")]; return all.filter(e => e.tabIndex >= 0 && !e.disabled).length; })()`)
	if tabs < 25 {
		t.Errorf("only %d controls reachable by Tab", tabs)
	}
	p.do(t, chromedp.Focus(chromedp.CSS("#f-replicas")), chromedp.KeyEvent("\b"), chromedp.KeyEvent("2"), chromedp.KeyEvent("\t"))
	p.waitDone(t, 5)
	if req, _ := p.last(t); req.Replicas != 2 {
		t.Errorf("typing 2 into the replicas field ran %d replicas", req.Replicas)
	}

	// Cancel: a long update stops, says so, and the next change runs.
	p.set(t, "f-seed", "5")
	p.do(t, chromedp.Poll[chromedp.Void](`window.servesimState.running`, chromedp.WithPollingInterval(time.Millisecond), chromedp.WithPollingTimeout(0)))
	eval[bool](t, p, `(() => { document.getElementById("cancel").click(); return true; })()`)
	p.do(t, chromedp.Poll[chromedp.Void](`!window.servesimState.running && document.getElementById("status-text").textContent === "cancelled"`, chromedp.WithPollingTimeout(0)))
	p.set(t, "f-seed", "1")
	p.waitDone(t, 6)
	if req, _ := p.last(t); req.Seed != 1 {
		t.Errorf("after cancelling, the next change ran seed %d", req.Seed)
	}

	// Screenshots of each view.
	for _, v := range views[1:] {
		shoot(t, p, v, v)
	}

	// A built-in dataset: the page runs its published lengths, as the CLI's
	// --dataset-name hf does (cmd/servesim's TestExploreMatchesCLI), and
	// the command lines name it.
	p.set(t, "f-dataset", "Aeala/ShareGPT_Vicuna_unfiltered")
	p.waitDone(t, 7)
	if req, _ := checkAgainstLibrary(t, p); req.Dataset != "Aeala/ShareGPT_Vicuna_unfiltered" {
		t.Errorf("after choosing a dataset the page ran %q", req.Dataset)
	}
	if cmd := eval[string](t, p, `document.getElementById("commands").textContent`); !strings.Contains(cmd, "--dataset-name hf --dataset-path Aeala/ShareGPT_Vicuna_unfiltered") {
		t.Errorf("the command lines do not name the dataset:\n%s", cmd)
	}

	// A change while the page still runs the previous one: the newer
	// update supersedes the older's calls, and the page's numbers are the
	// library's for the newer.
	p.set(t, "f-rate", "7")
	p.do(t, chromedp.Poll[chromedp.Void](`window.servesimState.running`, chromedp.WithPollingInterval(time.Millisecond), chromedp.WithPollingTimeout(0)))
	p.set(t, "f-rate", "8")
	p.do(t, chromedp.Poll[chromedp.Void](`!window.servesimState.running && window.servesimLast.req.rate === 8`, chromedp.WithPollingTimeout(0)))
	if req, _ := checkAgainstLibrary(t, p); req.Rate != 8 {
		t.Errorf("after two changes in a row the page ran rate %v, want 8", req.Rate)
	}

	// URL round trip: a fresh tab on the URL shows the same state.
	url := eval[string](t, p, `location.href`)
	wantReq, _ := p.last(t)
	p.do(t, chromedp.Navigate("about:blank"), chromedp.Navigate(url))
	p.waitDone(t, 1)
	if got, _ := p.last(t); marshal(t, got) != marshal(t, wantReq) {
		t.Errorf("URL round trip: %s gave\n%s, want\n%s", url, marshal(t, got), marshal(t, wantReq))
	}

	// A narrow window: nothing wider than the screen.
	p.do(t, chromedp.EmulateViewport(380, 800))
	if w := eval[[]float64](t, p, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1]+1 {
		t.Errorf("at 380 px the page is %v px wide", w[0])
	}
	p.check(t)
}

// TestPageDefaultResults loads the page in its default state: it draws
// default-results.json's results (no call reaches a worker), which are
// the library's byte for byte; the workers then run the same calls in
// WebAssembly and return the same bytes; a change to another state is
// computed in the wasm, and coming back to the default draws the
// precomputed results again.
func TestPageDefaultResults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the browser test does not run with -short")
	}
	p, closeAll := openPage(t, 1280, 900)
	defer closeAll()
	p.do(t, chromedp.Navigate(p.url))
	p.waitDone(t, 1)
	if !eval[bool](t, p, `window.servesimLast.precomputed`) {
		t.Fatal("the default state did not draw the precomputed results")
	}
	if n := eval[int](t, p, `window.servesimState.precomputedMisses`); n != 0 {
		t.Errorf("%d of the default state's calls were not in default-results.json", n)
	}
	req0, cap0 := checkAgainstLibrary(t, p)
	if marshal(t, req0) != marshal(t, explore.Default()) {
		t.Fatalf("the default URL ran %s", marshal(t, req0))
	}
	_, pre := p.last(t)
	// The workers' own results for the same calls.
	p.do(t, chromedp.Poll[chromedp.Void](`window.servesimState.warm`, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(0)))
	wasm := eval[map[string][]string](t, p, `window.servesimState.warmRaw`)
	if len(wasm) != len(pre) {
		t.Errorf("the workers ran %d of the %d functions", len(wasm), len(pre))
	}
	for tag, want := range pre {
		if got := wasm[tag]; !slices.Equal(got, want) {
			t.Errorf("%s: the wasm's JSON differs from default-results.json:\nwasm %v\npre  %v", tag, got, want)
		}
	}

	p.set(t, "f-rate", "12")
	p.waitDone(t, 2)
	if eval[bool](t, p, `window.servesimLast.precomputed`) {
		t.Error("rate 12, not the default state, drew the precomputed results")
	}
	if _, cap1 := checkAgainstLibrary(t, p); bracket(cap1) != bracket(cap0) {
		// The search starts at the rate, so it may probe elsewhere; the
		// comparison with the library above is what counts.
		t.Logf("lambda* at rate 12: %s (default: %s)", bracket(cap1), bracket(cap0))
	}
	p.set(t, "f-rate", fmt.Sprint(explore.Default().Rate))
	p.waitDone(t, 3)
	if !eval[bool](t, p, `window.servesimLast.precomputed`) {
		t.Error("back at the default state the page did not draw the precomputed results")
	}
	if loc := eval[string](t, p, `location.search`); loc != "" {
		t.Errorf("the default state's URL has the query %q", loc)
	}
	checkAgainstLibrary(t, p)
	p.check(t)
}

// TestPageBadDefaultResults serves a folder whose default-results.json
// is not a Precomputed document: the page does not use it, computes the
// default state in the wasm (the library's numbers) and shows no error.
func TestPageBadDefaultResults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the browser test does not run with -short")
	}
	exe := chromiumPath(t)
	dir := t.TempDir()
	src := folder(t)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == DefaultResultsName {
			data = []byte(`{"request": 1, "calls": "not a list"}`)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, closeAll := openPageOn(t, exe, dir, 1280, 900)
	defer closeAll()
	p.do(t, chromedp.Navigate(p.url))
	p.waitDone(t, 1)
	if eval[bool](t, p, `window.servesimLast.precomputed`) {
		t.Fatal("the page drew a malformed default-results.json")
	}
	checkAgainstLibrary(t, p)
	p.check(t)
}

// shoot screenshots the section of view, checks it, and with -update
// writes it to docs/ui-NAME.png.
func shoot(t *testing.T, p *page, view, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	img, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#view-"+view)))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	checkShot(t, name, img)
	if *update && !t.Failed() {
		if err := os.WriteFile(filepath.Join("..", "docs", "ui-"+name+".png"), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkShot checks a view's screenshot shows it: wide enough, with ink,
// and the palette's first colour.
func checkShot(t *testing.T, view string, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("%s screenshot: %v", view, err)
	}
	b := img.Bounds()
	if b.Dx() < 600 || b.Dy() < 60 {
		t.Errorf("%s screenshot is %dx%d", view, b.Dx(), b.Dy())
	}
	var ink, samples int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			samples++
			if r>>8 < 200 || g>>8 < 200 || bl>>8 < 200 {
				ink++
			}
		}
	}
	if ink < samples/100 {
		t.Errorf("%s screenshot: only %d of %d sampled pixels have ink", view, ink, samples)
	}
}

// BenchmarkPage measures, in headless Chromium, the time from navigation
// to the compiled wasm (and catalog), to the first drawn result (the
// latency view, with lambda*), to the loops view, to every view
// drawn, and from a change of the rate, TP, model, plan rate, GPU,
// dataset or clients to the redrawn latency and loops views and to every
// view, reported as
// metrics. It logs the page's timeline: each worker's start and each
// call's span.
func BenchmarkPage(b *testing.B) {
	p, closeAll := openPage(b, 1280, 900)
	defer closeAll()
	var first, latency, loops, compiled, all, warm, updates, updatesAll []float64
	for i := 0; i < b.N; i++ {
		p.do(b, chromedp.Navigate("about:blank"), chromedp.Navigate(p.url))
		p.waitDone(b, 1)
		// The default state's results are drawn from default-results.json;
		// the changes start once the workers have run its calls (as they
		// had, before, to draw it), so the updates are timed on the same
		// warm workers as before; ms-wasm-warm says when that was.
		p.do(b, chromedp.Poll[chromedp.Void](`window.servesimState.warm`, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(0)))
		warm = append(warm, eval[float64](b, p, `window.servesimTimings.warm`))
		b.Logf("first load: precomputed %v", eval[bool](b, p, `window.servesimLast.precomputed`))
		first = append(first, eval[float64](b, p, `window.servesimTimings.firstResult`))
		latency = append(latency, eval[float64](b, p, `window.servesimTimings.latency`))
		loops = append(loops, eval[float64](b, p, `window.servesimTimings.loops`))
		compiled = append(compiled, eval[float64](b, p, `window.servesimTimings.compiled`))
		all = append(all, eval[float64](b, p, `window.servesimTimings.allViews`))
		b.Logf("first load: workers ready at %v ms", eval[[]float64](b, p, `window.servesimTimings.ready`))
		b.Logf("first load: ms per call %v", eval[map[string]float64](b, p, `window.servesimState.callMs`))
		// Changes of the rate, the TP, the model, the plan's rate, the
		// GPU, the dataset and the closed loop's clients: each reruns what
		// reads it.
		changes := [][2]string{{"f-rate", "12"}, {"f-rate", "18"}, {"f-rate", "24"}, {"f-tp", "2"}, {"f-tp", "1"},
			{"f-model", "qwen2.5-7b"}, {"f-model", "llama-3.1-8b"}, {"f-plan_rate", "30"},
			{"f-gpu", "a100-80gb"}, {"f-dataset", "Aeala/ShareGPT_Vicuna_unfiltered"}, {"f-clients", "16"}}
		for k, c := range changes {
			p.set(b, c[0], c[1])
			p.waitDone(b, 2+k)
		}
		updates = append(updates, eval[[]float64](b, p, `window.servesimTimings.updates`)...)
		updatesAll = append(updatesAll, eval[[]float64](b, p, `window.servesimTimings.updatesAll`)...)
		b.Logf("timeline (ms from the navigation)\n%s", strings.Join(eval[[]string](b, p, `window.servesimState.timeline`), "\n"))
		b.Logf("updates (latency and loops views): %v ms; every view: %v ms", eval[[]float64](b, p, `window.servesimTimings.updates`), eval[[]float64](b, p, `window.servesimTimings.updatesAll`))
	}
	b.ReportMetric(median(first), "ms-first-result")
	b.ReportMetric(median(latency), "ms-latency-view")
	b.ReportMetric(median(loops), "ms-loops-view")
	b.ReportMetric(median(compiled), "ms-wasm-compiled")
	b.ReportMetric(median(all), "ms-all-views")
	b.ReportMetric(median(warm), "ms-wasm-warm")
	b.ReportMetric(median(updates), "ms-update")
	b.ReportMetric(slices.Max(updatesAll), "ms-update-all-views-max")
	p.check(b)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}
