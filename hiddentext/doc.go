// Package hiddentext finds and removes text that a person reading a description does not see
// but a model does: invisible and deceptive characters, terminal escape sequences and HTML
// comments. It is for every description, title and instructions text that an MCP server or a
// skill hands to agentpool on its way to a model. It imports the standard library only.
//
//	clean, found := hiddentext.Sanitize(tool.Description)
//	for _, f := range found {
//		log.Print(f) // "tag at 12 (4 bytes): spells \"hi\""
//	}
//
// The classes, and what each covers (Scan reports them; Sanitize removes them):
//
//   - ClassZeroWidth: U+200B, U+200C, U+200D, U+2060, U+FEFF and U+180E, and the invisible
//     Hangul fillers U+115F, U+1160, U+3164, U+FFA0.
//   - ClassBidi: the bidirectional controls U+202A–U+202E (embeddings, overrides), U+2066–U+2069
//     (isolates), U+200E, U+200F and U+061C (marks). Right-to-left letters (Arabic, Hebrew) are
//     text, never a finding.
//   - ClassTag: Unicode tag characters U+E0000–U+E007F. A run of them is one finding whose
//     Hidden field is the ASCII the run spells: the message a model reads and a person does not.
//   - ClassFormat: every other format character (general category Cf: U+00AD soft hyphen,
//     U+2061–U+2064, U+FFF9–U+FFFB, …), the other default-ignorable code points a font draws as
//     nothing (U+034F, U+17B4, U+17B5, and the unassigned U+2065, U+FFF0–U+FFF8,
//     U+E0080–U+E00FF, U+E01F0–U+E0FFF), a Mongolian free variation selector (U+180B–U+180D,
//     U+180F) after anything but a Mongolian letter, and a variation selector that follows no
//     base character (see below).
//   - ClassControl: C0 controls but "\n", "\t" and the "\r" of a "\r\n" (a lone "\r" can
//     overwrite a line on a terminal), DEL, and C1 controls.
//   - ClassEscape: a whole terminal escape sequence: ESC [ or C1 CSI up to its final byte; OSC,
//     DCS, SOS, PM and APC (ESC ] P X ^ _ or their C1 forms) up to BEL or ST, or the end of the
//     text; ESC and one more character otherwise. The sequence is one finding and is removed
//     whole, so that no parameter or title text is left behind.
//   - ClassHTMLComment: "<!--" up to and with the next "-->", or to the end of the text when
//     none follows (a Markdown renderer hides it from a reader all the same).
//
// What stays, because real text needs it (each decided on the character before and after,
// never on a guess about intent):
//
//   - U+200D (zero width joiner) between two emoji: the rune before it, past any variation
//     selector and skin-tone modifier, and the rune after it are emoji (👩‍💻, 🏳️‍🌈).
//   - U+200C and U+200D between two letters or marks of one script that shapes with joining
//     controls: Arabic (Persian's ZWNJ in "می‌خواهم"), Syriac, N'Ko, Mongolian and the Brahmic
//     scripts (Devanagari, Bengali, …, Sinhala, Khmer, Myanmar, Tibetan).
//   - A variation selector directly after a base character (a letter, digit, symbol or
//     punctuation, not a space, mark, control or format character): U+FE0E and U+FE0F choose
//     text or emoji presentation (❤️), U+FE00–U+FE0D choose standardized glyph variants, and
//     U+E0100–U+E01EF only after a Han ideograph (ideographic variation sequences). A second
//     selector in a row is a finding: a run of selectors is how bytes are smuggled after an
//     emoji.
//   - Tag characters that spell an emoji subdivision flag: after U+1F3F4, a subdivision code
//     in tags (two lowercase letters, then one to four lowercase letters or digits) ended by
//     U+E007F CANCEL TAG (🏴󠁧󠁢󠁥󠁮󠁧󠁿, England). A longer run is a finding.
//
// Sanitize removes every finding and scans again until nothing is found, since a removal can
// bring two parts together into a new finding (a zero width space inside "<!-\u200b-"). Its
// result therefore has no findings, and Sanitize of it returns it unchanged. Invalid UTF-8 is
// left as it is: it is not a hidden character, and JSON turns it into U+FFFD anyway.
//
// SanitizeSchema does the same for every string inside a JSON schema (a tool's input or
// output schema), key or value: descriptions and titles, enum, const, default and examples
// values, property names and the names a required list holds. It leaves every other byte as it
// was. Policy names what a
// consumer does with a definition that holds hidden text: PolicySanitize (remove it, report)
// or PolicyBlock (leave the definition out, report); package view applies it.
//
// Rationale: docs/design/hiddentext.md.
package hiddentext
