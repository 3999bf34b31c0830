// writepolicy.go holds a worker's write policy: the doublestar globs its
// `writes:` expands to for one attempt (docs/runfile.md), their validation
// when the run file is loaded, what they allow, and the digest stored on the
// dispatch row so that the policy checked at settlement is provably the one
// recorded at dispatch. The audit that checks a policy against the files an
// attempt changed is workspace/audit.go's, tied to an attempt in engine/writeaudit.go.
package runfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// WritePolicy is an attempt's write policy: doublestar globs, relative to
// the workspace, slash-separated (`out/**` matches out/ and everything below
// it). Globs are matched as written; nil Globs means "not audited" to the
// engine, while an empty list allows no write at all.
type WritePolicy struct {
	Globs []string
}

// writePolicyEncoding is the canonical form the digest is taken of. The
// version lets a later encoding change without colliding with stored digests.
type writePolicyEncoding struct {
	Version int      `json:"version"`
	Writes  []string `json:"writes"`
}

// Digest is "sha256:<hex>" of the policy's canonical encoding: the globs
// with a leading "./" removed, sorted and deduplicated (order and repeats do
// not change what a policy allows), as JSON.
func (p WritePolicy) Digest() string {
	globs := make([]string, 0, len(p.Globs))
	for _, g := range p.Globs {
		globs = append(globs, normalizeGlob(g))
	}
	slices.Sort(globs)
	globs = slices.Compact(globs)
	data, err := json.Marshal(writePolicyEncoding{Version: 1, Writes: globs})
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Validate reports the globs that are not valid doublestar patterns, so a
// run file can be refused before anything starts.
func (p WritePolicy) Validate() error {
	var bad []string
	for _, g := range p.Globs {
		if !doublestar.ValidatePattern(normalizeGlob(g)) {
			bad = append(bad, strconv.Quote(g))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("invalid write glob(s): %s", strings.Join(bad, ", "))
	}
	return nil
}

// Allows reports whether the policy lets an attempt write rel (workspace-
// relative, slash-separated). An invalid glob allows nothing.
func (p WritePolicy) Allows(rel string) bool {
	rel = strings.TrimPrefix(path.Clean(rel), "./")
	for _, g := range p.Globs {
		if ok, err := doublestar.Match(normalizeGlob(g), rel); err == nil && ok {
			return true
		}
	}
	return false
}

func normalizeGlob(g string) string {
	for strings.HasPrefix(g, "./") {
		g = g[2:]
	}
	return g
}
