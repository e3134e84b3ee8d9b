package toolsearch

import (
	"strings"
	"unicode"
)

// words splits s into lower-cased, stemmed words, without the common English words that carry
// no meaning for a search. A word ends at any rune that is not a letter or a digit, and at a
// change of case inside an identifier: "getFileContents" is get, file, contents, and
// "HTTPServer" is http, server.
//
// An identifier split at case changes also yields itself whole ("GitHub" is git, hub and
// github), so that it meets the same name written in one case ("github").
func words(s string, out []string) []string {
	var cur []rune
	start, parts := 0, 0 // where the identifier began in rs, and how many words it gave
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.ToLower(string(cur))
		cur = cur[:0]
		parts++
		if stopWords[w] {
			return
		}
		out = append(out, stem(w))
	}
	rs := []rune(s)
	whole := func(end int) {
		flush()
		if parts > 1 {
			out = append(out, stem(strings.ToLower(string(rs[start:end]))))
		}
		start, parts = end+1, 0
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			whole(i)
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	whole(len(rs))
	return out
}

// stem removes the plural and verb endings of an English word, lightly: the aim is that
// "screenshots", "creating", "created" and "create" meet, not a full Porter stemmer (whose
// extra reach costs precision on the short texts of tool descriptions). Words of three
// letters or fewer, and words with anything but ASCII letters, are kept as they are.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4 && !strings.HasSuffix(w, "eed") && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// hasVowel reports whether w has a vowel: "string" has no stem "str".
func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }

// undouble drops the last of a doubled final consonant ("runn" is run, "stopp" is stop), but
// keeps ll, ss and zz ("fill", "pass").
func undouble(w string) string {
	n := len(w)
	if n < 3 || w[n-1] != w[n-2] {
		return w
	}
	switch w[n-1] {
	case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
		return w
	}
	return w[:n-1]
}

// stopWords are English words too common in requests and descriptions to tell tools apart.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on for with by at from as into onto
		is are be been was were it its this that these those there here
		i me my we our you your he she his her they them their
		can could would should will shall may might must do does did done
		please want need let lets just also then than so if else
		what which who whom whose how when where why
		some any all each every very much many more most
		about over under up down out off via per`) {
		stopWords[w] = true
	}
}
