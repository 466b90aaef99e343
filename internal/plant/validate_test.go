package plant_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/plant"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	tag := func(s string) *string { return &s }
	tests := []struct {
		name string
		p    plant.NewPlant
		want []string // "field rule" of every problem, in order
	}{
		{"valid", plant.NewPlant{ID: 1, Name: "Monstera", Tag: tag("indoor")}, nil},
		{"no tag", plant.NewPlant{Name: "Fern"}, nil},
		{"name of 256 code points", plant.NewPlant{Name: strings.Repeat("ü", 256)}, nil},
		{"name with inner and outer space", plant.NewPlant{Name: " a b "}, nil},
		{"C1 control characters are allowed", plant.NewPlant{Name: "a\u0085b"}, nil},
		{"empty name", plant.NewPlant{Name: ""}, []string{"name must be 1 to 256 characters"}},
		{"name of 257", plant.NewPlant{Name: strings.Repeat("a", 257)}, []string{"name must be 1 to 256 characters"}},
		{"blank name", plant.NewPlant{Name: " \t"}, []string{"name must not contain control characters"}},
		{"spaces only", plant.NewPlant{Name: "   "}, []string{"name must not be only white space"}},
		{"Unicode spaces only", plant.NewPlant{Name: "\u2003\u00a0\u3000"}, []string{"name must not be only white space"}},
		{"NUL", plant.NewPlant{Name: "a\x00"}, []string{"name must not contain control characters"}},
		{"unit separator", plant.NewPlant{Name: "a\x1f"}, []string{"name must not contain control characters"}},
		{"DEL", plant.NewPlant{Name: "a\x7f"}, []string{"name must not contain control characters"}},
		{"invalid UTF-8", plant.NewPlant{Name: "a\xff"}, []string{"name must be valid UTF-8"}},
		{"empty tag", plant.NewPlant{Name: "x", Tag: tag("")}, []string{"tag must be 1 to 64 characters"}},
		{"tag of 65", plant.NewPlant{Name: "x", Tag: tag(strings.Repeat("t", 65))}, []string{"tag must be 1 to 64 characters"}},
		{"blank tag is allowed", plant.NewPlant{Name: "x", Tag: tag(" ")}, nil},
		{"both", plant.NewPlant{Name: "", Tag: tag("a\nb")}, []string{"name must be 1 to 256 characters", "tag must not contain control characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			ve, ok := errors.AsType[*plant.ValidationError](err)
			if !ok || !errors.Is(err, plant.ErrInvalid) {
				t.Fatalf("Validate() = %v, want a *ValidationError matching ErrInvalid", err)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.String())
				if f.Fault != plant.BadValue {
					t.Errorf("%s: fault %d, want BadValue", f, f.Fault)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("problems = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidationErrorFaultIsTheHighestRanking(t *testing.T) {
	t.Parallel()
	e := &plant.ValidationError{Fields: []plant.FieldError{{Fault: plant.BadValue}, {Fault: plant.Missing}, {Fault: plant.WrongType}}}
	if e.Fault() != plant.Missing {
		t.Errorf("Fault() = %d, want Missing", e.Fault())
	}
}

func TestSame(t *testing.T) {
	t.Parallel()
	a, b := "a", "a"
	c := "c"
	tests := []struct {
		p, q plant.Plant
		want bool
	}{
		{plant.Plant{Name: "x"}, plant.Plant{Name: "x"}, true},
		{plant.Plant{Name: "x", Tag: &a}, plant.Plant{Name: "x", Tag: &b}, true},
		{plant.Plant{Name: "x", Tag: &a}, plant.Plant{Name: "x", Tag: &c}, false},
		{plant.Plant{Name: "x", Tag: &a}, plant.Plant{Name: "x"}, false},
		{plant.Plant{Name: "x"}, plant.Plant{Name: "X"}, false},
	}
	for _, tt := range tests {
		if got := tt.p.Same(tt.q); got != tt.want {
			t.Errorf("%+v.Same(%+v) = %v, want %v", tt.p, tt.q, got, tt.want)
		}
	}
}
