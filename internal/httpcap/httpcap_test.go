package httpcap

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTransportStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, strings.Repeat("x", 11))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		limit int64
		fail  bool
	}{{11, false}, {10, true}} {
		resp, err := (&http.Client{Transport: Transport(http.DefaultTransport, tc.limit)}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var tooLarge *http.MaxBytesError
		if tc.fail != errors.As(err, &tooLarge) || (!tc.fail && len(b) != 11) {
			t.Errorf("limit %d: read %d bytes, error %v", tc.limit, len(b), err)
		}
	}
}
