package srctree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRootIsTheProductsGoMod(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs(filepath.Join("..", "..")); root != want {
		t.Errorf("Root() = %s, want %s", root, want)
	}
	if _, err := os.Stat(Path("template.yaml")); err != nil {
		t.Errorf("Path(template.yaml): %v", err)
	}
}

func TestTheToolsModuleIsNoRoot(t *testing.T) {
	dir := t.TempDir()
	for path, text := range map[string]string{
		"go.mod":        "module github.com/plantstore/plantstore\n\ngo 1.26.0\n",
		"tools/go.mod":  "// The workshop\nmodule github.com/plantstore/plantstore/tools\n",
		"other/go.mod":  "module example.com/plantstore\n",
		"quoted/go.mod": "module \"github.com/plantstore/plantstore\" // the product\n",
		"tabbed/go.mod": "module\tgithub.com/plantstore/plantstore\n",
		"longer/go.mod": "module github.com/plantstore/plantstorex\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"go.mod", "quoted/go.mod", "tabbed/go.mod"} {
		if !declares(filepath.Join(dir, path)) {
			t.Errorf("%s, the product's, is not recognised", path)
		}
	}
	for _, path := range []string{"tools/go.mod", "other/go.mod", "longer/go.mod", "missing/go.mod"} {
		if declares(filepath.Join(dir, path)) {
			t.Errorf("%s is taken for the product's", path)
		}
	}
}
