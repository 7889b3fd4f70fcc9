package settings

import (
	"fmt"
	"slices"
	"strings"
)

// Strategy ids (SPEC §6.1).
const (
	FrontierInterval   = "frontier-interval"
	FrontierContinuous = "frontier-continuous"
	GlobalContinuous   = "global-continuous"
)

// Strategies lists the strategy ids in menu order.
var Strategies = []string{FrontierInterval, FrontierContinuous, GlobalContinuous}

// StrategyLabel is the user-facing name of a strategy id.
func StrategyLabel(id string) string {
	switch id {
	case FrontierInterval:
		return "Interval (trusted network)"
	case FrontierContinuous:
		return "Continuous (trusted network)"
	case GlobalContinuous:
		return "Subscribe all"
	}
	return id
}

// IntervalChoices are the interval strategy's choices in minutes; 0 = manual.
var IntervalChoices = []int{5, 15, 30, 60, 0}

func checkStrategy(id string) error {
	if !slices.Contains(Strategies, id) {
		return fmt.Errorf("unknown strategy %q: choose one of %v", id, Strategies)
	}
	return nil
}

func checkInterval(minutes int) error {
	if !slices.Contains(IntervalChoices, minutes) {
		return fmt.Errorf("interval %d is not one of 5, 15, 30, 60 or 0 (manual)", minutes)
	}
	return nil
}

// ParseScopeProfile accepts the only scope profile supported now, x.com.
func ParseScopeProfile(s string) (string, error) {
	if scope := strings.TrimSpace(s); scope != "x.com" {
		return "", fmt.Errorf("scope profile %q is not supported: only x.com", scope)
	}
	return "x.com", nil
}
