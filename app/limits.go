package main

import (
	"fmt"
	"strings"

	"dtp-personal/engine/settings"
)

func cmdStrategy(c *cli) error {
	interval := c.fs.Int("interval", -1, "interval in minutes for frontier-interval: 5, 15, 30, 60 or 0 (manual)")
	if err := c.parse(1); err != nil {
		return err
	}
	s, err := modifySettings(c, func(s *settings.Settings) error {
		if id := c.positional(0); id != "" {
			s.Strategy = id
		}
		if *interval >= 0 {
			s.IntervalMinutes = *interval
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.Strategy == settings.FrontierInterval {
		every := "manual only"
		if s.IntervalMinutes > 0 {
			every = fmt.Sprintf("every %d minutes", s.IntervalMinutes)
		}
		fmt.Printf("%s (%s)\n", s.Strategy, every)
		return nil
	}
	fmt.Println(s.Strategy)
	return nil
}

func cmdLimits(c *cli) error {
	set := make([]*int, len(settings.LimitFields))
	for i, f := range settings.LimitFields {
		set[i] = c.fs.Int(f.Flag, -1, f.Help+" ("+f.JSON+")")
	}
	presets := make([]string, len(settings.LimitPresets))
	for i, p := range settings.LimitPresets {
		presets[i] = p.Name + ": " + p.Help
	}
	preset := c.fs.String("preset", "", "caps for the size of network followed, the other flags then change what they name ("+strings.Join(presets, "; ")+")")
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(0); err != nil {
		return err
	}
	s, err := modifySettings(c, func(s *settings.Settings) error {
		if *preset != "" {
			p, err := settings.LimitPresetNamed(*preset)
			if err != nil {
				return err
			}
			p.Apply(&s.Limits)
		}
		for i, f := range settings.LimitFields {
			if *set[i] >= 0 {
				*f.Of(&s.Limits) = *set[i]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(s.Limits)
	}
	for _, f := range settings.LimitFields {
		fmt.Printf("%s %d\n", f.JSON, *f.Of(&s.Limits))
	}
	return nil
}
