package validation

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The `material` examples published in docs/NIP-32009.md and
// docs/NIP-32014.md. The docs print only material (their d values are
// placeholders), so the hex column was computed independently with
// `printf %s "<material>" | sha256sum` and is checked three ways here.
func TestStatementDMatchesPublishedMaterial(t *testing.T) {
	tests := []struct {
		doc        string
		subjectTag byte
		subject    string
		scopes     []string
		context    string
		material   string
		hex        string
	}{
		{"32009", 'i', "user:id:343", []string{"x.com"}, "identity", "user:id:343:x.com:identity", "744e1a660fb26b6c7ee58c5c273727fa0e939c2468c6caa3430af8fcded3621d"},
		{"32009", 'i', "user:id:343", nil, "identity", "user:id:343::identity", "1d9765941cc2c7de00166981a51345aa736ed7658bebfc68ff9ccf41f4ec4b59"},
		{"32009", 'i', "user:id:343", []string{"x.com"}, "", "user:id:343:x.com:", "e9a5969d7029806fd3cd24e188e4b8f1d36910ddf7bc8e0301b8ca6d2961a47e"},
		{"32009", 'i', "user:id:343", nil, "", "user:id:343::", "0fbe04b3349034060c5e410cbb6f023e7af09834871646bc22c9ecb17c996634"},
		{"32009", 'i', "user:id:343", []string{"x.com", "twitter.com"}, "identity", "user:id:343:twitter.com,x.com:identity", "5d4176210a2e6ac7246480d955dbd50d76f347b903bd2d05d0106c3b7497550e"},
		{"32009", 'i', "user:id:11348282", []string{"x.com"}, "", "user:id:11348282:x.com:", "b1a4da4011db02632bcdec3f662e553c03c6888d27868d755e64fe57bbf07775"},
		{"32009", 'i', "user:id:11348282", []string{"x.com"}, "identity", "user:id:11348282:x.com:identity", "c9ba756160865ed883a0ebf2730a6b84904c0f37f121a1e8393bc99ee42a0844"},
		{"32009", 'i', "user:id:11348282", []string{"x.com", "twitter.com", "x.com"}, "", "user:id:11348282:twitter.com,x.com:", "def7d0b78950edf18b1ef829db023a309d527842a9102b793a78a9084412d123"},
		{"32009+32014", 'i', "post:id:2080659774136291424", []string{"x.com"}, "", "post:id:2080659774136291424:x.com:", "790a6b352182f4f7a0cf49bc90b5add72e0349fd1f8d836a44acdcd6b3fa5973"},
		{"32014", 'i', "post:id:2080659774136291424", []string{"x.com"}, "product", "post:id:2080659774136291424:x.com:product", "011e684775ad922a4fa48ac4f1682fb1abc48faea0e3a441fe5c393e0062ec85"},
		{"32014", 'i', "user:id:11348282", nil, "", "user:id:11348282::", "d015e579c4ec6c94716340a08cfd19239e9ec152ce0af61eb22d10470c32b664"},
		// p / e rows of the docs use placeholders; the shape is what is published.
		{"32009", 'p', hexA, []string{"x.com"}, "development", "p:" + hexA + ":x.com:development", ""},
		{"32009", 'p', hexA, nil, "", "p:" + hexA + "::", ""},
		{"32009", 'e', hexA, nil, "news:accuracy", "e:" + hexA + "::news:accuracy", ""},
	}
	for _, tt := range tests {
		t.Run(tt.material, func(t *testing.T) {
			if got := Material(tt.subjectTag, tt.subject, tt.scopes, tt.context); got != tt.material {
				t.Fatalf("NIP-%s material: got %q, want %q", tt.doc, got, tt.material)
			}
			sum := sha256.Sum256([]byte(tt.material))
			want := hex.EncodeToString(sum[:])
			if tt.hex != "" && want != tt.hex {
				t.Fatalf("sha256(%q) = %s, independently computed %s", tt.material, want, tt.hex)
			}
			if got := StatementD(tt.subjectTag, tt.subject, tt.scopes, tt.context); got != want {
				t.Fatalf("StatementD = %s, want %s", got, want)
			}
		})
	}
}

// Fixed separators: an empty scope plus context "ab" must not meet scope
// "a" plus context "b" (the collision the docs call out).
func TestMaterialSeparatorsPreventCollisions(t *testing.T) {
	if StatementD('i', "user:id:1", nil, "ab") == StatementD('i', "user:id:1", []string{"a"}, "b") {
		t.Fatal("empty scope collided with a neighbouring field")
	}
	if StatementD('p', hexA, nil, "") == StatementD('e', hexA, nil, "") {
		t.Fatal("p and e subjects share a slot")
	}
}
