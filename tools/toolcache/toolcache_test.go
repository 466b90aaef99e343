package toolcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Keys differ whenever an input differs, including where parts split.
func TestKeyOf(t *testing.T) {
	t.Parallel()
	keys := map[Key]string{}
	for _, parts := range [][]string{{"ab", "c"}, {"a", "bc"}, {"abc"}, {"abc", ""}, {"", "abc"}, {}} {
		var b [][]byte
		for _, p := range parts {
			b = append(b, []byte(p))
		}
		k := KeyOf(b...)
		if was, ok := keys[k]; ok {
			t.Errorf("%q and %s share a key", parts, was)
		}
		keys[k] = strings.Join(parts, "|")
		if KeyOf(b...) != k {
			t.Errorf("%q: two keys", parts)
		}
	}
}

// An answer Put is got back; another version of the tool is another folder
// and finds none of it.
func TestGetPutByVersion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	v1, err := Open(root, "tool", []byte("1.0"))
	if err != nil {
		t.Fatal(err)
	}
	k := KeyOf([]byte("input"))
	if _, ok := v1.Get(k); ok {
		t.Fatal("a fresh cache has an answer")
	}
	if err := v1.Put(k, []byte("answer")); err != nil {
		t.Fatal(err)
	}
	if got, ok := v1.Get(k); !ok || string(got) != "answer" {
		t.Errorf("Get = %q, %v", got, ok)
	}
	v2, err := Open(root, "tool", []byte("1.1"))
	if err != nil {
		t.Fatal(err)
	}
	if v2.Dir() == v1.Dir() {
		t.Fatal("two versions share a folder")
	}
	if _, ok := v2.Get(k); ok {
		t.Error("version 1.1 found version 1.0's answer")
	}
	if _, ok := v2.Get(KeyOf([]byte("input2"))); ok {
		t.Error("another input found an answer")
	}
}

// The logs give back what was appended, across processes' worth of Opens;
// a damaged line is skipped, not served.
func TestLogs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, err := Open(root, "tool", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[Key][]byte{}
	for i := range 100 {
		want[KeyOf([]byte{byte(i)})] = []byte(`{"result":"Allowed","n":` + string(rune('0'+i%10)) + `}`)
	}
	if err := c.Append(want); err != nil {
		t.Fatal(err)
	}
	again, _ := Open(root, "tool", []byte("v"))
	got, err := again.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("loaded %d answers, want %d", len(got), len(want))
	}
	for k, v := range want {
		if string(got[k]) != string(v) {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	// Damage one line of one log: flip a byte of its answer.
	k := KeyOf([]byte{7})
	path := filepath.Join(c.Dir(), shardOf(k))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(raw), k.String()+" ")
	raw[i+len(k.String())+3] ^= 1
	// And a torn line at the end, as a killed writer could leave.
	raw = append(raw, []byte(KeyOf([]byte("torn")).String()+` {"resu`)...)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = again.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[k]; ok {
		t.Error("a damaged line was served")
	}
	if len(got) != len(want)-1 {
		t.Errorf("loaded %d answers after damaging one, want %d", len(got), len(want)-1)
	}
	if err := c.Append(map[Key][]byte{k: []byte("two\nlines")}); err == nil {
		t.Error("an answer with a newline was appended")
	}
}

// Off keeps nothing; a folder of another version unused for five days goes.
func TestOffAndTrim(t *testing.T) {
	root := t.TempDir()
	t.Setenv("PLANTSTORE_CACHE", "off")
	c, err := Open("", "tool", []byte("v"))
	if err != nil || c != nil {
		t.Fatalf("off: %v, %v", c, err)
	}
	if err := c.Put(KeyOf(), []byte("x")); err != nil {
		t.Error(err)
	}
	if _, ok := c.Get(KeyOf()); ok {
		t.Error("off found an answer")
	}
	t.Setenv("PLANTSTORE_CACHE", root)
	old, _ := Open("", "tool", []byte("old"))
	recent, _ := Open("", "tool", []byte("recent"))
	long := time.Now().Add(-6 * 24 * time.Hour)
	if err := os.Chtimes(old.Dir(), long, long); err != nil {
		t.Fatal(err)
	}
	if _, err := Open("", "tool", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old.Dir()); !os.IsNotExist(err) {
		t.Errorf("a version unused for six days stays: %v", err)
	}
	if _, err := os.Stat(recent.Dir()); err != nil {
		t.Errorf("a version used now went: %v", err)
	}
}

// Beyond the keptVersions used last, a tool's other versions go, however
// recent; the one opened stays.
func TestKeepsTheVersionsUsedLast(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var dirs []string
	for i := range keptVersions + 3 {
		c, err := Open(root, "tool", []byte{byte(i)})
		if err != nil {
			t.Fatal(err)
		}
		// Each an hour after the last, as a clock would order them.
		at := time.Now().Add(time.Duration(i-keptVersions-3) * time.Hour)
		if err := os.Chtimes(c.Dir(), at, at); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, c.Dir())
	}
	last, err := Open(root, "tool", []byte{0}) // the oldest, used again
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			kept[d] = true
		}
	}
	if len(kept) != keptVersions {
		t.Errorf("%d versions stay, want %d", len(kept), keptVersions)
	}
	if !kept[last.Dir()] {
		t.Error("the version opened went")
	}
	for _, d := range dirs[len(dirs)-keptVersions+1:] {
		if !kept[d] {
			t.Errorf("%s, among the last used, went", filepath.Base(d))
		}
	}
}
