package words

import (
	"fmt"
	"slices"
	"strings"

	"dtp-personal/engine/resolver"
)

// Verdict says in one sentence who decided an answer and what the others
// said. The nearest degree with counted evidence decides (SPEC §7, the
// extension's rule); farther statements are listed but not counted, and the
// sentence says so: "Dave, whom you trust, distrusts this account; 2 more
// people further out agree, not counted".
func Verdict(a resolver.Answer, name Namer) string {
	noun := "this " + SubjectNoun(a.Subject)
	var trust, distrust, farTrust, farDistrust []resolver.Evidence
	for _, e := range a.Evidence {
		switch {
		case e.Counted && e.Value > 0:
			trust = append(trust, e)
		case e.Counted && e.Value < 0:
			distrust = append(distrust, e)
		case e.Value > 0: // farther than the degree that decided
			farTrust = append(farTrust, e)
		case e.Value < 0:
			farDistrust = append(farDistrust, e)
		}
	}
	var said string
	switch {
	case a.Verdict == resolver.VerdictTrusted && len(trust) > 0:
		said = speakers(trust, name, "trusts", "trust") + " " + noun + besides(distrust, "distrusts", "distrust")
		return said + agreeing(farTrust, farDistrust)
	case a.Verdict == resolver.VerdictDistrusted && len(distrust) > 0:
		said = speakers(distrust, name, "distrusts", "distrust") + " " + noun + besides(trust, "trusts", "trust")
		return said + agreeing(farDistrust, farTrust)
	case a.Verdict == resolver.VerdictMixed && len(trust) > 0 && len(distrust) > 0:
		said = speakers(trust, name, "trusts", "trust") + " " + noun + " and " +
			others(distrust, name, "distrusts", "distrust") + " it"
		return said + trusting(farTrust, farDistrust)
	case len(a.Evidence) == 0:
		return "Nobody in your network has said anything about " + noun
	}
	// only neutral statements at the nearest degree: the extension's answer
	// too (its score keeps their degree and lists them, counting nothing)
	var neutral []resolver.Evidence
	for _, e := range a.Evidence {
		if e.Value == 0 && e.Depth+1 == a.Degree {
			neutral = append(neutral, e)
		}
	}
	if len(neutral) == 0 {
		return "Nobody in your network trusts or distrusts " + noun + ": the nearest statements are neutral" +
			trusting(farTrust, farDistrust)
	}
	return speakers(neutral, name, "is neutral about", "are neutral about") + " " + noun +
		", which counts as neither trust nor distrust" + trusting(farTrust, farDistrust)
}

// speakers is who said it at the deciding distance, nearest named, with
// the verb: "you trust", "Alice, whom you trust, trusts", "Bob, 2 hops from
// you, and 3 others trust"; a sentence's first word.
func speakers(es []resolver.Evidence, name Namer, one, many string) string {
	first := es[0]
	rest := authors(es) - 1
	if first.Depth == 0 { // the roots are all you
		return "You " + many
	}
	who := name(first.Author)
	if first.Depth == 1 {
		who += ", whom you trust,"
	} else {
		who += ", " + Hops(first.Depth) + ","
	}
	if rest == 0 {
		return who + " " + one
	}
	return fmt.Sprintf("%s and %s %s", who, Plural(rest, "other"), many)
}

// others is the second party of a mixed answer, at the same distance as the
// first: "Bob distrusts", "Bob and 2 others distrust".
func others(es []resolver.Evidence, name Namer, one, many string) string {
	if es[0].Depth == 0 {
		return "you " + many
	}
	rest := authors(es) - 1
	if rest == 0 {
		return name(es[0].Author) + " " + one
	}
	return fmt.Sprintf("%s and %s %s", name(es[0].Author), Plural(rest, "other"), many)
}

// besides is the counted minority of a trusted or distrusted answer: "; 1
// more at that distance distrusts it".
func besides(es []resolver.Evidence, one, many string) string {
	n := authors(es)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more at that distance %s it", n, verb(n, one, many))
}

// spoke is how many people said one thing, with its verb for one and many.
type spoke struct {
	n         int
	one, many string
}

func (s spoke) verb() string { return verb(s.n, s.one, s.many) }

// further is what the people past the deciding distance said, in two
// groups: "; 2 more people further out agree, not counted".
func further(a, b spoke) string {
	switch {
	case a.n == 0 && b.n == 0:
		return ""
	case b.n == 0:
		return fmt.Sprintf("; %s further out %s, not counted", morePeople(a.n), a.verb())
	case a.n == 0:
		return fmt.Sprintf("; %s further out %s, not counted", morePeople(b.n), b.verb())
	}
	return fmt.Sprintf("; further out %s %s and %d %s, not counted", morePeople(a.n), a.verb(), b.n, b.verb())
}

// agreeing is what the people further out said, measured against the
// verdict.
func agreeing(agree, disagree []resolver.Evidence) string {
	return further(spoke{authors(agree), "agrees", "agree"}, spoke{authors(disagree), "disagrees", "disagree"})
}

// trusting is what the people further out said of an answer with no side.
func trusting(trust, distrust []resolver.Evidence) string {
	return further(spoke{authors(trust), "trusts it", "trust it"}, spoke{authors(distrust), "distrusts it", "distrust it"})
}

func morePeople(n int) string {
	if n == 1 {
		return "1 more person"
	}
	return Count(n) + " more people"
}

// authors counts the people behind some evidence: one person may speak of
// the subject and of an identity bound to it.
func authors(es []resolver.Evidence) int {
	keys := make([]string, len(es))
	for i, e := range es {
		keys[i] = e.Author
	}
	slices.Sort(keys)
	return len(slices.Compact(keys))
}

// SubjectNoun is what a subject is to a person: a post for post:id:N,
// otherwise an account (a key, an X account).
func SubjectNoun(subject string) string {
	if strings.HasPrefix(subject, "post:") {
		return "post"
	}
	return "account"
}

// Subject names what was asked about: a person by name, else as asked.
func Subject(subject string, name Namer) string {
	if len(subject) == 64 {
		return name(subject)
	}
	return subject
}

// Value says a statement's value as a table cell: "trusts", "distrusts",
// "neutral".
func Value(value int) string {
	switch {
	case value > 0:
		return "trusts"
	case value < 0:
		return "distrusts"
	}
	return "neutral"
}

// Says is the last hop of a path, what its speaker said of the subject:
// "trusts", "distrusts", "is neutral about".
func Says(value int) string {
	if value == 0 {
		return "is neutral about"
	}
	return Value(value)
}

// Spoken is each speaker's value at their nearest depth, by hex key: the
// last hop of their paths.
func Spoken(a resolver.Answer) map[string]int {
	said, nearest := map[string]int{}, map[string]int{}
	for _, e := range a.Evidence {
		if d, seen := nearest[e.Author]; !seen || e.Depth < d {
			nearest[e.Author], said[e.Author] = e.Depth, e.Value
		}
	}
	return said
}

// Path is one path in words, ending with what its speaker said: "you →
// Dave distrusts Yusuf".
func Path(path []string, said map[string]int, subject string, name Namer) string {
	names := make([]string, len(path))
	for i, k := range path {
		names[i] = name(k)
	}
	return strings.Join(names, " → ") + " " + Says(said[path[len(path)-1]]) + " " + Subject(subject, name)
}
