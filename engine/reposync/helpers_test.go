package reposync

import (
	"net/url"
	"strings"
)

// normalize stands in for settings.NormalizeRelayURL until that lands.
func normalize(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	u.Host = strings.ToLower(u.Host)
	u.Host = strings.TrimSuffix(strings.TrimSuffix(u.Host, ":443"), ":80")
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u.String(), nil
}
