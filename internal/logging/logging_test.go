package logging

import (
	"log/slog"
	"testing"
)

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"", slog.LevelInfo, false},
		{"debug", slog.LevelDebug, false},
		{"WARN", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"verbose", slog.LevelInfo, true},
		{"info+2", slog.LevelInfo + 2, false}, // slog's own offset syntax
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseLevel(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseLevel(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
