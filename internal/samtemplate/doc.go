// Package samtemplate holds the tests that keep template.yaml to its design
// (DESIGN.md sections 1, 3 and 6): cfn-lint with the SAM translator, the
// official SAM JSON schema (testdata/sam.schema.json, as published with
// aws-sam-translator), and assertions on the wiring.
package samtemplate
