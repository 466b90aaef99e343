// Package logging reads LOG_LEVEL, the one logging setting that the Lambda
// functions and the local API share.
package logging

import (
	"fmt"
	"log/slog"
)

// ParseLevel reads a LOG_LEVEL value: debug, info, warn or error, in any
// case; "" is info.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if s == "" {
		return l, nil
	}
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", s)
	}
	return l, nil
}
