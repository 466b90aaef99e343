package figures

import "strings"

// span is a byte range [start, end) of a document.
type span struct{ start, end int }

func (s span) contains(i int) bool { return s.start <= i && i < s.end }

func inAny(spans []span, i int) bool {
	for _, s := range spans {
		if s.contains(i) {
			return true
		}
	}
	return false
}

// codeSpans is where a Markdown document holds code: fenced blocks (``` or
// ~~~, their fence lines included) and inline code spans (a run of n
// backticks up to the next run of exactly n, within a paragraph). What is
// code is literal text, never a marker and never prose.
func codeSpans(doc string) []span {
	var spans []span
	var (
		inFence   bool
		fenceChar byte
		fenceLen  int
		fenceFrom int
		paraFrom  = -1
	)
	endPara := func(at int) {
		if paraFrom >= 0 {
			spans = append(spans, inlineCode(doc, paraFrom, at)...)
			paraFrom = -1
		}
	}
	for off := 0; off < len(doc); {
		end := strings.IndexByte(doc[off:], '\n')
		if end < 0 {
			end = len(doc)
		} else {
			end += off + 1
		}
		line := strings.TrimSpace(doc[off:end])
		switch {
		case inFence:
			if n := run(line, fenceChar); n >= fenceLen && n == len(line) {
				spans = append(spans, span{fenceFrom, end})
				inFence = false
			}
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			endPara(off)
			inFence, fenceChar, fenceLen, fenceFrom = true, line[0], run(line, line[0]), off
		case line == "":
			endPara(off)
		default:
			if paraFrom < 0 {
				paraFrom = off
			}
		}
		off = end
	}
	if inFence {
		spans = append(spans, span{fenceFrom, len(doc)})
	}
	endPara(len(doc))
	return spans
}

// run is the number of c that s starts with.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// inlineCode is the code spans of the paragraph doc[from:to].
func inlineCode(doc string, from, to int) []span {
	var spans []span
	for i := from; i < to; {
		switch doc[i] {
		case '\\':
			i += 2
			continue
		case '`':
		default:
			i++
			continue
		}
		n := run(doc[i:to], '`')
		closed := false
		for j := i + n; j < to; {
			if doc[j] != '`' {
				j++
				continue
			}
			m := run(doc[j:to], '`')
			if m == n {
				spans = append(spans, span{i, j + m})
				i, closed = j+m, true
				break
			}
			j += m
		}
		if !closed {
			i += n
		}
	}
	return spans
}

// commentSpans is the HTML comments of doc outside code.
func commentSpans(doc string, code []span) []span {
	var spans []span
	for i := 0; ; {
		j := strings.Index(doc[i:], "<!--")
		if j < 0 {
			return spans
		}
		j += i
		if inAny(code, j) {
			i = j + 4
			continue
		}
		k := strings.Index(doc[j+4:], "-->")
		if k < 0 {
			return append(spans, span{j, len(doc)})
		}
		end := j + 4 + k + 3
		spans = append(spans, span{j, end})
		i = end
	}
}

// lineOf is the 1-based line of byte i of doc.
func lineOf(doc string, i int) int { return 1 + strings.Count(doc[:i], "\n") }

// blank returns doc with the bytes of spans turned into spaces, newlines
// kept, so that offsets and lines stay those of doc.
func blank(doc string, spans ...[]span) string {
	b := []byte(doc)
	for _, ss := range spans {
		for _, s := range ss {
			for i := s.start; i < s.end; i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
		}
	}
	return string(b)
}
