package figures

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// renderCommand is how the documents are brought up to date with
// docs/bench.json without measuring again.
const renderCommand = "go run ./tools/cmd/bench -from docs/bench.json -render 'README.md,docs/*.md'"

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := srctree.Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Every generated figure of README.md and docs/*.md is what docs/bench.json,
// the report of the last make bench, renders: the documents are up to date
// with it.
func TestDocsAreRenderedFromBenchJSON(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	r, err := Load(filepath.Join(root, "docs", "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) < 10 || r.Date == "" || r.Machine == "" {
		t.Fatalf("docs/bench.json holds %d rows, date %q, machine %q: not a whole make bench run", len(r.Rows), r.Date, r.Machine)
	}
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	generated := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		doc, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := markers(string(doc))
		generated += len(ms)
		_, changes, errs := render(r, string(doc))
		for _, e := range errs {
			t.Error(e.InFile(f))
		}
		for _, c := range changes {
			t.Errorf("%s:%v", f, c)
		}
		if len(changes) > 0 {
			t.Logf("%s differs from docs/bench.json: run `%s` (or make bench)", f, renderCommand)
		}
	}
	if generated == 0 {
		t.Error("no <!-- fig: ... --> marker in README.md or docs/*.md: docs/performance.md's table at least is generated")
	}
}

// No measured figure is typed by hand into README.md, docs/*.md or a go.mod:
// outside the fig markers and code, a number with a unit is a design
// constant (see the rule in scan.go and allowlist.txt), never a reading
// that the next make bench would leave behind.
func TestNoFigureTypedByHand(t *testing.T) {
	t.Parallel()
	allow, err := DefaultAllowlist()
	if err != nil {
		t.Fatal(err)
	}
	findings, unused, err := Check(repoRoot(t), allow)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
	for _, u := range unused {
		t.Errorf("tools/figures/allowlist.txt: %q is in no document any more: drop its line", u)
	}
}

var testReport = Report{
	Date: "2026-11-25", Machine: "linux/amd64, 2 CPUs, go1.26.8", Command: "go run ./tools/cmd/bench",
	Rows: []Row{
		{"cold start to first poll, createplant (median of 15)", "2.56 ms", "hello 2.08 ms", "1.23x", "<= 1.30x"},
		{"local API req/s, 32 conns, embedded store", "14109/s", "bare net/http 40112/s", "0.35x", ">= 0.50x"},
		{"bootstrap size, createplant (arm64)", "7.19 MiB", "hello 5.56 MiB", "1.29x", "<= 8.5 MiB"},
		{"local API errors (all rounds)", "0", "", "", "0"},
		{"cold start against aws-samples/serverless-go-demo", "not run", "", "", "< 1.00x: make bench REFERENCE=<its checkout>"},
	},
}

func TestRenderRewritesAStaleFigure(t *testing.T) {
	t.Parallel()
	doc := "Cold start <!-- fig: cold start to first poll, createplant (median of 15) .ratio -->1.27x<!-- /fig --> hello-world\n" +
		"(goal <!-- fig: cold start to first poll, createplant (median of 15) .goal --><= 1.30x<!-- /fig -->: " +
		"<!-- fig: cold start to first poll, createplant (median of 15) .met -->met<!-- /fig -->), on <!-- fig: .date --><!-- /fig -->.\n"
	want := strings.Replace(doc, "1.27x", "1.23x", 1)
	want = strings.Replace(want, "<!-- fig: .date --><!-- /fig -->", "<!-- fig: .date -->2026-11-25<!-- /fig -->", 1)
	got, err := Render(testReport, doc)
	if err != nil || got != want {
		t.Errorf("Render =\n%s, %v; want\n%s", got, err, want)
	}
	changes, err := Changes(testReport, doc)
	if err != nil || len(changes) != 2 || changes[0].Written != "1.27x" || changes[0].Want != "1.23x" || changes[0].Line != 1 || changes[1].Line != 2 {
		t.Errorf("Changes = %v, %v; want the ratio on line 1 and the date on line 2", changes, err)
	}
	if again, err := Render(testReport, got); err != nil || again != got {
		t.Errorf("rendering a rendered document changed it: %v", err)
	}
}

func TestRenderRefusesWhatItCannotRender(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{"a <!-- fig: cold start to first poll, hello (median of 15) .ratio -->1.00x<!-- /fig -->", `line 1: "cold start to first poll, hello (median of 15) .ratio": no row`},
		{"a\nb <!-- fig: local API errors (all rounds) .ratio -->x<!-- /fig -->", "line 2: \"local API errors (all rounds) .ratio\" is empty"},
		{"a <!-- fig: local API errors (all rounds) .median -->x<!-- /fig -->", `unknown field "median"`},
		{"a <!-- fig: local API errors (all rounds) -->x<!-- /fig -->", `want "<figure> .<field>"`},
		{"a <!-- fig: local API errors (all rounds) .value -->0", "has no <!-- /fig --> after it"},
		{"a <!-- fig: .date -->x <!-- fig: .date -->y<!-- /fig -->", "has no <!-- /fig --> before the next marker"},
		{"a <!-- fig: cold start against aws-samples/serverless-go-demo .met -->met<!-- /fig -->", "not measured in this run"},
		{"a\n  <!-- fig: local API errors (all rounds) .value -->0<!-- /fig --> errors", "line 2: \"local API errors (all rounds) .value\" begins its line"},
		{"the table: <!-- fig: table -->\n<!-- /fig -->", "must begin its line"},
	} {
		got, err := Render(testReport, tc.doc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%q): %v; want an error with %q", tc.doc, err, tc.want)
		}
		if got != tc.doc {
			t.Errorf("Render(%q) changed the document though it failed: %q", tc.doc, got)
		}
	}
}

func TestRenderTableAndCode(t *testing.T) {
	t.Parallel()
	doc := "# Figures\n\n<!-- fig: table -->\nold\n<!-- /fig -->\n\n" +
		"```\n<!-- fig: no such row .value -->shown as code<!-- /fig -->\n```\n" +
		"and `<!-- fig: nor this .value -->x<!-- /fig -->` inline.\n"
	got, err := Render(testReport, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(doc, "\nold\n", "\n"+testReport.Table(), 1)
	if got != want {
		t.Errorf("Render =\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, "cold start to first poll, createplant (median of 15)            2.56 ms   hello 2.08 ms                  1.23x  <= 1.30x\n") {
		t.Errorf("the table lacks the row as the bench prints it:\n%s", got)
	}
}

func TestMet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		row  Row
		want bool
	}{
		{testReport.Rows[0], true},
		{testReport.Rows[1], false},
		{testReport.Rows[2], true},
		{testReport.Rows[3], true},
		{Row{Value: "9.00 MiB", Goal: "<= 8.5 MiB"}, false},
		{Row{Value: "1", Goal: "0"}, false},
	} {
		got, err := tc.row.Met()
		if err != nil || got != tc.want {
			t.Errorf("%q (goal %q).Met() = %v, %v; want %v", tc.row.Value, tc.row.Goal, got, err, tc.want)
		}
	}
	if _, err := (Row{Value: "7.19 MiB", Goal: "(what bounds req/s)"}).Met(); err == nil {
		t.Error("a goal that is no bound is met or not")
	}
	if _, err := (Row{Value: "7.19 MiB", Goal: "<= 8500 KiB"}).Met(); err == nil {
		t.Error("a value in another unit than its goal compared")
	}
}

func TestTheRule(t *testing.T) {
	t.Parallel()
	measuredFigures := []string{
		"cold start 1.27x hello", "1.38-1.43x", "1.19–1.26x", "2.56 ms", "9.41ms", "a 1.5 s build",
		"28,005 ms", "1085 allocs", "4,603 allocations", "53 allocs/op", "15,800 B/op", "71.8 µs", "13 µs",
		"7.19 MiB", "810 KB", "769 B", "218 KiB", "2,039 bytes", "35.0 %", "12 %", "14109/s", "8,464/s",
		"1.00 WRU", "2.20 GB", "(-128 KiB, 1.7 %)",
	}
	constants := []string{
		"FUZZTIME=20000x", "2x the timeout", "0x1F", "5xx", "a timeout of 3 s", "29 s", "150 ms", "300 s",
		"5 minutes", "60 minutes", "1 h", "body at most 1 MiB", "6 MB payload", "<= 8.5 MiB", "≤ 1.30x",
		"goal >= 0.50x", "under 2.5 KB", "at least 32 bytes", "64 KiB", "65536 bytes", "16 KiB", "256 MiB",
		"128 MB", "10 %", "200 µs", "1 WRU", "v1.68.0", "go1.26.8", "U+200B", "HS256", "5 steps",
		"2026-11-25", "1,000,000 creates", "moreover", "`-benchtime 4.5s`", "<!-- 2.56 ms -->",
	}
	for _, s := range measuredFigures {
		if f := ScanMarkdown("t.md", s+"\n", nil, nil); len(f) == 0 {
			t.Errorf("%q: no measured figure found", s)
		}
	}
	for _, s := range constants {
		if f := ScanMarkdown("t.md", s+"\n", nil, nil); len(f) != 0 {
			t.Errorf("%q: %v, want no measured figure", s, f)
		}
	}
	if f := ScanMarkdown("t.md", "cold start was over 1.40x once, and 1.27x now\n", nil, nil); len(f) != 1 || f[0].Figure != "1.27x" {
		t.Errorf("a bound and a reading: %v", f)
	}
	used := map[string]bool{}
	if f := ScanMarkdown("t.md", "Lambda's less 0.5 s\n", Allowlist{"0.5 s": "a margin"}, used); len(f) != 0 || !used["0.5 s"] {
		t.Errorf("an allowlisted figure: %v, used %v", f, used)
	}
	mod := "module x\n\nrequire (\n\texample.com/a v1.68.0 // cold start 1.19-1.26x here\n\texample.com/b v0.0.0-20250724212937-08a3db8b4327\n)\n"
	if f := ScanGoMod("go.mod", mod, nil, nil); len(f) != 1 || f[0].Line != 4 || f[0].Figure != "1.19-1.26x" {
		t.Errorf("ScanGoMod = %v, want 1.19-1.26x on line 4", f)
	}
}

// A figure typed into a copy of the documents is caught, with its file and
// line, and nothing else is.
func TestAPlantedFigureIsCaught(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	tmp := watchtest.CopyFiles(t, files...)
	allow, err := DefaultAllowlist()
	if err != nil {
		t.Fatal(err)
	}
	before, _, err := Check(tmp, allow)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tmp, "docs", "performance.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(doc), "\n")
	planted := slices.Insert(lines, 3, "Cold start was 1.27x hello-world in the last run, 9.41 ms warm.\n")
	if err := os.WriteFile(path, []byte(strings.Join(planted, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _, err := Check(tmp, allow)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range after {
		if f.File == "docs/performance.md" && f.Line == 4 {
			got = append(got, f.String())
		}
	}
	if len(after) != len(before)+2 || len(got) != 2 || !strings.HasPrefix(got[0], "docs/performance.md:4: 1.27x typed by hand") || !strings.HasPrefix(got[1], "docs/performance.md:4: 9.41 ms typed by hand") {
		t.Fatalf("after planting two figures on line 4 of docs/performance.md: %d findings, %d before; on line 4: %q", len(after), len(before), got)
	}
	if !strings.Contains(got[0], "generate it with <!-- fig: <row> .<field> -->") {
		t.Errorf("the finding does not say how to fix it: %s", got[0])
	}
}
