package glyph

import (
	"testing"
	"unicode"
)

// TestBlanksAreOnlyWhatPropertiesMiss holds the list of blank glyphs to its
// reason: every entry is a letter, mark, number, punctuation or symbol that is
// neither White_Space nor Default_Ignorable_Code_Point, so Unicode's data
// alone would count it visible. An entry that a newer Unicode (a newer Go)
// classes as invisible is to be dropped from the list, not kept twice.
func TestBlanksAreOnlyWhatPropertiesMiss(t *testing.T) {
	t.Parallel()
	seen := map[rune]bool{}
	for _, r := range blanks {
		if seen[r] {
			t.Errorf("U+%04X is listed twice", r)
		}
		seen[r] = true
		if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
			t.Errorf("U+%04X is not in L, M, N, P or S (Unicode %s): the categories already refuse it; drop it from blanks", r, unicode.Version)
		}
		if unicode.Is(unicode.White_Space, r) || DefaultIgnorable(r) {
			t.Errorf("U+%04X is White_Space or Default_Ignorable (Unicode %s): the properties already refuse it; drop it from blanks", r, unicode.Version)
		}
		if Visible(r) {
			t.Errorf("Visible(U+%04X) = true, want false for a listed blank", r)
		}
	}
	// The list is the design's, and no longer.
	for _, r := range []rune{0x2800, 0x303F, 0x13441, 0x13442, 0x16FE4, 0x1D159} {
		if !seen[r] {
			t.Errorf("U+%04X is missing from blanks", r)
		}
	}
	if len(blanks) != 6 {
		t.Errorf("%d blanks, want 6: a new entry needs its reason beside it and a line in the design", len(blanks))
	}
}
