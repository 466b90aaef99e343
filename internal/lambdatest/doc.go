// Package lambdatest is what tests share to run the functions' bootstraps,
// as net/http/httptest is net/http's: Bootstrap and DebugBootstrap (the
// binaries built by the Makefile's SAM targets), Launch and Invoke for one
// function on a Runtime API of its own (internal/lambdaemu), InitFails,
// Event (the events of events/) and Golden. Only tests import it.
package lambdatest
