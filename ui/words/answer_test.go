package words

import (
	"testing"

	"dtp-personal/engine/resolver"
)

// The sentence names who decided (the nearest distance with trust or
// distrust, SPEC §7) and says what the people further out said, which the
// verdict does not count (issue 31: "1 person in your network distrusts
// this key" sat over a table of three distrusts).
func TestVerdictSentence(t *testing.T) {
	name := func(k string) string {
		return map[string]string{"a": "Alice", "b": "Bob", "c": "Carol", "d": "Dave", "e": "Erin"}[k]
	}
	ev := func(author string, value, depth int) resolver.Evidence { // at the degree that decided
		return resolver.Evidence{Author: author, Value: value, Depth: depth, Counted: value != 0}
	}
	far := func(author string, value, depth int) resolver.Evidence { // listed, not counted
		return resolver.Evidence{Author: author, Value: value, Depth: depth}
	}
	const key = "5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1"
	for _, c := range []struct {
		a    resolver.Answer
		want string
	}{
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictTrusted, Evidence: []resolver.Evidence{ev("r", 1, 0)}},
			"You trust this account"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictDistrusted,
			Evidence: []resolver.Evidence{ev("d", -1, 1), far("b", -1, 2), far("c", -1, 3)}},
			"Dave, whom you trust, distrusts this account; 2 more people further out agree, not counted"},
		{resolver.Answer{Subject: "user:id:1", Verdict: resolver.VerdictTrusted,
			Evidence: []resolver.Evidence{ev("a", 1, 1), far("c", 1, 2)}},
			"Alice, whom you trust, trusts this account; 1 more person further out agrees, not counted"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictTrusted,
			Evidence: []resolver.Evidence{ev("a", 1, 1), ev("b", 1, 1), far("c", -1, 2)}},
			"Alice, whom you trust, and 1 other trust this account; 1 more person further out disagrees, not counted"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictTrusted,
			Evidence: []resolver.Evidence{ev("a", 1, 1), ev("b", 1, 1), ev("c", 1, 1), ev("d", -1, 1)}},
			"Alice, whom you trust, and 2 others trust this account; 1 more at that distance distrusts it"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictTrusted, Evidence: []resolver.Evidence{ev("b", 1, 2)}},
			"Bob, 2 hops from you, trusts this account"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictDistrusted,
			Evidence: []resolver.Evidence{ev("a", -1, 1), ev("b", -1, 1), far("c", -1, 2), far("e", 1, 3)}},
			"Alice, whom you trust, and 1 other distrust this account; further out 1 more person agrees and 1 disagrees, not counted"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictMixed,
			Evidence: []resolver.Evidence{ev("a", 1, 2), ev("b", 1, 2), ev("c", -1, 2)}},
			"Alice, 2 hops from you, and 1 other trust this account and Carol distrusts it"},
		{resolver.Answer{Subject: "post:id:9", Verdict: resolver.VerdictNone}, "Nobody in your network has said anything about this post"},
		// only neutral at the nearest degree: who said it, and that it counts for nothing (the extension lists them too)
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictNone, Degree: 2, Evidence: []resolver.Evidence{far("a", 0, 1), far("b", 1, 2)}},
			"Alice, whom you trust, is neutral about this account, which counts as neither trust nor distrust; 1 more person further out trusts it, not counted"},
		{resolver.Answer{Subject: "post:id:9", Verdict: resolver.VerdictNone, Degree: 1, Evidence: []resolver.Evidence{far("r", 0, 0)}},
			"You are neutral about this post, which counts as neither trust nor distrust"},
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictNone, Degree: 3, Evidence: []resolver.Evidence{far("b", 0, 2), far("c", 0, 2)}},
			"Bob, 2 hops from you, and 1 other are neutral about this account, which counts as neither trust nor distrust"},
		// one person speaking of the subject and of an identity bound to it is one person
		{resolver.Answer{Subject: key, Verdict: resolver.VerdictDistrusted,
			Evidence: []resolver.Evidence{ev("d", -1, 1), far("b", -1, 2), far("b", -1, 2)}},
			"Dave, whom you trust, distrusts this account; 1 more person further out agrees, not counted"},
	} {
		if got := Verdict(c.a, name); got != c.want {
			t.Errorf("Verdict(%s)\n got %q\nwant %q", c.a.Verdict, got, c.want)
		}
	}
}

// A path in words ends with what its speaker said of the subject.
func TestPathEndsWithWhatWasSaid(t *testing.T) {
	const subject = "5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1"
	name := func(k string) string {
		return map[string]string{"r": "you", "d": "Dave", subject: "Yusuf"}[k]
	}
	a := resolver.Answer{Subject: subject, Evidence: []resolver.Evidence{{Author: "d", Value: -1, Depth: 1}},
		Paths: [][]string{{"r", "d"}}}
	if got := Path(a.Paths[0], Spoken(a), a.Subject, name); got != "you → Dave distrusts Yusuf" {
		t.Errorf("path %q", got)
	}
	a.Subject = "user:id:7"
	a.Evidence[0].Value = 0
	if got := Path(a.Paths[0], Spoken(a), a.Subject, name); got != "you → Dave is neutral about user:id:7" {
		t.Errorf("path %q", got)
	}
}
