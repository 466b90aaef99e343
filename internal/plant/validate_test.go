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
		{"emoji ZWJ sequence", plant.NewPlant{Name: "\U0001F469\u200D\U0001F33E"}, nil},
		{"variation selector", plant.NewPlant{Name: "\u2764\uFE0F"}, nil},
		{"combining mark", plant.NewPlant{Name: "e\u0301"}, nil},
		{"ZWNJ inside Persian", plant.NewPlant{Name: "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"}, nil},
		{"a lone mark is visible", plant.NewPlant{Name: "\u0301"}, nil},
		{"replacement character", plant.NewPlant{Name: "\uFFFD"}, nil},
		{"empty name", plant.NewPlant{Name: ""}, []string{"name must be 1 to 256 characters"}},
		{"name of 257", plant.NewPlant{Name: strings.Repeat("a", 257)}, []string{"name must be 1 to 256 characters"}},
		{"tab", plant.NewPlant{Name: " \t"}, []string{"name must not contain U+0009 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"spaces only", plant.NewPlant{Name: "   "}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"Unicode spaces only", plant.NewPlant{Name: "\u2003\u00a0\u3000"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"zero width space only", plant.NewPlant{Name: "\u200B"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"joiners only", plant.NewPlant{Name: "\u200C\u200D"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: HANGUL FILLER", plant.NewPlant{Name: "\u3164"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: HALFWIDTH HANGUL FILLER", plant.NewPlant{Name: "\uFFA0"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: Hangul choseong filler", plant.NewPlant{Name: "\u115F"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: Hangul jungseong filler", plant.NewPlant{Name: "\u1160"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: braille blank x256", plant.NewPlant{Name: "" + strings.Repeat("\u2800", 256) + ""}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: combining grapheme joiner x256", plant.NewPlant{Name: "" + strings.Repeat("\u034F", 256) + ""}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: variation selectors alone", plant.NewPlant{Name: "\uFE0F\uFE00\U000E0100"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: Khmer inherent vowel", plant.NewPlant{Name: "\u17B4"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: soft hyphen", plant.NewPlant{Name: "\u00AD"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: musical null notehead", plant.NewPlant{Name: "\U0001D159"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: Egyptian hieroglyph full and half blank", plant.NewPlant{Name: "\U00013441\U00013442"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: Khitan small script filler", plant.NewPlant{Name: "\U00016FE4"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible: ideographic half fill space", plant.NewPlant{Name: "\u303F\u3000\u303F"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible tag: null noteheads", plant.NewPlant{Name: "x", Tag: tag("\U0001D159\U0001D159")}, []string{"tag must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"a blank glyph beside a letter", plant.NewPlant{Name: "\U0001D159a\U00016FE4"}, nil},
		{"invisible: fillers and spaces", plant.NewPlant{Name: "\u3164 \u3164"}, []string{"name must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"invisible tag", plant.NewPlant{Name: "x", Tag: tag("\u3164")}, []string{"tag must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"a filler beside a letter", plant.NewPlant{Name: "a\u3164"}, nil},
		{"NUL", plant.NewPlant{Name: "a\x00"}, []string{"name must not contain U+0000 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"unit separator", plant.NewPlant{Name: "a\x1f"}, []string{"name must not contain U+001F (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"DEL", plant.NewPlant{Name: "a\x7f"}, []string{"name must not contain U+007F (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"C1 NEL", plant.NewPlant{Name: "a\u0085b"}, []string{"name must not contain U+0085 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"C1 CSI", plant.NewPlant{Name: "a\u009Bb"}, []string{"name must not contain U+009B (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"line separator", plant.NewPlant{Name: "a\u2028b"}, []string{"name must not contain U+2028 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"paragraph separator", plant.NewPlant{Name: "a\u2029b"}, []string{"name must not contain U+2029 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"arabic letter mark", plant.NewPlant{Name: "a\u061Cb"}, []string{"name must not contain U+061C (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"LRM", plant.NewPlant{Name: "a\u200Eb"}, []string{"name must not contain U+200E (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"RLM", plant.NewPlant{Name: "a\u200Fb"}, []string{"name must not contain U+200F (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"RLO override", plant.NewPlant{Name: "a\u202Eb"}, []string{"name must not contain U+202E (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"LRE embedding", plant.NewPlant{Name: "a\u202Ab"}, []string{"name must not contain U+202A (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"FSI isolate", plant.NewPlant{Name: "a\u2068b"}, []string{"name must not contain U+2068 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"PDI isolate", plant.NewPlant{Name: "a\u2069b"}, []string{"name must not contain U+2069 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"byte-order mark", plant.NewPlant{Name: "\uFEFFa"}, []string{"name must not contain U+FEFF (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"noncharacter FDD0", plant.NewPlant{Name: "a\uFDD0"}, []string{"name must not contain U+FDD0 (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"noncharacter FFFE", plant.NewPlant{Name: "a\uFFFE"}, []string{"name must not contain U+FFFE (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"noncharacter 10FFFF", plant.NewPlant{Name: "a\U0010FFFF"}, []string{"name must not contain U+10FFFF (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"invalid UTF-8", plant.NewPlant{Name: "a\xff"}, []string{"name must be valid UTF-8"}},
		{"empty tag", plant.NewPlant{Name: "x", Tag: tag("")}, []string{"tag must be 1 to 64 characters"}},
		{"tag of 65", plant.NewPlant{Name: "x", Tag: tag(strings.Repeat("t", 65))}, []string{"tag must be 1 to 64 characters"}},
		{"blank tag", plant.NewPlant{Name: "x", Tag: tag(" ")}, []string{"tag must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"}},
		{"tag with a bidi override", plant.NewPlant{Name: "x", Tag: tag("\u202Etxt")}, []string{"tag must not contain U+202E (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
		{"both", plant.NewPlant{Name: "", Tag: tag("a\nb")}, []string{"name must be 1 to 256 characters", "tag must not contain U+000A (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)"}},
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
