package toolsearch

import "strings"

// synonymWeight is the weight of a word a query gains from the synonym table or from what a
// word looks like, against 1 for the query's own words.
const synonymWeight = 0.5

// synonyms maps a word of a request to the words tools use for the same thing. Requests are
// written in the user's words ("folder", "remember", "PR", "popup"), tools in the API's
// ("directory", "memory", "pull request", "dialog"). Groups on one line are synonyms of each
// other; an arrow maps the left words to the right ones only, for a word whose meaning is
// narrower than the words it leads to. Keys and values are stemmed when the table is built.
var synonyms = map[string][]string{}

const synonymTable = `
folder directory dir
picture image photo png jpg jpeg
delete remove erase
forget drop -> delete remove
link relation relationship connection
modify edit change update
fix -> edit update
rename -> move
repo repository
pr -> pull request
bug issue ticket
find search locate lookup
look -> search find
show display -> get view read list
make new -> create
save store -> write set
remember memorize recall -> memory knowledge entity observation
fact note -> observation memory
entry record item -> entity node observation
person people someone -> entity user
alive health reachable -> ping
website webpage site url -> page url navigate browser
visit goto open -> navigate
click press tap
type enter input -> type fill key
screenshot capture
tab window
popup alert modal confirm -> dialog
dropdown combobox select option
approve -> review
reply -> comment
upload attach
wait pause sleep delay
crash exit kill terminate
notify notification -> notification updated subscribe
sum total plus
env environment variable
gzip zip compress
tree hierarchy structure recursive recursively
big large space -> size
allowed permitted permission access
fail failure failing broken error -> bug debug failure
think reason reasoning -> thought thinking
javascript js script -> javascript evaluate code
keyboard keystroke -> key press
dark light -> color scheme media
`

func init() {
	for _, line := range strings.Split(synonymTable, "\n") {
		left, right, arrow := strings.Cut(line, "->")
		from := stemAll(strings.Fields(left))
		to := from
		if arrow {
			to = stemAll(strings.Fields(right))
		}
		for _, f := range from {
			for _, w := range to {
				if w != f && !contains(synonyms[f], w) {
					synonyms[f] = append(synonyms[f], w)
				}
			}
		}
	}
}

func stemAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// webSuffixes are the last labels of host names a request may name ("example.com"); a word
// ending in one, or starting with a URL scheme, is a web address.
var webSuffixes = map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "ai": true, "co": true, "edu": true, "gov": true}

// lookWords returns the words a request's word gains from its form: a web address
// ("https://x", "example.com") leads to url, page and navigate, a file name with an extension
// ("README.md", "config.yaml") to file.
func lookWords(field string) []string {
	field = strings.Trim(strings.ToLower(field), `"'()[]{},;:!?`)
	if strings.HasPrefix(field, "http://") || strings.HasPrefix(field, "https://") || strings.HasPrefix(field, "www.") {
		return []string{"url", "page", "navigat"}
	}
	dot := strings.LastIndexByte(field, '.')
	if dot <= 0 || dot == len(field)-1 {
		return nil
	}
	ext := field[dot+1:]
	if len(ext) > 4 {
		return nil
	}
	for _, r := range ext {
		if r < 'a' || r > 'z' {
			return nil
		}
	}
	if webSuffixes[ext] && !strings.ContainsAny(field, "/\\") {
		return []string{"url", "page", "navigat"}
	}
	return []string{"fil"}
}
