package apitest_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/srctree"
)

var update = flag.Bool("update", false, "rewrite events/ from the generator")

// TestEventsAreCurrent holds events/ to the generator, so that the files
// that sam local invoke reads are the ones the tests use.
func TestEventsAreCurrent(t *testing.T) {
	files := map[string][]byte{
		"env.json":                apitest.Marshal(apitest.Env()),
		"env-dynamodb-local.json": apitest.Marshal(apitest.EnvDynamoDBLocal()),
	}
	for _, f := range apitest.All() {
		files[f.Name+".json"] = apitest.Marshal(f.Event)
	}
	for name, want := range files {
		path := srctree.Path("events", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes (%v); run go test ./internal/apitest -update", path, err)
		}
	}
	entries, _ := filepath.Glob(srctree.Path("events", "*.json"))
	for _, e := range entries {
		if _, ok := files[filepath.Base(e)]; !ok {
			t.Errorf("%s is not made by the generator", e)
		}
	}
}
