//go:build windows

package owneronly

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// dacl is the access list of path in SDDL, e.g. D:P(A;OICI;FA;;;SY).
func dacl(t *testing.T, path string) string {
	t.Helper()
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("read the access list of %s: %v", path, err)
	}
	return sd.String()
}

// underWine reports whether this runs under Wine, whose ntdll says its
// version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// tempDir is t.TempDir whose removal may fail: under Wine 8 it does (Go's
// RemoveAll deletes with POSIX semantics, which Wine lacks).
func tempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "owneronly")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func TestDataDirectoryAndBackupAreTheUsersAlone(t *testing.T) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	me := user.User.Sid.String()
	tmp := tempDir(t)
	dir := filepath.Join(tmp, "Données de José", "dtp-personal")
	if err := MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(dir); err != nil { // an existing directory is made private too
		t.Fatal(err)
	}
	backup := filepath.Join(tmp, "sauvegarde é.db")
	f, err := Create(backup)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Create(backup); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Create over an existing file: %v, want ErrExist", err)
	}
	if underWine() {
		// Wine 8 reports success but keeps no access list: it derives one
		// from the Unix mode bits (Everyone may read a 0755 directory).
		t.Skip("Wine keeps no access lists; the lists themselves are checked on Windows only")
	}

	want := "D:P(A;OICI;FA;;;" + me + ")(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
	if got := dacl(t, dir); got != want {
		t.Fatalf("data directory access list = %s, want %s", got, want)
	}
	// a file the database creates inside takes the directory's list
	wal := filepath.Join(dir, "dtp.db-wal")
	if err := os.WriteFile(wal, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := dacl(t, wal)
	for _, sid := range []string{me, "SY", "BA"} {
		if !strings.Contains(got, ";FA;;;"+sid+")") {
			t.Errorf("%s access list %s lacks %s", filepath.Base(wal), got, sid)
		}
	}
	if strings.Count(got, "(A;") != 3 {
		t.Errorf("%s access list %s: want exactly the three owners' entries", filepath.Base(wal), got)
	}
	want = "D:P(A;;FA;;;" + me + ")(A;;FA;;;SY)(A;;FA;;;BA)"
	if got := dacl(t, backup); got != want {
		t.Fatalf("backup access list = %s, want %s", got, want)
	}
}
