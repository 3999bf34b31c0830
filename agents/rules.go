// rules.go holds the screen rules: per agent and CLI version range, a data
// file in rules/ (embedded, loaded at start) of patterns on the visible
// screen that mark a permission prompt, an idle prompt or a busy agent,
// and what evidence to take from the screen (docs/agents.md, "Screen
// rules"). They are the third source of trust: they speak for an agent
// whose hooks are not heard.
//
// Data model: a file is a RuleSet (agent, versions [min, below), rules in
// order); a Rule has a state, a line pattern that must match a line of
// the screen (or a title pattern that must match the pane's title),
// patterns that must also match somewhere (also) or nowhere
// (unless), and two patterns for the evidence, tool and argument, run on
// the whole screen text. Match tries the rules in the file's order: the
// first that matches wins, so a file lists its permission prompts before
// its idle prompt before its busy line.
package agents

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

//go:embed rules/*.yaml
var embeddedRules embed.FS

// RuleSet is one rule file: the rules for one agent's CLI versions from
// Min (inclusive) to Below (exclusive; empty: no bound).
type RuleSet struct {
	File  string
	Agent Agent
	Min   string
	Below string
	Rules []Rule
}

// Rule is one screen pattern.
type Rule struct {
	Name           string
	State          State
	line           *regexp.Regexp
	title          *regexp.Regexp
	also           []*regexp.Regexp
	unless         []*regexp.Regexp
	tool, argument *regexp.Regexp
}

// Match is a rule that matched a screen.
type Match struct {
	Rule     string
	State    State
	Line     string // the screen line the rule's pattern matched, trimmed
	Tool     string // the tool and its argument, when the rule reads them
	Argument string
}

// Evidence is the match as a human reads it: "Bash(rm -rf build)", the
// tool or the argument alone, or else the line matched.
func (m Match) Evidence() string {
	switch {
	case m.Tool != "" && m.Argument != "":
		return m.Tool + "(" + m.Argument + ")"
	case m.Tool != "":
		return m.Tool
	case m.Argument != "":
		return m.Argument
	}
	return m.Line
}

// ruleFile is a rule file as written.
type ruleFile struct {
	Agent    string `yaml:"agent"`
	Versions struct {
		Min   string `yaml:"min"`
		Below string `yaml:"below"`
	} `yaml:"versions"`
	Rules []struct {
		Name     string   `yaml:"name"`
		State    string   `yaml:"state"`
		Line     string   `yaml:"line"`
		Title    string   `yaml:"title"`
		Also     []string `yaml:"also"`
		Unless   []string `yaml:"unless"`
		Tool     string   `yaml:"tool"`
		Argument string   `yaml:"argument"`
	} `yaml:"rules"`
}

// Rules are the rule sets rostra ships, in rules/.
type Rules struct {
	sets []*RuleSet
}

// LoadRules reads the embedded rule files. An error names the file, the
// rule and what is wrong; a shipped file with one is a bug the tests catch.
func LoadRules() (*Rules, error) {
	sub, err := fs.Sub(embeddedRules, "rules")
	if err != nil {
		return nil, err
	}
	return ParseRules(sub)
}

// ParseRules reads every *.yaml file of fsys as a rule file.
func ParseRules(fsys fs.FS) (*Rules, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	r := &Rules{}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("screen rules %s: %w", name, err)
		}
		set, err := parseRuleSet(name, b)
		if err != nil {
			return nil, err
		}
		for _, other := range r.sets {
			if other.Agent == set.Agent && overlap(other, set) {
				return nil, fmt.Errorf("screen rules %s: versions [%s, %s) of %s overlap those of %s; give each version one file", name, set.Min, orNone(set.Below), set.Agent, other.File)
			}
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

func parseRuleSet(name string, b []byte) (*RuleSet, error) {
	var f ruleFile
	if err := yaml.UnmarshalWithOptions(b, &f, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("screen rules %s: %s", name, yaml.FormatError(err, false, true))
	}
	errf := func(format string, args ...any) error {
		return fmt.Errorf("screen rules %s: "+format, append([]any{name}, args...)...)
	}
	agent, ok := Parse(f.Agent)
	if !ok {
		return nil, errf("agent %q is not one of %v", f.Agent, Known)
	}
	if base := strings.TrimSuffix(path.Base(name), ".yaml"); base != f.Agent && !strings.HasPrefix(base, f.Agent+"-") {
		return nil, errf("the file of agent %s must be named %s.yaml or %s-VERSIONS.yaml", f.Agent, f.Agent, f.Agent)
	}
	set := &RuleSet{File: name, Agent: agent, Min: f.Versions.Min, Below: f.Versions.Below}
	for field, v := range map[string]string{"min": set.Min, "below": set.Below} {
		if _, err := parseVersion(v); v != "" && err != nil {
			return nil, errf("versions.%s: %v", field, err)
		}
	}
	if set.Min != "" && set.Below != "" && compareVersions(set.Min, set.Below) >= 0 {
		return nil, errf("versions: min %s is not below %s", set.Min, set.Below)
	}
	if len(f.Rules) == 0 {
		return nil, errf("no rules")
	}
	for i, fr := range f.Rules {
		where := fmt.Sprintf("rule %d", i+1)
		if fr.Name != "" {
			where += " (" + fr.Name + ")"
		}
		if fr.Name == "" {
			return nil, errf("%s: no name", where)
		}
		if slices.ContainsFunc(set.Rules, func(r Rule) bool { return r.Name == fr.Name }) {
			return nil, errf("%s: a second rule of that name", where)
		}
		st := State(fr.State)
		if st != Working && st != WaitingPermission && st != WaitingInput {
			return nil, errf("%s: state %q is not one a screen shows (%s, %s, %s)", where, fr.State, Working, WaitingPermission, WaitingInput)
		}
		rule := Rule{Name: fr.Name, State: st}
		compile := func(field, expr string) (*regexp.Regexp, error) {
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, errf("%s: %s: %v", where, field, err)
			}
			return re, nil
		}
		if (fr.Line == "") == (fr.Title == "") {
			return nil, errf("%s: give one of line (a pattern on a screen line) and title (a pattern on the pane's title)", where)
		}
		var err error
		if fr.Line != "" {
			if rule.line, err = compile("line", fr.Line); err != nil {
				return nil, err
			}
		} else if rule.title, err = compile("title", fr.Title); err != nil {
			return nil, err
		}
		for j, e := range fr.Also {
			re, err := compile("also["+strconv.Itoa(j)+"]", "(?m)"+e)
			if err != nil {
				return nil, err
			}
			rule.also = append(rule.also, re)
		}
		for j, e := range fr.Unless {
			re, err := compile("unless["+strconv.Itoa(j)+"]", "(?m)"+e)
			if err != nil {
				return nil, err
			}
			rule.unless = append(rule.unless, re)
		}
		for field, e := range map[string]string{"tool": fr.Tool, "argument": fr.Argument} {
			if e == "" {
				continue
			}
			re, err := compile(field, "(?m)"+e)
			if err != nil {
				return nil, err
			}
			if re.NumSubexp() != 1 {
				return nil, errf("%s: %s: the pattern must have one group, the text to take (it has %d)", where, field, re.NumSubexp())
			}
			if field == "tool" {
				rule.tool = re
			} else {
				rule.argument = re
			}
		}
		set.Rules = append(set.Rules, rule)
	}
	return set, nil
}

// For returns the rule set of agent for the CLI's version, or nil when
// none covers it. An empty version (not known) takes the set of the
// newest versions.
func (r *Rules) For(agent Agent, version string) *RuleSet {
	var best *RuleSet
	for _, s := range r.sets {
		if s.Agent != agent {
			continue
		}
		if version == "" {
			if best == nil || s.Below == "" || best.Below != "" && compareVersions(s.Below, best.Below) > 0 {
				best = s
			}
			continue
		}
		if _, err := parseVersion(version); err != nil {
			continue
		}
		if (s.Min == "" || compareVersions(version, s.Min) >= 0) && (s.Below == "" || compareVersions(version, s.Below) < 0) {
			return s
		}
	}
	return best
}

// Match tries the rules on the visible screen, one string a row, and the
// pane's title, and returns the first that matches. also and unless
// patterns run on the screen's text (rows joined by newlines, trailing
// blanks cut), multi-line: ^ and $ are a row's ends.
func (s *RuleSet) Match(screen []string, title string) (Match, bool) {
	lines := make([]string, len(screen))
	for i, l := range screen {
		lines[i] = strings.TrimRight(l, " ")
	}
	text := strings.Join(lines, "\n")
	for _, r := range s.Rules {
		matched, ok := "", false
		if r.title != nil {
			matched, ok = title, r.title.MatchString(title)
		}
		for i := 0; r.line != nil && i < len(lines) && !ok; i++ {
			matched, ok = lines[i], r.line.MatchString(lines[i])
		}
		if !ok || slices.ContainsFunc(r.also, func(re *regexp.Regexp) bool { return !re.MatchString(text) }) ||
			slices.ContainsFunc(r.unless, func(re *regexp.Regexp) bool { return re.MatchString(text) }) {
			continue
		}
		m := Match{Rule: r.Name, State: r.State, Line: strings.TrimSpace(matched)}
		if r.tool != nil {
			if sm := r.tool.FindStringSubmatch(text); sm != nil {
				m.Tool = strings.TrimSpace(sm[1])
			}
		}
		if r.argument != nil {
			if sm := r.argument.FindStringSubmatch(text); sm != nil {
				m.Argument = strings.TrimSpace(sm[1])
			}
		}
		return m, true
	}
	return Match{}, false
}

func overlap(a, b *RuleSet) bool {
	// [a.Min, a.Below) and [b.Min, b.Below) meet unless one ends before
	// the other begins.
	aEndsFirst := a.Below != "" && b.Min != "" && compareVersions(a.Below, b.Min) <= 0
	bEndsFirst := b.Below != "" && a.Min != "" && compareVersions(b.Below, a.Min) <= 0
	return !aEndsFirst && !bEndsFirst
}

func orNone(v string) string {
	if v == "" {
		return "no bound"
	}
	return v
}

// parseVersion reads a CLI's version, dotted numbers ("2.1.332"); a
// suffix after '-' or '+' is ignored.
func parseVersion(v string) ([]int, error) {
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	var out []int
	for _, p := range strings.Split(core, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("version %q is not dotted numbers (as 2.1.332)", v)
		}
		out = append(out, n)
	}
	return out, nil
}

func compareVersions(a, b string) int {
	x, _ := parseVersion(a)
	y, _ := parseVersion(b)
	for len(x) < len(y) {
		x = append(x, 0)
	}
	for len(y) < len(x) {
		y = append(y, 0)
	}
	return slices.Compare(x, y)
}
