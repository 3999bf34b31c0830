// Package parser is the demo's source tree: the isolated implementer
// changes it in its own git worktree, and rostra diff shows the change.
package parser

// Parse splits a line into its words.
func Parse(line string) []string {
	var words []string
	word := ""
	for _, r := range line {
		if r == ' ' {
			if word != "" {
				words = append(words, word)
			}
			word = ""
			continue
		}
		word += string(r)
	}
	if word != "" {
		words = append(words, word)
	}
	return words
}
