package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plantstore/plantstore/tools/figures"
)

// Report is what one run of the bench measured (figures.Report): `make
// bench` writes it to docs/bench.json and renders it into the documents: the
// table of docs/performance.md and every figure the text cites stand between
// fig markers, so that they are the tool's output, never a copy made by hand.
type Report = figures.Report

// Row is one figure beside its floor.
type Row = figures.Row

const header = figures.Header

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
	_, err := figures.RenderFiles(r, paths)
	return err
}

func readReport(path string) (Report, error) { return figures.Load(path) }

func writeReport(path string, r Report) error { return figures.Save(path, r) }
