// Package toolsearch ranks the tools and skills a session can see against a request written in
// words, so that a client can be served a search tool instead of every tool in full.
//
// A Doc is what is known of one tool or skill (its name, title, description, parameter names
// and descriptions, its server's name and instructions). An Index holds the docs of every
// server, one set per server (skills under the server ""), and is immutable once built:
// Search is safe for concurrent use, and With returns a new Index with one server's docs
// replaced that shares every other server's postings, so a hot-reloaded server re-indexes only
// itself and sessions that see the same tools share one Index.
//
// With copies the docs it is given, and the *Doc of a Hit is the Index's copy, which the
// caller must not change. Of docs with the same Key in one With, the
// last is kept. The first Search of an Index merges its servers' word lists into one table
// (references to the shared postings, not a re-index), once; later searches look a word up
// once, whatever the number of servers.
//
// Search scores with BM25F: each field has a weight and a length normalisation, the term
// frequencies of a doc's fields are combined before saturation, and the inverse document
// frequency is computed over every server the Index holds (so a term's weight does not depend
// on the Options' filters). Names are split at underscores, dots, dashes, slashes and case
// changes ("browser_take_screenshot", "getFileContents", "fs.read"), words are lower-cased and
// lightly stemmed (plural and verb endings), a small table of synonyms adds related words to a
// query at a lower weight (as does a word that looks like a web address or a file name), and
// common English words are ignored; an identifier split at case changes also counts whole
// ("GitHub" meets "github"). Nothing is downloaded and no model is used. The design note
// (docs/design/toolsearch.md) gives the measured recall and latency.
package toolsearch
