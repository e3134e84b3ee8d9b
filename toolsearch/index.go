package toolsearch

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// The fields a doc is indexed by, each with its own weight and length normalisation.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldParams
	fieldServer
	fieldInstructions
	numFields
)

// fieldParam is one field's weight (how much a match in it counts against a match in the
// description) and b (how much a long field's matches are discounted: 0 not at all, 1 fully).
type fieldParam struct{ weight, b float64 }

var fieldTuning = [numFields]fieldParam{
	fieldName:         {3.0, 0.5},
	fieldTitle:        {2.0, 0.5},
	fieldDescription:  {1.0, 0.75},
	fieldParams:       {0.5, 0.75},
	fieldServer:       {1.0, 0},
	fieldInstructions: {0.2, 0.75},
}

// k1 is BM25's term-frequency saturation: a word's fifth occurrence adds little to its first.
const k1 = 1.2

// posting is one doc's occurrences of a word, counted per field.
type posting struct {
	doc int32
	tf  [numFields]uint16
}

// shard is the docs of one server and their postings. It is never changed once built, so
// Indexes share it.
type shard struct {
	server   string
	docs     []Doc
	lens     [][numFields]uint32
	total    [numFields]int64
	postings map[string][]posting
}

// Index holds the docs of every server. It is immutable once built and safe for concurrent
// Search; With makes a new one. The zero Index is empty, like New's.
type Index struct {
	shards map[string]*shard
	list   []*shard // shards, by server
	base   []int    // base[i] numbers list[i]'s first doc among all the Index's docs
	nDocs  int
	total  [numFields]int64

	// words maps each word to its postings in every shard, merged from the shards on the
	// first Search: a search then looks a word up once, not once per server, and With stays
	// the cost of the one server it indexes.
	wordsOnce sync.Once
	words     map[string][]shardPostings
}

// shardPostings is one word's postings in the shard list[shard].
type shardPostings struct {
	shard int32
	ps    []posting
}

// New returns an empty Index.
func New() *Index { return &Index{shards: map[string]*shard{}} }

// Len returns the number of docs in the Index.
func (ix *Index) Len() int { return ix.nDocs }

// With returns a new Index in which server's docs are docs (skills go under the server ""),
// and every other server's are ix's, shared and not re-indexed. Empty docs remove the server.
// Each doc's Server is set to server; of docs with the same Key the last is kept. With copies
// docs, so the caller may reuse the slice; ix itself does not change.
func (ix *Index) With(server string, docs []Doc) *Index {
	shards := maps.Clone(ix.shards)
	if shards == nil {
		shards = map[string]*shard{}
	}
	if len(docs) == 0 {
		delete(shards, server)
	} else {
		shards[server] = buildShard(server, docs)
	}
	out := &Index{shards: shards}
	for _, s := range shards {
		out.list = append(out.list, s)
		out.nDocs += len(s.docs)
		for f := range numFields {
			out.total[f] += s.total[f]
		}
	}
	slices.SortFunc(out.list, func(a, b *shard) int { return strings.Compare(a.server, b.server) })
	n := 0
	for _, s := range out.list {
		out.base = append(out.base, n)
		n += len(s.docs)
	}
	return out
}

func buildShard(server string, in []Doc) *shard {
	last := make(map[string]int, len(in))
	for i, d := range in {
		last[d.Key] = i
	}
	s := &shard{server: server, postings: map[string][]posting{}}
	var buf []string
	for i, d := range in {
		if last[d.Key] != i {
			continue
		}
		d.Server = server
		d.Params = slices.Clone(d.Params)
		id := int32(len(s.docs))
		s.docs = append(s.docs, d)
		counts := map[string]*[numFields]uint16{}
		var lens [numFields]uint32
		for f, text := range fieldTexts(&d) {
			buf = words(text, buf[:0])
			lens[f] += uint32(len(buf))
			for _, w := range buf {
				c := counts[w]
				if c == nil {
					c = new([numFields]uint16)
					counts[w] = c
				}
				if c[f] < math.MaxUint16 {
					c[f]++
				}
			}
		}
		for w, c := range counts {
			s.postings[w] = append(s.postings[w], posting{doc: id, tf: *c})
		}
		s.lens = append(s.lens, lens)
		for f := range numFields {
			s.total[f] += int64(lens[f])
		}
	}
	return s
}

// fieldTexts returns the text of each field of d.
func fieldTexts(d *Doc) [numFields]string {
	var params strings.Builder
	for _, p := range d.Params {
		params.WriteString(p.Name)
		params.WriteByte(' ')
		params.WriteString(p.Description)
		params.WriteByte(' ')
	}
	return [numFields]string{
		fieldName:         d.Name,
		fieldTitle:        d.Title,
		fieldDescription:  d.Description,
		fieldParams:       params.String(),
		fieldServer:       d.Server,
		fieldInstructions: d.ServerInstructions,
	}
}

// Options narrow a Search.
type Options struct {
	// Servers, when not empty, keeps the docs of these servers only ("" is the skills).
	Servers []string
	// Kinds, when not empty, keeps the docs of these kinds only.
	Kinds []Kind
	// Limit is the most hits returned; 0 or less means 5.
	Limit int
}

// Hit is one doc that matched a Search, and its score (higher is better; scores compare only
// within one Search).
type Hit struct {
	// Doc is the Index's own copy: read it, never change it.
	Doc   *Doc
	Score float64
}

// defaultLimit is the number of hits of a Search whose Options have no Limit.
const defaultLimit = 5

// Search returns the docs that best match query, best first, at most opt.Limit of them. Only
// docs that share at least one word with the query (or with a synonym of one of its words)
// are returned; ties are broken by server, then key, so the order is stable. An empty query,
// or one of common words only, returns nil.
func (ix *Index) Search(query string, opt Options) []Hit {
	limit := opt.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	terms := queryTerms(query)
	if len(terms) == 0 || ix.nDocs == 0 {
		return nil
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = float64(ix.total[f]) / float64(ix.nDocs)
	}
	ix.wordsOnce.Do(ix.mergeWords)
	selected := make([]bool, len(ix.list))
	for i, s := range ix.list {
		selected[i] = len(opt.Servers) == 0 || slices.Contains(opt.Servers, s.server)
	}
	scores := make([]float64, ix.nDocs)
	for _, t := range terms {
		found := ix.words[t.word]
		df := 0
		for _, sp := range found {
			df += len(sp.ps)
		}
		if df == 0 {
			continue
		}
		idf := t.weight * math.Log(1+(float64(ix.nDocs)-float64(df)+0.5)/(float64(df)+0.5))
		for _, sp := range found {
			if !selected[sp.shard] {
				continue
			}
			s, base := ix.list[sp.shard], ix.base[sp.shard]
			for _, p := range sp.ps {
				var tf float64
				lens := &s.lens[p.doc]
				for f := range numFields {
					if p.tf[f] == 0 || avg[f] == 0 {
						continue
					}
					fp := fieldTuning[f]
					tf += fp.weight * float64(p.tf[f]) / (1 - fp.b + fp.b*float64(lens[f])/avg[f])
				}
				scores[base+int(p.doc)] += idf * tf / (k1 + tf)
			}
		}
	}
	top := topK{limit: limit}
	for i, s := range ix.list {
		if !selected[i] {
			continue
		}
		for d, sc := range scores[ix.base[i] : ix.base[i]+len(s.docs)] {
			if sc <= 0 {
				continue
			}
			doc := &s.docs[d]
			if len(opt.Kinds) > 0 && !slices.Contains(opt.Kinds, doc.Kind) {
				continue
			}
			top.add(Hit{Doc: doc, Score: sc})
		}
	}
	return top.hits
}

// mergeWords fills ix.words from the shards' postings.
func (ix *Index) mergeWords() {
	n := 0
	for _, s := range ix.list {
		n = max(n, len(s.postings))
	}
	ix.words = make(map[string][]shardPostings, n)
	for i, s := range ix.list {
		for w, ps := range s.postings {
			ix.words[w] = append(ix.words[w], shardPostings{int32(i), ps})
		}
	}
}

// topK keeps the best limit hits seen, best first.
type topK struct {
	limit int
	hits  []Hit
}

func (t *topK) add(h Hit) {
	if len(t.hits) == t.limit && !better(h, t.hits[len(t.hits)-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(t.hits, h, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	if len(t.hits) < t.limit {
		t.hits = append(t.hits, Hit{})
	}
	copy(t.hits[i+1:], t.hits[i:])
	t.hits[i] = h
}

// better reports whether a ranks before b.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Doc.Server != b.Doc.Server {
		return a.Doc.Server < b.Doc.Server
	}
	return a.Doc.Key < b.Doc.Key
}

// term is one word of a query and the weight of its matches: 1 for the query's own words,
// less for synonyms.
type term struct {
	word   string
	weight float64
}

// queryTerms returns the distinct words of query, each with its weight: 1 for its own words,
// synonymWeight for those the synonym table and the form of its words (a web address, a file
// name) add.
func queryTerms(query string) []term {
	var out []term
	add := func(w string, weight float64) {
		i := slices.IndexFunc(out, func(t term) bool { return t.word == w })
		if i < 0 {
			out = append(out, term{word: w, weight: weight})
		} else if out[i].weight < weight {
			out[i].weight = weight
		}
	}
	own := words(query, nil)
	for _, w := range own {
		add(w, 1)
	}
	for _, w := range own {
		for _, s := range synonyms[w] {
			add(s, synonymWeight)
		}
	}
	for _, f := range strings.Fields(query) {
		for _, w := range lookWords(f) {
			add(w, synonymWeight)
		}
	}
	return out
}
