package glyph_test

import (
	"fmt"
	"testing"

	"github.com/plantstore/plantstore/internal/glyph"
)

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		class string
		runes []rune
		want  bool
	}{
		{"letters, marks, numbers, punctuation, symbols", []rune{'a', 'Ж', '木', 'ß', '7', '٣', '!', '«', '€', '🌱', 0x0301, 0x0E31}, true},
		{"Hangul syllables and compatibility jamo that draw", []rune{'한', 0x3131, 0x1100}, true},
		{"White_Space", []rune{' ', 0x00A0, 0x1680, 0x2000, 0x200A, 0x202F, 0x205F, 0x3000}, false},
		{"Hangul fillers (Other_Default_Ignorable, Lo)", []rune{0x115F, 0x1160, 0x3164, 0xFFA0}, false},
		{"combining grapheme joiner and Khmer inherent vowels (Other_Default_Ignorable, Mn)", []rune{0x034F, 0x17B4, 0x17B5}, false},
		{"variation selectors (Mn)", []rune{0xFE00, 0xFE0F, 0x180B, 0x180F, 0xE0100, 0xE01EF}, false},
		{"format characters (Cf)", []rune{0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0xE0001}, false},
		{"blank glyphs", []rune{0x2800, 0x303F, 0x13441, 0x13442, 0x16FE4, 0x1D159}, false},
		{"braille that draws", []rune{0x2801, 0x28FF}, true},
		{"neighbours of the blank glyphs that draw", []rune{0x303E, 0x13440, 0x13443, 0x16FE3, 0x1D158, 0x1D15A}, true},
		{"controls and unassigned", []rune{0x0000, 0x001F, 0x007F, 0x0085, 0x0378}, false},
	}
	for _, tt := range tests {
		for _, r := range tt.runes {
			t.Run(fmt.Sprintf("%s U+%04X", tt.class, r), func(t *testing.T) {
				if got := glyph.Visible(r); got != tt.want {
					t.Errorf("Visible(U+%04X) = %v, want %v", r, got, tt.want)
				}
			})
		}
	}
}

// The exceptions of the derivation: format characters that Unicode keeps
// visible are not Default_Ignorable.
func TestDefaultIgnorableExceptions(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0xFFF9, 0xFFFB, 0x13430, 0x1343F, 0x0600, 0x06DD, 0x110BD, ' ', 'a'} {
		if glyph.DefaultIgnorable(r) {
			t.Errorf("DefaultIgnorable(U+%04X) = true, want false", r)
		}
	}
	for _, r := range []rune{0x00AD, 0x034F, 0x061C, 0x115F, 0x180E, 0x200B, 0x2065, 0x3164, 0xFE0F, 0xFFA0, 0x1BCA0, 0xE0000, 0xE0FFF} {
		if !glyph.DefaultIgnorable(r) {
			t.Errorf("DefaultIgnorable(U+%04X) = false, want true", r)
		}
	}
}

func TestAnyVisible(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"Monstera":                  true,
		"👩‍👩‍👧":                     true, // ZWJ sequence: joiners between visible pictographs
		"❤️":                        true, // U+2764 U+FE0F
		"e\u0301":                   true,
		"":                          false,
		"   ":                       false,
		"\u3164":                    false,
		"\u2800\u2800\u2800":        false,
		"\U0001D159\u303F ":         false,
		"\U00013441\U00013442":      false,
		"\U00016FE4\U00016FE4":      false,
		"a\U0001D159":               true,
		"\u034F\u034F":              false,
		"\uFE0F":                    false,
		"\u200B\u200D":              false,
		"\u115F\u1160\uFFA0\u17B4 ": false,
	}
	for s, want := range tests {
		if got := glyph.AnyVisible(s); got != want {
			t.Errorf("AnyVisible(%+q) = %v, want %v", s, got, want)
		}
	}
}
