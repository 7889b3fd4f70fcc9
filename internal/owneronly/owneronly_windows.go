//go:build windows

package owneronly

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// MkdirAll creates dir and any missing parents, then gives dir a protected
// access list: the user, SYSTEM and the Administrators group (who hold what
// root holds on Unix) have full control, nobody else any access, and
// everything inside inherits it. Unlike on Unix this is done to an existing
// directory too: on Windows the database's WAL and shared-memory files take
// the directory's access list, whatever the database file's. A volume
// without access lists (FAT, exFAT) cannot be made private; there the
// directory is used as it is.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sd, err := ownerOnly(true)
	if err != nil {
		return fmt.Errorf("make %s private: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err == nil {
		err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
			windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	}
	if err != nil && !noAccessLists(err) {
		return fmt.Errorf("make %s private: %w", dir, err)
	}
	return nil
}

// Create creates a new, empty file at path with the same protected access
// list, set as the file is created (there is no moment in which others could
// open it); it fails if path exists.
func Create(path string) (*os.File, error) {
	sd, err := ownerOnly(false)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, sa,
		windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_EXISTS) {
			err = os.ErrExist
		}
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// ownerOnly is the security descriptor whose protected access list gives the
// current user, SYSTEM and Administrators full control; for a directory,
// inherited by the files and directories it holds.
func ownerOnly(directory bool) (*windows.SECURITY_DESCRIPTOR, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("who is the current user: %w", err)
	}
	inherit := ""
	if directory {
		inherit = "OICI"
	}
	sddl := "D:P"
	for _, sid := range []string{user.User.Sid.String(), "SY", "BA"} {
		sddl += "(A;" + inherit + ";FA;;;" + sid + ")"
	}
	return windows.SecurityDescriptorFromString(sddl)
}

// noAccessLists reports whether err says the volume keeps no access lists.
func noAccessLists(err error) bool {
	return errors.Is(err, windows.ERROR_NOT_SUPPORTED) || errors.Is(err, windows.ERROR_INVALID_FUNCTION) ||
		errors.Is(err, windows.ERROR_NO_SECURITY_ON_OBJECT)
}
