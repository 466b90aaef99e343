package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
)

// The SDK modules that docs/performance.md ("The SDK line") measured and
// pinned: createplant's cold start is at its floor with service/dynamodb
// v1.68.0 and measurably longer with the schema-serde releases after it, and
// nothing else fails when a `go get -u` or a dependency bot lifts them. So the
// version the build selects must be the one the document's figures were
// measured with; lifting a pin means measuring again (make bench) and
// renewing the document's pinned rows in the same change.
func TestSDKPinsAreTheMeasuredOnes(t *testing.T) {
	t.Parallel()
	root := srctree.Path()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, pin := range []struct{ module, documented string }{
		{"github.com/aws/aws-sdk-go-v2/service/dynamodb", `\| service/dynamodb (v[0-9.]+) \(pinned\) \|`},
		{"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams", `\| service/dynamodbstreams \(attributevalue's stream types\) at (v[0-9.]+),`},
	} {
		m := regexp.MustCompile(pin.documented).FindStringSubmatch(doc)
		if m == nil {
			t.Errorf("docs/performance.md has no pinned row for %s (%s)", pin.module, pin.documented)
			continue
		}
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", pin.module)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK=off") // the product's own selection, as its builds use
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -m %s: %v\n%s", pin.module, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != m[1] {
			t.Errorf("the build selects %s %s, but docs/performance.md's figures (\"The SDK line\") were measured with the pinned %s, "+
				"which keeps createplant's cold start at its floor; lift the pin only with make bench's figures renewed there in the same change", pin.module, got, m[1])
		}
	}
}
