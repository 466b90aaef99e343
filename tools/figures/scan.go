package figures

import (
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A measured figure is a number followed by a unit of measurement, written
// the way a measurement comes out and a design constant does not:
//
//   - a ratio (x, attached: 1.23x, 0.35x, 1.38-1.43x) with a decimal part.
//     The bench writes every ratio with two decimals; an integer before x
//     is a count or a multiplier (FUZZTIME=20000x, -benchtime 20000x, "2x"
//     in a sentence), and 0x1F is hex;
//   - a duration in ms, s, min or h (2.56 ms, 9.41ms, 1.5 s) with a decimal
//     part or thousands separators. Timeouts, TTLs, periods and windows are
//     chosen in whole units (3 s, 29 s, 150 ms, 300 s, 5 minutes) and are
//     the design's;
//   - an allocation count (1085 allocs, 4,603 allocations, 213 allocs/op)
//     or a Go benchmark column (B/op, ns/op): always. No design chooses one;
//   - any other number with a unit: µs, us, ns; B (spaced), bytes, KB, KiB,
//     MB, MiB, GB, GiB; %; a rate (14109/s, req/s, creates/s); WRU, RRU:
//     with a decimal part (71.8 µs, 7.19 MiB, 35.0 %, 1.00 WRU) or not
//     round (810 KB, 769 B, 218 KiB, 8,464/s, 13 µs). Round is one
//     significant digit (1 MiB, 6 MB, 200 µs, 10 %, 1,000,000) or a power
//     of two (16 KiB, 128 MB, 256 MiB, 65536 bytes): the sizes, shares and
//     delays that designs and AWS's limits choose.
//
// A figure right after a bound (≤ ≥ < > <= >=, "at most", "at least", "up
// to", "under", "over", "below", "above", "within", "less than", "more
// than") is a goal or a limit, not a reading: "≤ 1.30x", "at most 10 MB",
// "under 2.5 KB". A range (1.38-1.43x) counts if either end does.
//
// Only prose is read: fenced code blocks, inline code spans (commands such
// as `-benchtime 4s`), HTML comments and the text of the fig markers are
// not, nor anything but the comments of a go.mod. A table whose cells are
// bare numbers under a header that names the unit is not seen: such a
// table is a copy of a run and belongs in bench.json.
//
// What the rule would call measured but is a constant, each with its
// reason, is in allowlist.txt; an entry that no file uses any more fails
// the test too.
var figure = regexp.MustCompile(`(` + num + `)(?:\s*[–—-]\s*(` + num + `))?(\s?)(` + units + `)`)

const (
	num   = `(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`
	units = `allocs/op|B/op|ns/op|allocations|allocation|allocs|alloc|req/s|requests/s|creates/s|/s|ms|µs|μs|us|ns|seconds|second|s|minutes|minute|min|hours|hour|h|GiB|MiB|KiB|GB|MB|kB|KB|bytes|byte|B|WRU|RRU|%|x`
)

// Some units count only attached to the number: "20 x" multiplies, "us"
// after a space is a word, a spaced "/s" is a path. A B stuck to a number
// is hex (U+200B), so B counts only after a space.
var attachedOnly = map[string]bool{"x": true, "us": true, "/s": true}

var bounds = []string{"≤", "≥", "<=", ">=", "<", ">", "at most", "at least", "up to", "under", "over", "below", "above", "within", "less than", "more than"}

// A Finding is a measured figure typed into prose.
type Finding struct {
	File   string
	Line   int
	Figure string // as written
	Text   string // the words around it on its line
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s typed by hand (%q): generate it with <!-- fig: <row> .<field> -->%s<!-- /fig --> from a row of docs/bench.json, or drop the number",
		f.File, f.Line, f.Figure, f.Text, f.Figure)
}

// Allowlist maps a figure, as written, to why it is a constant and not a
// measurement.
type Allowlist map[string]string

//go:embed allowlist.txt
var allowlistText string

// DefaultAllowlist is allowlist.txt.
func DefaultAllowlist() (Allowlist, error) { return ParseAllowlist(allowlistText) }

// ParseAllowlist reads lines "<figure> | <reason>"; # starts a comment.
func ParseAllowlist(text string) (Allowlist, error) {
	a := Allowlist{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fig, reason, ok := strings.Cut(line, "|")
		fig, reason = strings.TrimSpace(fig), strings.TrimSpace(reason)
		if !ok || fig == "" || reason == "" {
			return nil, fmt.Errorf("allowlist line %d: want \"<figure> | <reason>\", got %q", i+1, line)
		}
		a[normalize(fig)] = reason
	}
	return a, nil
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// ScanMarkdown returns the measured figures in the prose of a Markdown
// document, outside code, comments and fig markers, that allow does not
// name; used collects the allowlist's entries it met.
func ScanMarkdown(name, doc string, allow Allowlist, used map[string]bool) []Finding {
	code := codeSpans(doc)
	prose := blank(doc, code, commentSpans(doc, code))
	ms, _ := markers(doc)
	var generated []span
	for _, m := range ms {
		generated = append(generated, span{m.start, m.end})
	}
	return scan(name, doc, blank(prose, generated), allow, used)
}

// ScanGoMod does the same for the comments of a go.mod.
func ScanGoMod(name, text string, allow Allowlist, used map[string]bool) []Finding {
	var code []span
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		if c := strings.Index(text[off:end], "//"); c >= 0 {
			code = append(code, span{off, off + c})
		} else {
			code = append(code, span{off, end})
		}
		off = end + 1
	}
	return scan(name, text, blank(text, code), allow, used)
}

func scan(name, doc, prose string, allow Allowlist, used map[string]bool) []Finding {
	var out []Finding
	for _, m := range figure.FindAllStringSubmatchIndex(prose, -1) {
		start, end := m[0], m[1]
		lo, hi, space, unit := prose[m[2]:m[3]], "", prose[m[6]:m[7]], prose[m[8]:m[9]]
		if m[4] >= 0 {
			hi = prose[m[4]:m[5]]
		}
		if r, _ := utf8.DecodeLastRuneInString(prose[:start]); start > 0 && (isWord(r) || r == '.' || r == ',') {
			continue // part of a name or a version: v1.68.0, go1.26, HS256
		}
		if r, _ := utf8.DecodeRuneInString(prose[end:]); end < len(prose) && isWord(r) {
			continue // the unit is the start of a word: 5 steps, 2 hosts
		}
		if space != "" && attachedOnly[unit] || space == "" && unit == "B" {
			continue
		}
		if !measured(lo, unit) && (hi == "" || !measured(hi, unit)) {
			continue
		}
		if afterBound(prose[:start]) {
			continue
		}
		text := normalize(doc[start:end])
		if _, ok := allow[text]; ok {
			if used != nil {
				used[text] = true
			}
			continue
		}
		out = append(out, Finding{name, lineOf(doc, start), text, around(doc, start, end)})
	}
	return out
}

// around is the figure doc[start:end] with some forty bytes of its line
// either side, cut at spaces.
func around(doc string, start, end int) string {
	ls := strings.LastIndexByte(doc[:start], '\n') + 1
	le := strings.IndexByte(doc[end:], '\n')
	if le < 0 {
		le = len(doc)
	} else {
		le += end
	}
	if start-ls > 40 {
		if i := strings.IndexByte(doc[start-40:start], ' '); i >= 0 {
			ls = start - 40 + i + 1
		}
	}
	if le-end > 40 {
		if i := strings.LastIndexByte(doc[end:end+40], ' '); i >= 0 {
			le = end + i
		}
	}
	return strings.Join(strings.Fields(doc[ls:le]), " ")
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// measured applies the rule above to one number n and its unit.
func measured(n, unit string) bool {
	decimal := strings.Contains(n, ".")
	switch unit {
	case "x":
		return decimal
	case "ms", "s", "second", "seconds", "min", "minute", "minutes", "h", "hour", "hours":
		return decimal || strings.Contains(n, ",")
	case "allocs/op", "B/op", "ns/op", "allocations", "allocation", "allocs", "alloc":
		return true
	}
	return decimal || !round(n)
}

// round: one significant digit, or a power of two.
func round(n string) bool {
	v, err := strconv.ParseUint(strings.ReplaceAll(n, ",", ""), 10, 64)
	if err != nil {
		return false
	}
	if v&(v-1) == 0 {
		return true
	}
	for v%10 == 0 {
		v /= 10
	}
	return v < 10
}

func afterBound(before string) bool {
	before = strings.ToLower(strings.TrimRight(before, " \t\n~"))
	for _, b := range bounds {
		if !strings.HasSuffix(before, b) {
			continue
		}
		r, _ := utf8.DecodeLastRuneInString(before[:len(before)-len(b)])
		if unicode.IsLetter(rune(b[0])) && isWord(r) {
			continue // "moreover", not "over"
		}
		return true
	}
	return false
}

// Files is what the rule covers under root: README.md, docs/*.md, and every
// go.mod (node_modules, .bin and hidden folders left out).
func Files(root string) ([]string, error) {
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == ".bin" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files[1:])
	return files, err
}

// Check scans every file of [Files] under root. unused is the allowlist's
// entries that no file needs any more.
func Check(root string, allow Allowlist) (findings []Finding, unused []string, err error) {
	files, err := Files(root)
	if err != nil {
		return nil, nil, err
	}
	used := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, nil, err
		}
		if filepath.Base(f) == "go.mod" {
			findings = append(findings, ScanGoMod(f, string(b), allow, used)...)
		} else {
			findings = append(findings, ScanMarkdown(f, string(b), allow, used)...)
		}
	}
	for fig := range allow {
		if !used[fig] {
			unused = append(unused, fig)
		}
	}
	slices.Sort(unused)
	return findings, unused, nil
}
