// Package toolcache keeps the answers of slow, pure tools (the SAM
// translator, the IAM evaluator) in the user's cache folder, the way Go's
// build cache keeps the results of its actions: an answer is found by the
// sha256 of every input it depends on, inside a folder named by the sha256 of
// the tool's version. A changed input or tool is another key, so the cache
// can serve no stale answer; it is never committed, and deleting it only
// costs time.
//
// PLANTSTORE_CACHE names another folder for it, or "off" for none.
package toolcache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Key is the sha256 of an answer's inputs.
type Key [sha256.Size]byte

// String is the key in hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// KeyOf is the key of the parts. Each is hashed with its length, so that no
// two lists of parts share a key ("ab","c" is not "a","bc").
func KeyOf(parts ...[]byte) Key {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Cache is one tool's answers at one version. A nil Cache (caching off)
// finds nothing and keeps nothing.
type Cache struct {
	dir string
}

// unused is how long a version's folder stays after its last use: Go's
// build cache trims entries unused for five days.
const unused = 5 * 24 * time.Hour

// keptVersions is how many of a tool's versions stay however recent: the
// preflight's access is keyed by the executable that computed it, so every
// edit of the preflight is another version, and five days of them pile up.
// At any time a few executables ask at once (the test binary,
// bin/preflight, a copy's).
const keptVersions = 8

// Open returns the cache of tool at the version that the parts describe:
// <root>/plantstore/<tool>/<KeyOf(version...)>. An empty root is
// $PLANTSTORE_CACHE, else the user's cache folder; "off" turns caching off
// (Open returns nil). Folders of the tool's other versions unused for five
// days are removed, and all but the keptVersions used last.
func Open(root, tool string, version ...[]byte) (*Cache, error) {
	if root == "" {
		root = os.Getenv("PLANTSTORE_CACHE")
	}
	if root == "off" {
		return nil, nil
	}
	if root == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("toolcache: %w (PLANTSTORE_CACHE names a folder, or off)", err)
		}
		root = filepath.Join(user, "plantstore")
	}
	parent := filepath.Join(root, tool)
	dir := filepath.Join(parent, KeyOf(version...).String())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("toolcache: %w", err)
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // used now
	type folder struct {
		path string
		used time.Time
	}
	var others []folder
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && filepath.Join(parent, e.Name()) != dir {
			others = append(others, folder{filepath.Join(parent, e.Name()), info.ModTime()})
		}
	}
	slices.SortFunc(others, func(a, b folder) int { return b.used.Compare(a.used) })
	for i, o := range others {
		if i >= keptVersions-1 || now.Sub(o.used) > unused {
			_ = os.RemoveAll(o.path)
		}
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache's folder.
func (c *Cache) Dir() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// Get returns the answer kept under k by Put.
func (c *Cache) Get(k Key) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	raw, err := os.ReadFile(filepath.Join(c.dir, k.String()))
	return raw, err == nil
}

// Put keeps v under k. The file appears whole or not at all (a write to a
// temporary file, then a rename), so a reader never sees half of it.
func (c *Cache) Put(k Key, v []byte) error {
	if c == nil {
		return nil
	}
	f, err := os.CreateTemp(c.dir, "tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, k.String()))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// A tool with many small answers (the evaluator's, of one line each) keeps
// them in logs rather than a file each: 16 files, each taking lines "<key>
// <answer> <check>", where check is the first 8 bytes of the sha256 of key
// and answer in hex. Processes append whole lines with one
// write to a file opened for appending; a line that is torn or otherwise
// damaged fails its check and is skipped, as a miss.

const shards = 16

func shardOf(k Key) string { return fmt.Sprintf("log-%x", k[0]>>4) }

func check(k Key, v []byte) string {
	s := sha256.Sum256(append(k[:], v...))
	return hex.EncodeToString(s[:8])
}

// Load returns every answer of the logs.
func (c *Cache) Load() (map[Key][]byte, error) {
	out := map[Key][]byte{}
	if c == nil {
		return out, nil
	}
	for i := range shards {
		raw, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("log-%x", i)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, len(raw)+1)
		for sc.Scan() {
			if k, v, ok := parseLine(sc.Bytes()); ok {
				out[k] = v
			}
		}
	}
	return out, nil
}

func parseLine(line []byte) (Key, []byte, bool) {
	var k Key
	if len(line) < 2*len(k)+1+1+16 || line[2*len(k)] != ' ' || line[len(line)-17] != ' ' {
		return k, nil, false
	}
	if _, err := hex.Decode(k[:], line[:2*len(k)]); err != nil {
		return k, nil, false
	}
	v := bytes.Clone(line[2*len(k)+1 : len(line)-17])
	if check(k, v) != string(line[len(line)-16:]) {
		return k, nil, false
	}
	return k, v, true
}

// Append adds answers to the logs. An answer may not hold a newline.
func (c *Cache) Append(answers map[Key][]byte) error {
	if c == nil || len(answers) == 0 {
		return nil
	}
	lines := map[string]*bytes.Buffer{}
	for k, v := range answers {
		if bytes.ContainsAny(v, "\r\n") {
			return fmt.Errorf("toolcache: the answer for %s holds a newline", k)
		}
		b := lines[shardOf(k)]
		if b == nil {
			b = &bytes.Buffer{}
			lines[shardOf(k)] = b
		}
		fmt.Fprintf(b, "%s %s %s\n", k, v, check(k, v))
	}
	for name, b := range lines {
		f, err := os.OpenFile(filepath.Join(c.dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(b.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
