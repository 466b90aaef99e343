package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plantstore/plantstore/tools/figures"
)

// Report is what one run of the bench measured: the rows it printed, with
// the machine, the date and the command. `make bench` writes it to
// docs/bench.json and renders it into the documents (package figures): the
// table of docs/performance.md and every figure the text cites stand
// between fig markers, so that they are the tool's output, never a copy
// made by hand.
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

func (r Row) String() string { return figures.Row(r).String() }

const header = figures.Header

func (r Report) figures() figures.Report {
	f := figures.Report{Date: r.Date, Machine: r.Machine, Command: r.Command}
	for _, row := range r.Rows {
		f.Rows = append(f.Rows, figures.Row(row))
	}
	return f
}

// renderInto renders the report into the documents that list names:
// comma-separated paths or globs ("README.md,docs/*.md"). No document is
// written unless every one renders: a marker that names a row this run
// does not have (a run with -only, a step that cannot run here) fails them
// all.
func renderInto(list string, r Report) error {
	if list == "" {
		return errors.New("-render: no document named")
	}
	var paths []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			paths = append(paths, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return fmt.Errorf("-render %s: %w", p, err)
		}
		if len(m) == 0 {
			return fmt.Errorf("-render %s: no such file", p)
		}
		paths = append(paths, m...)
	}
	_, err := figures.RenderFiles(r.figures(), paths)
	return err
}

func readReport(path string) (Report, error) {
	f, err := figures.Load(path)
	r := Report{Date: f.Date, Machine: f.Machine, Command: f.Command}
	for _, row := range f.Rows {
		r.Rows = append(r.Rows, Row(row))
	}
	return r, err
}

func writeReport(path string, r Report) error { return figures.Save(path, r.figures()) }
