package devserver

import (
	"regexp"
	"strings"
)

// Banner gathers what a server prints when it starts, as `make run` and
// `make start-api` print it: a line "... listening on http://HOST:PORT ...",
// and a line "Token ...:" followed by the token on a line of its own.
type Banner struct {
	URL, Token string
	tokenNext  bool
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// Line takes one line of the server's output.
func (b *Banner) Line(line string) {
	if m := listening.FindStringSubmatch(line); m != nil {
		b.URL = m[1]
	}
	if b.tokenNext {
		b.Token, b.tokenNext = strings.TrimSpace(line), false
	}
	b.tokenNext = b.tokenNext || strings.HasPrefix(line, "Token")
}

// Complete says whether the banner has its URL and, when wantToken, its token.
func (b *Banner) Complete(wantToken bool) bool {
	return b.URL != "" && (!wantToken || b.Token != "")
}
