package preflight

// SARIF 2.1.0 for GitHub code scanning: one run, the book's rules as
// tool.driver.rules (id, name, descriptions, helpUri), each finding a
// result with its ruleId, level, message and the file and line a person
// edits (GitHub docs, "SARIF support for code scanning": ruleId, message,
// locations[].physicalLocation.artifactLocation.uri and region.startLine).

import (
	"encoding/json"
	"io"
)

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	ShortDescription sarifMessage      `json:"shortDescription"`
	FullDescription  sarifMessage      `json:"fullDescription"`
	Help             sarifMessage      `json:"help"`
	HelpURI          string            `json:"helpUri"`
	Properties       map[string]any    `json:"properties,omitempty"`
	Default          map[string]string `json:"defaultConfiguration"`
}

// WriteSARIF writes the findings as a SARIF 2.1.0 log; rules are every
// rule the findings may name.
func WriteSARIF(w io.Writer, rules []Rule, findings []Finding) error {
	driverRules := []sarifRule{}
	for _, r := range rules {
		driverRules = append(driverRules, sarifRule{
			ID: r.ID, Name: r.Title, ShortDescription: sarifMessage{r.Title}, FullDescription: sarifMessage{r.Danger},
			Help: sarifMessage{"Fix: " + r.Fix + " Source: " + r.Source}, HelpURI: r.Source,
			Properties: map[string]any{"tags": []string{"security"}}, Default: map[string]string{"level": "error"},
		})
	}
	results := []any{}
	for _, f := range findings {
		text := f.Rule
		if f.Fix != "" {
			text += "; fix: " + f.Fix
		}
		results = append(results, map[string]any{
			"ruleId": f.ID, "level": "error", "message": sarifMessage{text},
			"locations": []any{map[string]any{"physicalLocation": map[string]any{
				"artifactLocation": map[string]any{"uri": f.File, "uriBaseId": "%SRCROOT%"},
				"region":           map[string]any{"startLine": max(f.Line, 1)},
			}}},
		})
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool":    map[string]any{"driver": map[string]any{"name": "preflight", "informationUri": "https://github.com/plantstore/plant-store/blob/main/docs/security.md", "rules": driverRules}},
			"results": results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// AllRules are the book's rules and the engine's own (suppressionRule),
// by ID.
func (b *Book) AllRules() []Rule {
	out := append([]Rule{suppressionRule}, b.Rules...)
	sortRules(out)
	return out
}
