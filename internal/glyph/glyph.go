// Package glyph says which characters a person can see: the rule behind
// "at least one visible character" in plant names and tags and in a token's
// subject. It reads Unicode's own properties from the standard library's
// tables, so it moves with Go's Unicode version. It also says which JSON
// escapes name no character at all (LoneSurrogate), the rule that request
// bodies and token claims share.
//
// Why not golang.org/x/text/secure/precis: its FreeformClass (RFC 8264) and
// Nickname profile (RFC 8266) are made for this kind of human-typed name, but
// they disallow every Default_Ignorable_Code_Point and admit U+200D only after
// a virama, so emoji sequences (U+200D between pictographs, U+FE0F after
// one) would be refused, and the Nickname profile maps what it keeps (NFKC,
// spaces), which would change what is stored. They also allow U+2800. What
// is taken from them is the idea: invisible code points are defined by
// Unicode's properties, not by a hand-made list; only the few glyphs drawn
// blank that no property marks are listed by hand (blanks), each with its
// reason.
package glyph

import (
	"slices"
	"unicode"
)

// Visible reports whether r shows as a mark a reader can see: a letter, mark,
// number, punctuation or symbol (general categories L, M, N, P, S) that is
// neither White_Space nor Default_Ignorable_Code_Point nor one of the blank
// glyphs that Unicode's properties miss (see blanks).
func Visible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) &&
		!unicode.Is(unicode.White_Space, r) && !DefaultIgnorable(r) && !blank(r)
}

// AnyVisible reports whether s holds at least one visible character.
func AnyVisible(s string) bool {
	for _, r := range s {
		if Visible(r) {
			return true
		}
	}
	return false
}

// DefaultIgnorable reports whether r has Unicode's derived property
// Default_Ignorable_Code_Point, computed as DerivedCoreProperties.txt states
// it: Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
// - White_Space - U+FFF9..U+FFFB - U+13430..U+1343F - Prepended_Concatenation_Mark.
// Among them: U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B..U+180F,
// U+200B..U+200F, U+2060..U+206F, U+3164, U+FE00..U+FE0F, U+FEFF, U+FFA0,
// U+1BCA0..U+1BCA3, U+E0000..U+E0FFF.
func DefaultIgnorable(r rune) bool {
	switch {
	case unicode.Is(unicode.White_Space, r),
		0xFFF9 <= r && r <= 0xFFFB,
		0x13430 <= r && r <= 0x1343F,
		unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector)
}

// blanks are the glyphs that are drawn empty although Unicode's properties
// count them as visible: each is a letter, mark or symbol that is neither
// White_Space nor Default_Ignorable_Code_Point (DerivedCoreProperties.txt),
// so no property refuses it and only this list can. A test checks that
// every entry is still needed, so that the list never grows past what
// Unicode's data leaves out.
var blanks = [...]rune{
	// BRAILLE PATTERN BLANK (So): the braille cell with no dot raised; fonts
	// draw an empty cell, and it is a known stand-in for a space in names.
	0x2800,
	// IDEOGRAPHIC HALF FILL SPACE (So): marks the room of half an ideograph
	// in CJK layout and is drawn as empty room, yet it is not White_Space.
	0x303F,
	// EGYPTIAN HIEROGLYPH FULL BLANK and HALF BLANK (Lo, Unicode 15.0): an
	// empty full-size and half-size quadrat in hieroglyphic text; letters
	// by category, blank on the page.
	0x13441, 0x13442,
	// KHITAN SMALL SCRIPT FILLER (Mn, Unicode 13.0): an invisible layout
	// sign after the first character of a Khitan character cluster, which
	// then sets one character on the cluster's first line; no ink of its own,
	// but a mark by category, and a mark is Default_Ignorable only as a
	// variation selector or in Other_Default_Ignorable_Code_Point, and it is
	// in neither.
	0x16FE4,
	// MUSICAL SYMBOL NULL NOTEHEAD (So): a notehead drawn as nothing, which
	// holds the place of a note (a stem without a head).
	0x1D159,
}

// blank reports whether r is one of the blanks.
func blank(r rune) bool { return slices.Contains(blanks[:], r) }

// Refused reports whether r may never stand in a name, a tag or a token's
// subject: control
// characters (Cc), the line and paragraph separators U+2028 and U+2029, the
// bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
// U+2066-U+2069), the byte-order mark U+FEFF, and noncharacters
// (U+FDD0-U+FDEF and U+xxFFFE, U+xxFFFF). Joiners, variation selectors and
// combining marks are not refused: emoji sequences and many scripts need them.
func Refused(r rune) bool {
	switch {
	case unicode.Is(unicode.Cc, r):
		return true
	case r == 0x2028, r == 0x2029, r == 0xFEFF:
		return true
	case r == 0x061C, r == 0x200E, r == 0x200F, 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return true
	case 0xFDD0 <= r && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return true
	}
	return false
}
