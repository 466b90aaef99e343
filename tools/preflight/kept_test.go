package preflight

import (
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/plantstore/plantstore/tools/toolcache"
)

// A stack part's access is computed once per content and version, and a
// kept one is the value computed: the rules see no difference.
func TestKeptAccessIsTheComputedAccess(t *testing.T) {
	t.Parallel()
	c, err := toolcache.Open(t.TempDir(), "preflight-access", []byte("test"))
	if err != nil {
		t.Fatal(err)
	}
	computed := map[string]any{"granted": []string{"dev Role s3:GetObject arn:aws:s3:::b/k"}, "errors": []any{}, "n": 3}
	calls := 0
	compute := func() (map[string]any, error) { calls++; return computed, nil }
	key := [32]byte{1}
	first, err := keptAccess(c, key, compute)
	if err != nil {
		t.Fatal(err)
	}
	second, err := keptAccess(c, key, compute)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("computed %d times; want once", calls)
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("kept %v, computed %v", second, first)
	}
	a, _ := ast.InterfaceToValue(computed)
	b, _ := ast.InterfaceToValue(second)
	if a.Compare(b) != 0 {
		t.Errorf("the rules see %v kept, %v computed", b, a)
	}
	other, err := keptAccess(c, [32]byte{2}, func() (map[string]any, error) { calls++; return map[string]any{}, nil })
	if err != nil || calls != 2 || len(other) != 0 {
		t.Errorf("another key: %v, %d computations, %v", other, calls, err)
	}
}
