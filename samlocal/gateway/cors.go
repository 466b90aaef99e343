package gateway

import (
	"net/http"
	"slices"
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// CORS as SAM CLI serves it (samcli/lib/providers/provider.py
// Cors.cors_to_headers; samcli/local/apigw/local_apigw_service.py
// _request_handler): a preflight OPTIONS on a path of an API with CORS is
// answered 200 by the gateway, without the function or an authorizer; the
// headers go on every answer of the function too, replacing the function's.
// A REST API sends its headers whatever the Origin; an HTTP API only to a
// request with an Origin among its AllowOrigins (or any, for *), as API
// Gateway's HTTP APIs do ("Configuring CORS for an HTTP API"). API Gateway
// itself adds a REST API's CORS headers to the preflight alone (the SAM
// translator's OPTIONS mock): a REST function must also return them,
// which under SAM CLI and here it need not.

// corsHeaders are the CORS headers for a request from origin ("" for none).
func corsHeaders(c *samtemplate.Cors, httpAPI bool, origin string) map[string]string {
	if c == nil {
		return nil
	}
	h := map[string]string{}
	switch {
	case !httpAPI:
		if c.AllowOrigin != "" {
			h["Access-Control-Allow-Origin"] = c.AllowOrigin
		}
	case origin == "":
		return nil
	default:
		var origins []string
		for _, o := range strings.Split(c.AllowOrigin, ",") {
			origins = append(origins, strings.TrimSpace(o))
		}
		switch {
		case slices.Contains(origins, "*"):
			h["Access-Control-Allow-Origin"] = "*"
		case slices.Contains(origins, origin):
			h["Access-Control-Allow-Origin"] = origin
		default:
			return nil
		}
		if c.ExposeHeaders != "" {
			h["Access-Control-Expose-Headers"] = c.ExposeHeaders
		}
	}
	for k, v := range map[string]string{
		"Access-Control-Allow-Methods": c.AllowMethods, "Access-Control-Allow-Headers": c.AllowHeaders,
		"Access-Control-Allow-Credentials": c.AllowCredentials, "Access-Control-Max-Age": c.MaxAge,
	} {
		if v != "" {
			h[k] = v
		}
	}
	return h
}

// preflight answers an OPTIONS request of an API with CORS: 200, an empty
// body and the CORS headers (none for an HTTP API's request from an origin
// it does not allow).
func preflight(w http.ResponseWriter, r *http.Request, a *api, c *samtemplate.Cors) {
	for k, v := range corsHeaders(c, a.HTTP, r.Header.Get("Origin")) {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}
