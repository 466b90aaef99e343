package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Report is what one run of the bench measured: the rows it printed, with
// the machine, the date and the command. `make bench` writes it to
// docs/bench.json and renders it into docs/performance.md, so that the
// document's table is the tool's output, never a copy made by hand.
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

func (r Row) String() string {
	return strings.TrimRight(fmt.Sprintf("%-58s %12s   %-28s %7s  %s", r.Figure, r.Value, r.Floor, r.Ratio, r.Goal), " ")
}

const header = "figure                                                            value   floor                          ratio  goal"

// Markers around the generated block of docs/performance.md.
const (
	beginMarker = "<!-- make bench: begin (generated from docs/bench.json; do not edit by hand) -->"
	endMarker   = "<!-- make bench: end -->"
)

// Render is the block that stands between the markers.
func (r Report) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`, %s, %s:\n\n```\n%s\n", r.Command, r.Date, r.Machine, header)
	for _, row := range r.Rows {
		b.WriteString(row.String() + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// renderInto replaces the block between the markers of the document at
// path with report's rendering.
func renderInto(path string, r Report) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceBlock(doc, r.Render())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

func replaceBlock(doc []byte, block string) ([]byte, error) {
	before, rest, ok := bytes.Cut(doc, []byte(beginMarker+"\n"))
	if !ok {
		return nil, errors.New("no begin marker")
	}
	_, after, ok := bytes.Cut(rest, []byte(endMarker))
	if !ok {
		return nil, errors.New("no end marker")
	}
	return []byte(string(before) + beginMarker + "\n" + block + endMarker + string(after)), nil
}

func readReport(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	return r, err
}

func writeReport(path string, r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
