package validation

import (
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// MaxFutureSkew is how far ahead of our clock an event may be dated: a
// client's clock a little fast is forgiven, a date that would win its slot
// against the author's later edits is not (strfry and khatru use the same).
const MaxFutureSkew = 15 * time.Minute

// Arrival are the rules every event meets when it arrives, pushed or
// synced, whatever its kind (SPEC §9): not dated too far ahead, not expired
// (NIP-40), tags within their byte cap.
type Arrival struct {
	Now         func() time.Time // nil: time.Now
	MaxTagBytes int              // the bytes of all tag elements together; 0: no cap
}

// Check applies the arrival rules to ev.
func (a Arrival) Check(ev *nostr.Event) error {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	t := now()
	if int64(ev.CreatedAt) > t.Add(MaxFutureSkew).Unix() {
		return invalid("created_at is more than 15 minutes in the future")
	}
	if a.MaxTagBytes > 0 {
		if n := tagBytes(ev.Tags); n > a.MaxTagBytes {
			return invalid(fmt.Sprintf("tags of %d bytes exceed the limit of %d bytes", n, a.MaxTagBytes))
		}
	}
	exp, ok, err := expiration(ev)
	switch {
	case err != nil:
		return err
	case ok && exp <= t.Unix():
		return invalid("event has expired")
	}
	return nil
}

// expiration reads ev's NIP-40 expiration tag: ok is false when it has
// none, and a tag whose value is not a unix time is an error naming it.
func expiration(ev *nostr.Event) (at int64, ok bool, err error) {
	tag := ev.Tags.GetFirst([]string{"expiration"})
	if tag == nil {
		return 0, false, nil
	}
	if len(*tag) < 2 {
		return 0, false, invalid("expiration tag has no value")
	}
	at, valid := parseUnixSeconds((*tag)[1])
	if !valid {
		return 0, false, invalid("expiration tag is not a unix time in seconds")
	}
	return at, true, nil
}

func tagBytes(tags nostr.Tags) int {
	n := 0
	for _, tag := range tags {
		for _, v := range tag {
			n += len(v)
		}
	}
	return n
}
