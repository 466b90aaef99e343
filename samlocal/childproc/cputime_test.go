package childproc

import (
	"crypto/sha256"
	"runtime"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       time.Duration
		wantErr    bool
	}{
		{"plain", "4242 (localapi) S 1 4242 4242 0 -1 4194560 1017 0 0 0 150 37 0 0 20 0 9 0 123 0 0", 1870 * time.Millisecond, false},
		{"a name with spaces and parentheses", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", 70 * time.Millisecond, false},
		{"no name", "7 a R 1 7 7 0 -1 0 0 0 0 0 3 4", 0, true},
		{"cut short", "7 (a) R 1 7 7 0 -1 0 0 0 0 0 3", 0, true},
		{"not a number", "7 (a) R 1 7 7 0 -1 0 0 0 0 0 x 4 0", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("parseStat(%q) = %v, %v; want %v, error %v", tt.line, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestCPUTimeGrows burns CPU in this process until /proc shows it: the count
// of work, not the clock, bounds the test.
func TestCPUTimeGrows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	start, err := CPUTime(0)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(nil)
	for i := 0; i < 50_000_000; i++ { // seconds of CPU at most; a 10 ms tick comes long before
		sum = sha256.Sum256(sum[:])
		if i%10_000 != 0 {
			continue
		}
		now, err := CPUTime(0)
		if err != nil {
			t.Fatal(err)
		}
		if now > start {
			return
		}
	}
	t.Fatalf("CPU time stayed at %v after 50,000,000 hashes", start)
}
