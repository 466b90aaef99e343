package main

import "testing"

func TestParseInitTrace(t *testing.T) {
	out := "init runtime @0.39 ms, 0.20 ms clock, 0 bytes, 0 allocs\n" +
		"some output of the function\n" +
		"init github.com/aws/aws-sdk-go-v2/service/dynamodb/internal/endpoints @10 ms, 0.61 ms clock, 82752 bytes, 687 allocs\n" +
		"init net/http @9.4 ms, 0.26 ms clock, 4872 bytes, 50 allocs\n"
	got, err := parseInitTrace(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := (initTrace{bytes: 87624, allocs: 737}); got != want {
		t.Errorf("parseInitTrace = %+v, want %+v", got, want)
	}
	if _, err := parseInitTrace("no trace here\n"); err == nil {
		t.Error("output without inittrace lines: no error")
	}
}
