package samtemplate

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// A logical ID outside SAM's rule is refused before anything reads it: a
// teammate's branch could name a function `Evil:=$(shell id > pwned)` (make
// syntax once handed to make) or `../scripts/x` (a path outside bin/). The
// error names the ID escaped, the section and the rule.
func TestLogicalIDsAreAlphanumeric(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"Evil:=$(shell id > pwned)", "../../scripts/evil", "Health-Function", "Ünicode", "Clip\x1b]52;c;aGk=\x07board", ""} {
		for _, section := range []string{"Resources", "Parameters", "Outputs", "Conditions", "Mappings"} {
			raw := fmt.Sprintf("Resources:\n  Table:\n    Type: AWS::DynamoDB::Table\n%s:\n  %q:\n    Type: String\n", section, id)
			if section == "Resources" {
				raw = fmt.Sprintf("Resources:\n  %q:\n    Type: AWS::Serverless::Function\n", id)
			}
			_, err := Parse([]byte(raw))
			if err == nil {
				t.Errorf("%s %q: no error", section, id)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, section) || !strings.Contains(msg, "^[A-Za-z0-9]+$") || !strings.Contains(msg, strconv.Quote(id)) {
				t.Errorf("%s %q: the error does not name the section, the ID and the rule: %s", section, id, msg)
			}
			if strings.ContainsAny(msg, "\x1b\x07") {
				t.Errorf("%s %q: the error carries raw control bytes: %q", section, id, msg)
			}
		}
	}
	if _, err := Parse([]byte("Resources:\n  HealthFunction2:\n    Type: AWS::Serverless::Function\n")); err != nil {
		t.Errorf("an alphanumeric ID is refused: %v", err)
	}
}
