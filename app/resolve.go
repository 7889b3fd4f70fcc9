package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"dtp-personal/engine"
	"dtp-personal/ui/names"
	"dtp-personal/ui/words"
)

func cmdResolve(c *cli) error {
	ctxFlag := c.fs.String("context", "", "context (c) of the question, e.g. identity")
	knobs := []struct {
		flag, param string
		v           *int
	}{
		{"max-degree", "maxDegree", c.fs.Int("max-degree", 0, "max degree for this question (1-5; default: limits --max-depth)")},
		{"follow-threshold", "followThreshold", c.fs.Int("follow-threshold", 0, "follow threshold in % for this question (0-100)")},
		{"red", "red", c.fs.Int("red", 0, "distrusted below this % for this question (0-100)")},
	}
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(1); err != nil {
		return err
	}
	subject := c.positional(0)
	if subject == "" {
		return fmt.Errorf("%w: resolve needs a SUBJECT (npub, hex pubkey, user:id:N, post:id:N or event id)", errUsage)
	}
	q := engine.Query{Subject: subject, Context: *ctxFlag}
	params := url.Values{"subject": {subject}, "context": {*ctxFlag}}
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	overrides := []**int{&q.MaxDegree, &q.FollowThreshold, &q.Red}
	for i, k := range knobs {
		if set[k.flag] {
			params.Set(k.param, strconv.Itoa(*k.v))
			*overrides[i] = k.v
		}
	}
	var ans engine.Answer
	err := readEngine(c,
		func(r engine.Running) error {
			return getJSON(r.Base()+"/api/v1/resolve?"+params.Encode(), &ans)
		},
		func(eng *engine.Engine) (err error) {
			ans, err = eng.Resolve(context.Background(), q)
			return err
		})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(ans)
	}
	// every path starts at a root: "you"
	people, roots := []string{ans.Subject}, []string{}
	for _, ev := range ans.Evidence {
		people = append(people, ev.Author)
	}
	for _, p := range ans.Paths {
		people = append(people, p...)
		roots = append(roots, p[0])
	}
	printAnswer(os.Stdout, ans, words.NamerOf(roots, knownNames(c, people)))
	return nil
}

// knownNames are the display names the window's cache holds for the
// people; none when it has never run.
func knownNames(c *cli, people []string) map[string]string {
	path := filepath.Join(c.data(), names.FileName)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	cache, err := names.Open(path, 0)
	if err != nil {
		return nil
	}
	defer cache.Close()
	known, _ := cache.Names(people)
	return known
}
