// Package figures keeps every figure the documents cite in one source,
// docs/bench.json, the report of the last `make bench`.
//
// A figure in prose is written between two HTML comments, which Markdown
// does not show:
//
//	warm p50 <!-- fig: warm invocation p50, createplant (400) .value -->2.83 ms<!-- /fig -->
//
// The opening comment names a row of the report by its figure, exactly as
// bench.json spells it, and one of its fields after the last " .": value,
// floor, ratio, goal, or met (the goal checked against the row: "met" or
// "not met"). With no row, the field is the report's own: .date, .machine,
// .command. The block form
//
//	<!-- fig: table -->
//	...
//	<!-- /fig -->
//
// holds the whole report as a table. [Render] rewrites what stands between
// each pair from a [Report]; `go run ./tools/cmd/bench -render` calls it for
// the documents it is given, and this package's tests fail when a document
// differs from its rendering, or when a measured figure is typed into prose
// outside the markers (see [ScanMarkdown] and scan.go for the rule).
package figures

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Report is what one run of the bench measured: the rows it printed, with
// the machine, the date and the command.
type Report struct {
	Date    string `json:"date"`    // YYYY-MM-DD, UTC
	Machine string `json:"machine"` // GOOS/GOARCH, CPUs, Go version
	Command string `json:"command"`
	Rows    []Row  `json:"rows"`
}

// Row is one figure beside its floor.
type Row struct {
	Figure string `json:"figure"`
	Value  string `json:"value"`
	Floor  string `json:"floor"`
	Ratio  string `json:"ratio"`
	Goal   string `json:"goal"`
}

// String is the row as the bench prints it and as the table shows it.
func (r Row) String() string {
	return strings.TrimRight(fmt.Sprintf("%-58s %12s   %-28s %7s  %s", r.Figure, r.Value, r.Floor, r.Ratio, r.Goal), " ")
}

// Header names the columns of [Row.String].
const Header = "figure                                                            value   floor                          ratio  goal"

// Table is the report as the table of a `<!-- fig: table -->` block: the
// command, the date and the machine, then every row.
func (r Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`, %s, %s:\n\n```\n%s\n", r.Command, r.Date, r.Machine, Header)
	for _, row := range r.Rows {
		b.WriteString(row.String() + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// Load reads a report, such as docs/bench.json.
func Load(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Save writes a report as Load reads it.
func Save(path string, r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// row is the report's row of that figure.
func (r Report) row(figure string) (Row, bool) {
	for _, row := range r.Rows {
		if row.Figure == figure {
			return row, true
		}
	}
	return Row{}, false
}
