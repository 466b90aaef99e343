package gateway

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// Routing, as API Gateway routes and SAM CLI serves it:
//
//   - A path template's segments are literals, {name} (one segment, not
//     empty) and a last {name+} (greedy: one segment or more). The most
//     specific route wins: a literal segment beats a variable, which beats
//     a greedy variable, from the first segment on; an HTTP API's $default
//     takes what no route does ("Routing API requests" in the HTTP API
//     guide: a full match, then a greedy variable, then $default; SAM CLI's
//     Werkzeug rules rank the same, samcli/local/apigw/path_converter.py).
//   - A route takes its method, or every method of ANY (less the methods
//     another API's route won, samtemplate.APIs).
//   - Paths are case-sensitive, and one trailing slash is ignored
//     (/plants/1/ is /plants/1), as under SAM CLI (strict_slashes=False in
//     samcli/local/apigw/local_apigw_service.py create).
//   - Each segment is percent-decoded after the path is split, so a %2F
//     stays inside a path parameter ("API Gateway decodes URL-encoded
//     request parameters before passing them to your backend"); Werkzeug
//     decodes the whole path first, so SAM CLI answers /plants/a%2Fb with
//     403 where a {id} takes "a/b" here.

// compiled is a route ready to match.
type compiled struct {
	api      *api
	route    *samtemplate.Route
	segments []segment
	fallback bool // $default
}

type segment struct {
	literal string
	param   string // {param} or {param+}
	greedy  bool
}

// Specificity of a matched segment.
const (
	greedyScore = iota + 1
	paramScore
	literalScore
)

func compile(a *api, r *samtemplate.Route) *compiled {
	c := &compiled{api: a, route: r}
	if r.Path == samtemplate.DefaultRoute {
		c.fallback = true
		return c
	}
	for _, s := range splitPath(r.Path) {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			name := s[1 : len(s)-1]
			greedy := strings.HasSuffix(name, "+")
			c.segments = append(c.segments, segment{param: strings.TrimSuffix(name, "+"), greedy: greedy})
			continue
		}
		c.segments = append(c.segments, segment{literal: s})
	}
	return c
}

// splitPath splits a path on "/", without its leading slash and one
// trailing slash; "/" has no segments.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// match matches the request's segments (percent-encoded; trailing says
// whether the path ended with a slash) and returns the path parameters and
// the match's specificity, segment by segment.
func (c *compiled) match(segs []string, trailing bool) (map[string]string, []int, bool) {
	var params map[string]string
	score := make([]int, 0, len(c.segments))
	for i, s := range c.segments {
		if s.greedy {
			if i >= len(segs) {
				return nil, nil, false
			}
			rest := make([]string, len(segs)-i)
			for j, e := range segs[i:] {
				rest[j] = decode(e)
			}
			v := strings.Join(rest, "/")
			if trailing {
				v += "/"
			}
			if v == "" {
				return nil, nil, false
			}
			params = set(params, s.param, v)
			return params, append(score, greedyScore), true
		}
		if i >= len(segs) {
			return nil, nil, false
		}
		v := decode(segs[i])
		switch {
		case s.param != "":
			if v == "" {
				return nil, nil, false
			}
			params = set(params, s.param, v)
			score = append(score, paramScore)
		case v == s.literal:
			score = append(score, literalScore)
		default:
			return nil, nil, false
		}
	}
	if len(segs) != len(c.segments) {
		return nil, nil, false
	}
	return params, score, true
}

func set(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func decode(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

// matched is the route a request goes to: its API, the route and the path
// parameters; route is nil when none takes it, and api is then the API
// whose routes take the path with another method (it answers), or nil.
type matched struct {
	api    *api
	route  *samtemplate.Route
	params map[string]string
}

// match finds the most specific route that takes r.
func (g *Gateway) match(r *http.Request) matched {
	escaped := r.URL.EscapedPath()
	trailing := len(escaped) > 1 && strings.HasSuffix(escaped, "/")
	segs := splitPath(escaped)
	var best matched
	var bestScore []int
	var fallback *compiled
	var pathOwner *api
	for _, c := range g.routes {
		if c.fallback {
			if fallback == nil && c.route.Takes(r.Method) {
				fallback = c
			}
			continue
		}
		params, score, ok := c.match(segs, trailing)
		if !ok {
			continue
		}
		if !c.route.Takes(r.Method) {
			if pathOwner == nil {
				pathOwner = c.api
			}
			continue
		}
		if best.route == nil || slices.Compare(score, bestScore) > 0 {
			best, bestScore = matched{api: c.api, route: c.route, params: params}, score
		}
	}
	switch {
	case best.route != nil:
		return best
	case fallback != nil:
		// The $default route gets no path parameters (SAM CLI sends
		// {"any_path": ...}, which API Gateway does not).
		return matched{api: fallback.api, route: fallback.route}
	}
	return matched{api: pathOwner}
}
