package gateway

import "sync"

// CountDigestReads counts, by URI, the files skills/list and skills/get read to digest them,
// until the returned function restores the previous hook. block, when not nil, runs inside
// each read (a test holds reads there to see how many calls run at once).
func CountDigestReads(block func()) (counts func() map[string]int, restore func()) {
	var mu sync.Mutex
	n := map[string]int{}
	prev := testHookDigestRead
	testHookDigestRead = func(uri string) {
		mu.Lock()
		n[uri]++
		mu.Unlock()
		if block != nil {
			block()
		}
	}
	return func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]int{}
			for k, v := range n {
				out[k] = v
			}
			return out
		}, func() {
			testHookDigestRead = prev
		}
}

// MaxSkillListings is the bound on skills/list and skills/get computed at once.
const MaxSkillListings = maxSkillListings
