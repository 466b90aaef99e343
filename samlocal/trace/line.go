package trace

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// Line is the request's one line on the terminal: the time, the request,
// the answer (status, Error code, the gateway response or the outcome) and
// its duration, then each step as a waterfall: where it began after the
// request's start (+), how long it took, and what it found. For example:
//
//	12:04:05 POST /plants 200 created 48ms | route +0ms POST /plants | authorizer +0ms 12ms cache miss, allowed | CreatePlantFunction +12ms 35ms cold, init 21ms | DynamoDB PutItem +40ms 3ms condition held
//
// Its parts come from the request (the method, the path as decoded: %1b
// is ESC) and from what answered it (a principal, a function's error
// message), so the line is escaped whole (Escape).
func Line(t *Trace) string { return termsafe.Escape(line(t)) }

func line(t *Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %d", t.Start.Format("15:04:05"), t.Method, t.Path, t.Status)
	if t.Code != 0 {
		fmt.Fprintf(&b, " error %d", t.Code)
	}
	if t.Answer != "" {
		fmt.Fprintf(&b, " %s", t.Answer)
	}
	fmt.Fprintf(&b, " %s", ms(t.Took))
	for _, s := range t.Steps {
		fmt.Fprintf(&b, " | %s +%s", s.Name, ms(s.Start))
		if s.Took > 0 {
			fmt.Fprintf(&b, " %s", ms(s.Took))
		}
		if s.Detail != "" {
			fmt.Fprintf(&b, " %s", s.Detail)
		}
	}
	return b.String()
}

// ms is d in milliseconds: two decimals below 1 ms, one below 10 ms.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	if m < 1 {
		return fmt.Sprintf("%.2fms", m)
	}
	if m < 10 {
		return fmt.Sprintf("%.1fms", m)
	}
	return fmt.Sprintf("%.0fms", m)
}

// errorCode is the "error" of an Error body, 0 for any other body.
func errorCode(body []byte) int {
	var e struct {
		Error int `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0
	}
	return e.Error
}
