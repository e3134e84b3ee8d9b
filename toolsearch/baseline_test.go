package toolsearch

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// plainBM25 is the baseline the ranker is measured against: BM25 (k1 1.2, b 0.75) over one
// text, a doc's name and description, split at every rune that is not a letter or a digit and
// lower-cased; no fields, no stemming, no stop words, no synonyms.
type plainBM25 struct {
	docs     []*Doc
	lens     []int
	avg      float64
	postings map[string][]plainPosting
}

type plainPosting struct{ doc, tf int }

func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newPlainBM25(docs []*Doc) *plainBM25 {
	p := &plainBM25{docs: docs, postings: map[string][]plainPosting{}}
	total := 0
	for i, d := range docs {
		ws := plainWords(d.Name + " " + d.Description)
		counts := map[string]int{}
		for _, w := range ws {
			counts[w]++
		}
		for w, c := range counts {
			p.postings[w] = append(p.postings[w], plainPosting{i, c})
		}
		p.lens = append(p.lens, len(ws))
		total += len(ws)
	}
	if len(docs) > 0 {
		p.avg = float64(total) / float64(len(docs))
	}
	return p
}

func (p *plainBM25) search(query string, limit int) []Hit {
	const k1, b = 1.2, 0.75
	scores := make([]float64, len(p.docs))
	n := float64(len(p.docs))
	seen := map[string]bool{}
	for _, w := range plainWords(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := p.postings[w]
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, q := range ps {
			tf := float64(q.tf)
			scores[q.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(p.lens[q.doc])/p.avg))
		}
	}
	top := topK{limit: limit}
	for i, s := range scores {
		if s > 0 {
			top.add(Hit{Doc: p.docs[i], Score: s})
		}
	}
	return top.hits
}

// allDocs returns every doc of ix, in a stable order.
func allDocs(ix *Index) []*Doc {
	var out []*Doc
	servers := make([]string, 0, len(ix.shards))
	for s := range ix.shards {
		servers = append(servers, s)
	}
	slices.Sort(servers)
	for _, s := range servers {
		for i := range ix.shards[s].docs {
			out = append(out, &ix.shards[s].docs[i])
		}
	}
	return out
}
