package validation

import "testing"

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Plain reason, 100% fine.", "Plain reason, 100% fine."},
		{"Space <b>agency</b>", "Space agency"},
		{`<script>alert("x")</script>ok`, `alert("x")ok`},
		{`<img src=x onerror="steal()">pic`, "pic"},
		{"<!-- hidden -->shown", "shown"},
		{"a < b and 3<4", "a < b and 3<4"},
		{"unterminated <b", "unterminated <b"},
		{"line one\nline two\tx", "line one\nline two\tx"},
		{"bell\x07 esc\x1b[31m del\x7f cr\r", "bell esc[31m del cr"},
		{"rtl \u202ereversed\u202c zw\u200bsp", "rtl reversed zwsp"},
		{"invalid \xff\xfe utf8", "invalid  utf8"},
		{"emoji 🚀 and ünïcödé", "emoji 🚀 and ünïcödé"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
