// Package samtemplate holds the tests that keep template.yaml to its design
// (docs/design.md: what runs where, errors, data): cfn-lint with the SAM translator, the
// official SAM JSON schema (testdata/sam.schema.json, as published with
// aws-sam-translator), and assertions on the wiring.
package samtemplate
